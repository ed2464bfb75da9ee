// Whole-file reads (with transparent gunzip and untar) and atomic writes.
#include "io/io_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/replace_file.hpp"
#include "io/config.hpp"
#include "io/io_bz2.hpp"
#include "io/io_gzip.hpp"
#include "io/io_limits.hpp"
#include "io/io_tar.hpp"
#include "io/output_set.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& packed, const std::filesystem::path& path) {
  z_stream z{};
  // 16 + MAX_WBITS: expect a gzip header; concatenated members are handled by the reset below.
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw RuntimeError("zlib: inflateInit2 failed");
  // zlib counts input in uInt (32 bits): feed it at most 1 GiB at a time.
  constexpr std::size_t kMaxIn = std::size_t{1} << 30;
  std::size_t fed = 0;
  auto refill = [&] {
    const std::size_t next = std::min(kMaxIn, packed.size() - fed);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data() + fed));
    z.avail_in = static_cast<uInt>(next);
    fed += next;
  };
  refill();
  const std::uint64_t limit = decompress_limit();
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (true) {
    if (z.avail_in == 0 && fed < packed.size()) refill();
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    if (out.size() + (sizeof buffer - z.avail_out) > limit) {
      inflateEnd(&z);
      decompress_overflow(path, "gzip", limit);
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0 && fed == packed.size()) break;
      inflateReset(&z);  // another gzip member follows
      continue;
    }
    if (rc != Z_OK) break;
    if (z.avail_in == 0 && fed == packed.size() && z.avail_out != 0) {
      rc = Z_BUF_ERROR;  // input ended inside the stream
      break;
    }
  }
  const std::string detail = z.msg ? z.msg : (rc == Z_BUF_ERROR ? "unexpected end of compressed data" : "corrupt data");
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw InputError(path.string() + ": not a valid gzip stream (" + detail + ")");
  return out;
}

// Up to `count` bytes at `offset`: how many were read, 0 at the end of the file.
std::size_t read_some(int fd, char* out, std::size_t count, std::uint64_t offset, const std::string& name) {
  while (true) {
    const ssize_t got = ::pread(fd, out, count, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) throw InputError(name + ": cannot read: " + std::strerror(errno));
  }
}

void read_at(int fd, char* out, std::size_t count, std::uint64_t offset, const std::string& name) {
  for (std::size_t done = 0; done < count;) {
    const std::size_t got = read_some(fd, out + done, count - done, offset + done, name);
    if (got == 0)
      throw InputError(name + ": the file ends at byte " + std::to_string(offset + done) + ", before byte " +
                       std::to_string(offset + count) +
                       " that was there when it was opened; it shrank while being read (is another program "
                       "writing it?)");
    done += got;
  }
}

}  // namespace io

std::string read_file(const std::filesystem::path& path) {
  // Checked before opening: a FIFO would block the open forever, /dev/zero and /dev/urandom would be
  // read until memory runs out, a directory reads as nothing.
  if (const std::string kind = io::describe_path_kind(path); kind == "does not exist")
    throw InputError(path.string() + ": cannot open (does the file exist?)");
  else if (!kind.empty())
    throw InputError(path.string() + ": " + kind + "; expected a regular file");
  if (io::OutputSet* run = io::OutputSet::active()) run->note_input(path);
  const std::string name = path.string();
  const io::FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat st {};
  if (file.fd < 0 || ::fstat(file.fd, &st) != 0) throw InputError(name + ": cannot open: " + std::strerror(errno));
  // The bytes it holds now, then any it gained since (a file that reports no size, as /proc's, too).
  std::string contents(static_cast<std::size_t>(st.st_size), '\0');
  io::read_at(file.fd, contents.data(), contents.size(), 0, name);
  char more[1 << 16];
  while (const std::size_t got = io::read_some(file.fd, more, sizeof more, contents.size(), name))
    contents.append(more, got);
  if (io::is_gzip(contents))
    contents = io::gunzip(contents, path);
  else if (io::is_bzip2(contents))
    contents = io::bunzip2(contents, path);
  return io::is_tar(contents) ? io::untar_single_file(contents, path) : contents;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  // Inside a run, a path the run claimed is renamed with the run's other outputs when it succeeds.
  io::OutputSet* run = io::OutputSet::active();
  if (run && run->claimed(path))
    core::write_temporary(run->stage(path), path, contents);
  else
    core::replace_file(path, contents);
}

}  // namespace itercl
