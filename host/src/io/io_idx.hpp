// The IDX format of MNIST and its relatives (internal; load_matrix dispatches here).
#pragma once

#include <filesystem>
#include <string>

#include "itercl/matrix.hpp"

namespace itercl::io {

// True when the bytes start like an IDX file: two zero bytes, a known type code, 1 to 4 dimensions
// (no text file starts so).
bool is_idx(const std::string& bytes);

// An IDX array as a matrix: its first dimension as rows, the others flattened row-major into columns
// (MNIST's 10,000 x 28 x 28 images become 10,000 x 784; its labels 10,000 x 1).
Matrix parse_idx(const std::string& bytes, const std::filesystem::path& path);

}  // namespace itercl::io
