// NumPy .npy files: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include "io/io_npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "io/io_stream.hpp"
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

// numpy refuses headers longer than this (numpy.lib.format's _MAX_HEADER_SIZE) unless told otherwise;
// a header of float32 or float64 needs about 120 characters.
constexpr std::size_t kMaxHeader = 10000;

// The header, a Python dict literal: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }. A small
// bounded parser (no regular expressions: std::regex recursed itself to a stack overflow on a header of
// 26,000 characters): exactly the three keys, each once; the shape a tuple of decimal integers below 2^64.
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<std::size_t> shape;
  std::string shape_text;  // as written, for messages
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

  NpyHeader parse() {
    NpyHeader h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      blanks();
      if (peek() == '}') break;
      const std::string key = quoted("a key");
      expect(':');
      blanks();
      if (key == "descr" && !std::exchange(seen_descr, true)) {
        h.descr = quoted("descr's value");
      } else if (key == "fortran_order" && !std::exchange(seen_fortran, true)) {
        if (take("True"))
          h.fortran = true;
        else if (!take("False"))
          fail("fortran_order: expected True or False");
      } else if (key == "shape" && !std::exchange(seen_shape, true)) {
        shape(h);
      } else {
        fail("unexpected or repeated key '" + key + "'");
      }
      blanks();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      blanks();
      if (peek() != '}') fail("expected ',' or '}'");
    }
    ++pos_;
    blanks();
    if (pos_ != text_.size()) fail("text after the dict");
    if (!seen_descr || !seen_fortran || !seen_shape)
      fail(std::string("no '") + (!seen_descr ? "descr" : !seen_fortran ? "fortran_order" : "shape") + "' entry");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_ + ": .npy header: " + what + " at character " + std::to_string(pos_) + " of " +
                     std::to_string(text_.size()));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void blanks() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  void expect(char c) {
    blanks();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool take(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  std::string quoted(const char* what) {
    blanks();
    const char q = peek();
    if (q != '\'' && q != '"') fail(std::string("expected ") + what + " in quotes");
    const std::size_t end = text_.find(q, pos_ + 1);
    if (end == std::string_view::npos) fail("an unterminated string");
    std::string out(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  void shape(NpyHeader& h) {
    const std::size_t start = pos_;
    if (peek() != '(') fail("shape: expected a tuple");
    ++pos_;
    while (true) {
      blanks();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') fail("shape: expected a non-negative integer");
      std::uint64_t v = 0;
      const std::size_t digits = pos_;
      while (peek() >= '0' && peek() <= '9') {
        const auto digit = static_cast<std::uint64_t>(peek() - '0');
        if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
          std::size_t end = digits;
          while (end < text_.size() && end - digits < 40 && text_[end] >= '0' && text_[end] <= '9') ++end;
          fail("shape: the dimension starting '" + std::string(text_.substr(digits, end - digits)) +
               "' is beyond 2^64");
        }
        v = v * 10 + digit;
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2's long
      h.shape.push_back(v);
      blanks();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') fail("shape: expected ',' or ')'");
    }
    ++pos_;
    h.shape_text = std::string(text_.substr(start + 1, pos_ - start - 2));
  }

  std::string_view text_;
  std::string name_;
  std::size_t pos_ = 0;
};

bool is_npy(const std::string& bytes) { return bytes.size() >= 6 && bytes.compare(0, 6, kMagic, 6) == 0; }

// Where a 2-D (or 1-D) float array lies in a file whose first bytes are `bytes` (the header at least):
// its shape, element type and order, checked; `size` is the whole file's.
struct NpyLayout {
  std::size_t rows = 0, cols = 0, item = 8, data_start = 0;
  bool f4 = false, swap = false, fortran = false;
  std::string shape_text;
};

NpyLayout npy_layout(const std::string& bytes, std::size_t size, const std::string& name) {
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
  if (header_len > kMaxHeader)
    throw InputError(name + ": .npy header of " + std::to_string(header_len) +
                     " characters; numpy's limit, kept here, is " + std::to_string(kMaxHeader));
  if (bytes.size() < header_start + header_len) throw InputError(name + ": truncated .npy header");
  const NpyHeader h = HeaderParser(std::string_view(bytes).substr(header_start, header_len), name).parse();
  const std::string& descr = h.descr;
  const std::string& shape_text = h.shape_text;
  const std::vector<std::size_t>& shape = h.shape;
  if (shape.empty() || shape.size() > 2)
    throw InputError(name + ": .npy array has shape (" + shape_text + "); expected 1 or 2 dimensions");
  NpyLayout l;
  l.rows = shape[0], l.cols = shape.size() == 2 ? shape[1] : 1;
  l.fortran = h.fortran;
  l.shape_text = shape_text;
  const bool f4 = descr == "<f4" || descr == ">f4", f8 = descr == "<f8" || descr == ">f8";
  if (!f4 && !f8) throw InputError(name + ": .npy dtype '" + descr + "' is not supported: expected float32 or float64");
  l.f4 = f4;
  l.swap = (descr[0] == '>') != (std::endian::native == std::endian::big);
  l.item = f4 ? 4 : 8;
  if (l.cols != 0 && l.rows > (size / l.item) / l.cols)
    throw InputError(name + ": truncated .npy data: shape (" + shape_text + ") is larger than the file");
  l.data_start = header_start + header_len;
  const std::size_t expected = l.rows * l.cols * l.item;
  if (size - l.data_start < expected)
    throw InputError(name + ": truncated .npy data: shape (" + shape_text + ") needs " + std::to_string(expected) +
                     " bytes, the file holds " + std::to_string(size - l.data_start));
  if (l.rows == 0 || l.cols == 0) throw InputError(name + ": no data (the array has shape (" + shape_text + "))");
  return l;
}

// Element k of the data (in the file's order) as a finite double; (i, j) names it in messages.
double npy_value(const char* at, const NpyLayout& l, std::size_t i, std::size_t j, const std::string& name) {
  const double v = l.f4 ? read_scalar<float>(at, l.swap) : read_scalar<double>(at, l.swap);
  if (!std::isfinite(v))
    throw InputError(name + ": element (" + std::to_string(i) + ", " + std::to_string(j) +
                     ") is not finite; values must be finite");
  return v;
}

Matrix parse_npy(const std::string& bytes, const std::filesystem::path& path) {
  const std::string name = path.string();
  const NpyLayout l = npy_layout(bytes, bytes.size(), name);
  const std::size_t rows = l.rows, cols = l.cols;
  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  const char* data = bytes.data() + l.data_start;
  for (std::size_t k = 0; k < rows * cols; ++k) {
    const std::size_t i = l.fortran ? k % rows : k / cols, j = l.fortran ? k / rows : k % cols;
    m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = npy_value(data + k * l.item, l, i, j, name);
  }
  return m;
}

namespace {

// The file's first bytes, enough for any header numpy writes (kMaxHeader), and its size.
std::string npy_head(int fd, std::size_t& size, const std::string& name) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(name + ": cannot read: " + std::strerror(errno));
  size = static_cast<std::size_t>(st.st_size);
  std::string head(std::min<std::size_t>(size, 12 + kMaxHeader), '\0');
  read_at(fd, head.data(), head.size(), 0, name);
  if (!is_npy(head)) throw InputError(name + ": not a .npy file (no NumPy magic at its start)");
  return head;
}

// The layout of the file `f` opened (or failed to open) for `name`.
NpyLayout opened_layout(const FileDescriptor& f, const std::string& name) {
  if (f.fd < 0) throw InputError(name + ": cannot open: " + std::strerror(errno));
  std::size_t size = 0;
  const std::string head = npy_head(f.fd, size, name);  // sets size: before npy_layout reads it
  return npy_layout(head, size, name);
}

}  // namespace

NpyShape npy_shape(const std::filesystem::path& path) {
  const std::string name = path.string();
  const FileDescriptor f{::open(path.c_str(), O_RDONLY)};
  const NpyLayout l = opened_layout(f, name);
  return {l.rows, l.cols, l.f4 ? Precision::f32 : Precision::f64};
}

namespace {

// read_npy_block's values as T, row-major into `out`. The file is read in contiguous runs (C order with
// every column: the whole block; C order: a row's columns; Fortran order: a column's rows), each in pieces
// of at most 64 MiB: a rank's rows of a large file take a few thousand reads, not one per row.
template <class T>
void read_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                std::size_t cols, T* out) {
  const std::string name = path.string();
  const FileDescriptor f{::open(path.c_str(), O_RDONLY)};
  const NpyLayout l = opened_layout(f, name);
  if (row0 + rows > l.rows || col0 + cols > l.cols)
    throw InputError(name + ": rows [" + std::to_string(row0) + ", " + std::to_string(row0 + rows) + ") x columns [" +
                     std::to_string(col0) + ", " + std::to_string(col0 + cols) + ") lie outside its shape (" +
                     l.shape_text + ")");
  const bool by_row = !l.fortran, whole_rows = by_row && col0 == 0 && cols == l.cols;
  const std::size_t runs = whole_rows ? 1 : by_row ? rows : cols;
  const std::size_t run = whole_rows ? rows * cols : by_row ? cols : rows;
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t{64} << 20) / l.item);
  std::string buffer(std::min(run, piece) * l.item, '\0');
  for (std::size_t r = 0; r < runs; ++r) {
    // The run's first value in the file, and where value e of the run goes in `out` (row-major).
    const std::size_t start = whole_rows ? row0 * l.cols
                              : by_row   ? (row0 + r) * l.cols + col0
                                         : (col0 + r) * l.rows + row0;
    const std::size_t at_out = by_row ? r * cols : r, step = by_row ? 1 : cols;
    for (std::size_t done = 0; done < run; done += piece) {
      const std::size_t count = std::min(piece, run - done);
      const std::size_t at = l.data_start + (start + done) * l.item;
      read_at(f.fd, buffer.data(), count * l.item, at, name);
      T* o = out + at_out + done * step;
      for (std::size_t k = 0; k < count; ++k) {
        const double v = l.f4 ? read_scalar<float>(buffer.data() + k * l.item, l.swap)
                              : read_scalar<double>(buffer.data() + k * l.item, l.swap);
        if (!std::isfinite(v)) {
          const std::size_t e = done + k;  // the value's place in the run, for the message
          const std::size_t bi = whole_rows ? e / cols : by_row ? r : e, bj = whole_rows ? e % cols : by_row ? e : r;
          npy_value(buffer.data() + k * l.item, l, row0 + bi, col0 + bj, name);  // throws, naming the element
        }
        o[k * step] = static_cast<T>(v);
      }
    }
  }
}

}  // namespace

void read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                    std::size_t cols, float* out) {
  read_block(path, row0, rows, col0, cols, out);
}

void read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                    std::size_t cols, double* out) {
  read_block(path, row0, rows, col0, cols, out);
}

Matrix read_npy_block(const std::filesystem::path& path, std::size_t row0, std::size_t rows, std::size_t col0,
                      std::size_t cols) {
  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  read_npy_block(path, row0, rows, col0, cols, m.data());
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
