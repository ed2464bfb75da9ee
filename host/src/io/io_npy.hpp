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

// A 2-D .npy file's shape, from its header alone.
struct NpyShape {
  std::size_t rows = 0, cols = 0;
  Precision dtype = Precision::f64;  // float32 or float64
};
NpyShape npy_shape(const std::filesystem::path& path);
// Rows [row0, row0 + rows) x columns [col0, col0 + cols) of a float32/float64 .npy file (C or Fortran
// order), reading only those values: a rank's part of a matrix too large for one process. Values are
// checked finite as parse_npy checks them.
Matrix read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                      std::size_t cols);
// The same values into `out` (rows x cols, row-major), as float or double: a float32 file's values read as
// float are its own; a float64 file's are rounded once.
void read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                    std::size_t cols, float* out);
void read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                    std::size_t cols, double* out);

// The magic, version 1.0 and header of a C-order array of dtype `descr` ('<f8') and `shape`, padded so
// that the data starts on a 64-byte boundary.
std::string npy_header(const char* descr, std::initializer_list<std::size_t> shape);

}  // namespace itercl::io
