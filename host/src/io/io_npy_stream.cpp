#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/replace_file.hpp"
#include "io/io_npy.hpp"
#include "io/npy_stream.hpp"
#include "io/output_set.hpp"
#include "itercl/error.hpp"

namespace itercl {

namespace {

std::string header_of(Precision dtype, const std::vector<std::size_t>& shape) {
  const char* descr = dtype == Precision::f32 ? "<f4" : "<f8";
  return shape.size() == 1 ? io::npy_header(descr, {shape[0]}) : io::npy_header(descr, {shape.at(0), shape.at(1)});
}

}  // namespace

NpyStream::NpyStream(std::filesystem::path path, Precision dtype, const std::vector<std::size_t>& shape)
    : path_(std::move(path)), dtype_(dtype) {
  // Inside a run, a path the run claimed is renamed with the run's other outputs when it succeeds.
  io::OutputSet* run = io::OutputSet::active();
  deferred_ = run && run->claimed(path_);
  std::error_code ec;
  if (!deferred_ && path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
  if (!deferred_) core::remove_stale_temporaries(path_);
  tmp_ = deferred_ ? run->stage(path_) : core::temporary_name(path_);
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);  // rw-r--r--, less the umask
  if (fd_ < 0) {
    core::forget_temporary(tmp_);
    throw RuntimeError(path_.string() + ": cannot create: " + std::strerror(errno));
  }
  const std::string header = header_of(dtype, shape);
  data_start_ = header.size();
  std::size_t values = 1;
  for (std::size_t extent : shape) values *= extent;
  if (::pwrite(fd_, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()) ||
      ::ftruncate(fd_, static_cast<off_t>(data_start_ + values * real_size(dtype))) != 0) {
    const std::string reason = std::strerror(errno);
    ::close(fd_);  // a constructor that throws runs no destructor: close and remove here
    ::unlink(tmp_.c_str());
    core::forget_temporary(tmp_);
    throw RuntimeError(path_.string() + ": cannot write (disk full or no permission?): " + reason);
  }
}

NpyStream::NpyStream(const Join& join, std::filesystem::path path, Precision dtype,
                     const std::vector<std::size_t>& shape)
    : path_(std::move(path)), tmp_(join.staged), dtype_(dtype), owner_(false) {
  data_start_ = header_of(dtype, shape).size();
  fd_ = ::open(tmp_.c_str(), O_WRONLY);
  if (fd_ < 0) {
    throw RuntimeError(
        path_.string() + ": cannot open " + tmp_.string() +
        ", the file rank 0 is writing (ranks on several hosts need a shared file system): " + std::strerror(errno));
  }
}

NpyStream::~NpyStream() {
  if (fd_ >= 0) {
    ::close(fd_);
    if (!owner_) return;
    ::unlink(tmp_.c_str());
    core::forget_temporary(tmp_);
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
  if (deferred_ || !owner_) return;  // the run's OutputSet, or the creating stream, publishes it
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) ::unlink(tmp_.c_str());
  core::forget_temporary(tmp_);
  if (ec) throw RuntimeError(path_.string() + ": cannot replace: " + ec.message());
}

}  // namespace itercl
