// A .npy file written piece by piece, from several threads, for outputs larger than memory (internal).
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "itercl/matrix.hpp"

namespace itercl {

// A C-order float32 or float64 array of `shape`: the header is written and the file sized at once, the
// data arrive by element offset in any order (pwrite: threads may write at the same time), and the file
// appears at `path` only on commit() (inside a run that claimed `path`, when the whole run commits its
// OutputSet); an uncommitted file is removed, so a failed run leaves no partial output behind and an
// earlier file intact.
//
// MPI ranks write one file together: rank 0 creates the stream and sends its staging_path() to the
// others, which join it (Join) and write their parts; each closes with commit(), and once every rank has,
// rank 0's commit() publishes the file. A joined stream never sizes, renames or removes the file.
class NpyStream {
 public:
  NpyStream(std::filesystem::path path, Precision dtype, const std::vector<std::size_t>& shape);  // 1 or 2 extents
  struct Join {
    std::filesystem::path staged;  // the creating stream's staging_path()
  };
  NpyStream(const Join& join, std::filesystem::path path, Precision dtype, const std::vector<std::size_t>& shape);
  ~NpyStream();
  NpyStream(const NpyStream&) = delete;
  NpyStream& operator=(const NpyStream&) = delete;

  // `count` values of the file's dtype from `data`, at element `offset` of the array.
  void write(std::size_t offset, const void* data, std::size_t count) const;
  void commit();
  Precision dtype() const { return dtype_; }
  const std::filesystem::path& staging_path() const { return tmp_; }  // where the data go until published

 private:
  std::filesystem::path path_, tmp_;
  Precision dtype_;
  std::size_t data_start_ = 0;
  int fd_ = -1;
  bool deferred_ = false;
  bool owner_ = true;  // created the file (false: joined another process's)
};

}  // namespace itercl
