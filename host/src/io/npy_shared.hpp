// One .npy file that every MPI rank writes its parts of (internal): no process holds the whole array.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/comm.hpp"
#include "io/npy_stream.hpp"
#include "itercl/matrix.hpp"

namespace itercl::io {

// Rank 0 creates the stream (NpyStream) and sends its staging path to the other ranks, which join it
// (ranks on several hosts need a shared file system); each rank writes its parts through file(). One rank
// alone is a plain NpyStream.
class SharedNpy {
 public:
  SharedNpy(core::Comm& comm, const std::filesystem::path& path, Precision dtype,
            const std::vector<std::size_t>& shape);
  const NpyStream& file() const { return created_ ? *created_ : *joined_; }
  // Closes this rank's part; rank 0 publishes the file once every rank has closed its own. Returns the
  // seconds spent waiting for the other ranks.
  double commit();

 private:
  core::Comm& comm_;
  std::optional<NpyStream> created_, joined_;
};

}  // namespace itercl::io
