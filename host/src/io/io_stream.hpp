// Reads of an open file (internal): read_file's and the .npy reader's, which size their buffers by
// fstat and must tell a file that shrank since from one that cannot be read.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace itercl::io {

// An open file descriptor (or -1), closed with its scope.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads `count` bytes at `offset` into `out`. An InputError naming `name` if reading fails, or if the
// file ends first: it held those bytes when it was opened and sized, so it shrank while being read.
void read_at(int fd, char* out, std::size_t count, std::uint64_t offset, const std::string& name);

}  // namespace itercl::io
