#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "io/io_npy.hpp"
#include "io/npy_stream.hpp"
#include "itercl/error.hpp"

namespace itercl {

NpyStream::NpyStream(std::filesystem::path path, Precision dtype, const std::vector<std::size_t>& shape)
    : path_(std::move(path)), dtype_(dtype) {
  std::error_code ec;
  if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  tmp_ = path_;
  tmp_ += ".tmp-" + std::to_string(std::random_device{}());
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // rw-r--r--, less the umask
  if (fd_ < 0) throw RuntimeError(path_.string() + ": cannot create: " + std::strerror(errno));
  const char* descr = dtype == Precision::f32 ? "<f4" : "<f8";
  const std::string header =
      shape.size() == 1 ? io::npy_header(descr, {shape[0]}) : io::npy_header(descr, {shape.at(0), shape.at(1)});
  data_start_ = header.size();
  std::size_t values = 1;
  for (std::size_t extent : shape) values *= extent;
  if (::pwrite(fd_, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()) ||
      ::ftruncate(fd_, static_cast<off_t>(data_start_ + values * real_size(dtype))) != 0)
    throw RuntimeError(path_.string() + ": cannot write (disk full or no permission?): " + std::strerror(errno));
}

NpyStream::~NpyStream() {
  if (fd_ >= 0) {
    ::close(fd_);
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);
  }
}

void NpyStream::write(std::size_t offset, const void* data, std::size_t count) const {
  const std::size_t bytes = count * real_size(dtype_);
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n =
        ::pwrite(fd_, p + done, bytes - done, static_cast<off_t>(data_start_ + offset * real_size(dtype_) + done));
    if (n <= 0) throw RuntimeError(path_.string() + ": cannot write (disk full?): " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

void NpyStream::commit() {
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw RuntimeError(path_.string() + ": cannot write: " + std::strerror(errno));
  }
  fd_ = -1;
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    std::filesystem::remove(tmp_, ec);
    throw RuntimeError(path_.string() + ": cannot replace: " + ec.message());
  }
}

}  // namespace itercl
