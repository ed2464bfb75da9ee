// NumPy .npy parsing (internal; load_matrix dispatches here).
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <string>

#include "itercl/matrix.hpp"

namespace itercl::io {

bool is_npy(const std::string& bytes);
Matrix parse_npy(const std::string& bytes, const std::filesystem::path& path);

// The magic, version 1.0 and header of a C-order array of dtype `descr` ('<f8') and `shape`, padded so
// that the data starts on a 64-byte boundary.
std::string npy_header(const char* descr, std::initializer_list<std::size_t> shape);

}  // namespace itercl::io
