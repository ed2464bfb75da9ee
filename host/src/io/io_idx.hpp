// The IDX format of MNIST and its relatives (internal; load_matrix dispatches here).
#pragma once

#include <filesystem>
#include <string>

#include "itercl/matrix.hpp"

namespace itercl::io {

// True when the bytes start like an IDX file: its magic's two zero bytes, with which no text file starts.
// The rest of the magic (a known type code, 1 to 4 dimensions) is parse_idx's to check, so that a
// broken IDX file is an error about its magic, not a text file of garbage.
bool is_idx(const std::string& bytes);

// An IDX array as a matrix: its first dimension as rows, the others flattened row-major into columns
// (MNIST's 10,000 x 28 x 28 images become 10,000 x 784; its labels 10,000 x 1).
Matrix parse_idx(const std::string& bytes, const std::filesystem::path& path);

}  // namespace itercl::io
