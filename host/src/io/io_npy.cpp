// NumPy .npy files: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include "io/io_npy.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <utility>

#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

constexpr char kMagic[] = "\x93NUMPY";

template <class T>
T read_scalar(const char* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if (swap) {
    auto* b = reinterpret_cast<unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof v / 2; ++i) std::swap(b[i], b[sizeof v - 1 - i]);
  }
  return v;
}

// The header is a Python dict literal: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }
std::string dict_value(const std::string& header, const std::string& key, const std::string& pattern,
                       const std::string& name) {
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'" + key + "'\\s*:\\s*" + pattern)))
    throw InputError(name + ": .npy header has no readable '" + key + "' entry: " + header);
  return m[1];
}

bool is_npy(const std::string& bytes) { return bytes.size() >= 6 && bytes.compare(0, 6, kMagic, 6) == 0; }

Matrix parse_npy(const std::string& bytes, const std::filesystem::path& path) {
  const std::string name = path.string();
  if (bytes.size() < 10) throw InputError(name + ": truncated .npy header");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len, header_start;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw InputError(name + ": truncated .npy header");
    header_len = read_scalar<std::uint32_t>(bytes.data() + 8, std::endian::native == std::endian::big);
    header_start = 12;
  } else {
    throw InputError(name + ": .npy format version " + std::to_string(major) + " is not supported (1, 2 or 3)");
  }
  if (bytes.size() < header_start + header_len) throw InputError(name + ": truncated .npy header");
  const std::string header = bytes.substr(header_start, header_len);

  const std::string descr = dict_value(header, "descr", "'([^']*)'", name);
  const bool fortran = dict_value(header, "fortran_order", "(True|False)", name) == "True";
  const std::string shape_text = dict_value(header, "shape", "\\(([^)]*)\\)", name);

  std::vector<std::size_t> shape;
  static const std::regex number("\\d+");
  for (auto it = std::sregex_iterator(shape_text.begin(), shape_text.end(), number); it != std::sregex_iterator(); ++it)
    shape.push_back(std::stoull(it->str()));
  if (shape.empty() || shape.size() > 2)
    throw InputError(name + ": .npy array has shape (" + shape_text + "); expected 1 or 2 dimensions");
  const std::size_t rows = shape[0], cols = shape.size() == 2 ? shape[1] : 1;

  const bool f4 = descr == "<f4" || descr == ">f4", f8 = descr == "<f8" || descr == ">f8";
  if (!f4 && !f8) throw InputError(name + ": .npy dtype '" + descr + "' is not supported: expected float32 or float64");
  const bool swap = (descr[0] == '>') != (std::endian::native == std::endian::big);
  const std::size_t item = f4 ? 4 : 8;
  if (cols != 0 && rows > (bytes.size() / item) / cols)
    throw InputError(name + ": truncated .npy data: shape (" + shape_text + ") is larger than the file");
  const std::size_t data_start = header_start + header_len, expected = rows * cols * item;
  if (bytes.size() - data_start < expected)
    throw InputError(name + ": truncated .npy data: shape (" + shape_text + ") needs " + std::to_string(expected) +
                     " bytes, the file holds " + std::to_string(bytes.size() - data_start));
  if (rows == 0 || cols == 0) throw InputError(name + ": no data (the array has shape (" + shape_text + "))");

  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  const char* data = bytes.data() + data_start;
  for (std::size_t k = 0; k < rows * cols; ++k) {
    const double v = f4 ? read_scalar<float>(data + k * 4, swap) : read_scalar<double>(data + k * 8, swap);
    const std::size_t i = fortran ? k % rows : k / cols, j = fortran ? k / rows : k % cols;
    if (!std::isfinite(v))
      throw InputError(name + ": element (" + std::to_string(i) + ", " + std::to_string(j) +
                       ") is not finite; values must be finite");
    m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = v;
  }
  return m;
}

std::string npy_header(const char* descr, std::initializer_list<std::size_t> shape) {
  static_assert(std::endian::native == std::endian::little, "save_npy writes the host's bytes as little-endian");
  std::ostringstream dict;
  dict << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  const char* separator = "";
  for (std::size_t extent : shape) dict << std::exchange(separator, ", ") << extent;
  dict << (shape.size() == 1 ? ",), }" : "), }");  // Python's tuple syntax: (5,) and (3, 2)
  std::string header = dict.str();
  // Pad so that the data starts on a 64-byte boundary, the header ending in '\n'.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

void write_npy(const std::filesystem::path& path, const char* descr, std::initializer_list<std::size_t> shape,
               const void* data, std::size_t bytes) {
  std::string out = npy_header(descr, shape);
  out.append(static_cast<const char*>(data), bytes);
  write_file_atomically(path, out);
}

}  // namespace io

void save_npy(const std::filesystem::path& path, const Matrix& m) {
  io::write_npy(path, "<f8", {static_cast<std::size_t>(m.rows()), static_cast<std::size_t>(m.cols())}, m.data(),
                static_cast<std::size_t>(m.size()) * sizeof(double));
}

void save_npy(const std::filesystem::path& path, std::span<const std::int32_t> v) {
  io::write_npy(path, "<i4", {v.size()}, v.data(), v.size_bytes());
}

}  // namespace itercl
