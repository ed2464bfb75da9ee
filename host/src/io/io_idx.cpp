// IDX files (http://yann.lecun.com/exdb/mnist/): a big-endian header of magic (0, 0, type, rank) and
// `rank` 32-bit extents, then the values, big-endian.
#include "io/io_idx.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>

#include "itercl/error.hpp"

namespace itercl::io {

std::size_t type_size(unsigned char type) {
  switch (type) {
    case 0x08:  // unsigned byte
    case 0x09:  // signed byte
      return 1;
    case 0x0B:  // int16
      return 2;
    case 0x0C:  // int32
    case 0x0D:  // float32
      return 4;
    case 0x0E:  // float64
      return 8;
    default:
      return 0;
  }
}

std::uint64_t big_endian(const unsigned char* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

double value(const unsigned char* p, unsigned char type) {
  switch (type) {
    case 0x08:
      return p[0];
    case 0x09:
      return static_cast<signed char>(p[0]);
    case 0x0B:
      return static_cast<std::int16_t>(big_endian(p, 2));
    case 0x0C:
      return static_cast<std::int32_t>(big_endian(p, 4));
    case 0x0D: {
      const auto bits = static_cast<std::uint32_t>(big_endian(p, 4));
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: {
      const std::uint64_t bits = big_endian(p, 8);
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
}

// Rows, columns and element size from the header.
struct Shape {
  std::uint64_t rows = 0, cols = 1;
  std::size_t item = 0, header = 0;
};

std::string hex_byte(unsigned char byte) {
  const char* digits = "0123456789ABCDEF";
  return {digits[byte >> 4], digits[byte & 15]};
}

// The header read and checked, each error naming the byte that breaks it: a file that starts like IDX
// is never parsed as text instead.
Shape shape_of(const std::string& bytes, const std::string& name) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  if (!is_idx(bytes)) throw InputError(name + ": not an IDX file (its magic starts with two zero bytes)");
  if (bytes.size() < 4)
    throw InputError(name + ": IDX magic cut short: " + std::to_string(bytes.size()) + " of its 4 bytes");
  const std::string magic = "IDX magic 00 00 " + hex_byte(b[2]) + " " + hex_byte(b[3]) + ": ";
  if (!type_size(b[2]))
    throw InputError(name + ": " + magic + "type code " + hex_byte(b[2]) +
                     " is not one of 08 (unsigned byte), 09 (signed byte), 0B (int16), 0C (int32), 0D (float32), "
                     "0E (float64)");
  if (b[3] < 1 || b[3] > 4)
    throw InputError(name + ": " + magic + std::to_string(b[3]) + " dimensions; expected 1 to 4");
  Shape s;
  s.header = 4 + 4 * std::size_t{b[3]};
  s.item = type_size(b[2]);
  if (bytes.size() < s.header)
    throw InputError(name + ": IDX header cut short: " + std::to_string(bytes.size()) + " bytes of the " +
                     std::to_string(s.header) + " that its " + std::to_string(b[3]) + " dimensions take");
  s.rows = big_endian(b + 4, 4);
  // Dimensions are 32-bit; three of them can pass 2^64, so the product saturates instead of wrapping
  // (parse_idx compares it with the file's size).
  for (int d = 1; d < b[3]; ++d) {
    const std::uint64_t extent = big_endian(b + 4 + 4 * d, 4);
    s.cols = extent != 0 && s.cols > std::numeric_limits<std::uint64_t>::max() / extent
                 ? std::numeric_limits<std::uint64_t>::max()
                 : s.cols * extent;
  }
  return s;
}

bool is_idx(const std::string& bytes) { return bytes.size() >= 2 && bytes[0] == '\0' && bytes[1] == '\0'; }

Matrix parse_idx(const std::string& bytes, const std::filesystem::path& path) {
  const Shape s = shape_of(bytes, path.string());
  if (s.rows == 0 || s.cols == 0) throw InputError(path.string() + ": IDX file with no data (a dimension is 0)");
  // Checked before anything is allocated, without wrapping: the data's bytes against the file's.
  const std::uint64_t data_bytes = bytes.size() - s.header;
  if (s.cols > data_bytes / s.item || s.rows > data_bytes / s.item / s.cols ||
      s.header + s.rows * s.cols * s.item != bytes.size()) {
    const double declared = static_cast<double>(s.rows) * static_cast<double>(s.cols) * static_cast<double>(s.item);
    std::ostringstream promised;
    promised.precision(17);
    promised << static_cast<double>(s.header) + declared;
    throw InputError(path.string() + ": IDX header promises " + promised.str() + " bytes, the file holds " +
                     std::to_string(bytes.size()) + " (" + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                     " items of " + std::to_string(s.item) + " bytes)");
  }
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data()) + s.header;
  const unsigned char type = static_cast<unsigned char>(bytes[2]);
  Matrix m(static_cast<Eigen::Index>(s.rows), static_cast<Eigen::Index>(s.cols));
  for (Eigen::Index k = 0; k < m.size(); ++k) {
    m.data()[k] = value(data + static_cast<std::size_t>(k) * s.item, type);
    if (!std::isfinite(m.data()[k]))
      throw InputError(path.string() + ": element " + std::to_string(k) + " is not finite; values must be finite");
  }
  return m;
}

}  // namespace itercl::io
