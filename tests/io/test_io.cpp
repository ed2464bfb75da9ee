// Data files: text and .npy loaders, gzip, the error messages, and atomic writes. Every input is
// written here byte by byte (the .npy files by hand, not with save_npy), so a loader bug cannot hide
// behind a matching writer bug.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/io_npy.hpp"
#include "io/io_stream.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using itercl::Matrix;

static_assert(std::endian::native == std::endian::little, "the hand-made .npy bytes below assume a little-endian host");

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace io_tests {

using test::TempDir;

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const fs::path& path) {
  std::ostringstream bytes;
  bytes << std::ifstream(path, std::ios::binary).rdbuf();
  return bytes.str();
}

// gzip bytes from zlib itself, the reference the loader must agree with.
std::string gzip(const fs::path& scratch, const std::string& contents) {
  gzFile out = gzopen(scratch.c_str(), "wb");
  REQUIRE(out != nullptr);
  REQUIRE(gzwrite(out, contents.data(), static_cast<unsigned>(contents.size())) == static_cast<int>(contents.size()));
  REQUIRE(gzclose(out) == Z_OK);
  return read_bytes(scratch);
}

// A .npy file, format 1.0: magic, version, little-endian header length, then the dict padded with
// spaces to a multiple of 64 bytes and ending in '\n', then the raw data.
std::string npy(const std::string& descr, bool fortran, const std::string& shape, const std::string& data) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

template <class T>
std::string raw(const std::vector<T>& values, bool big_endian = false) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  if (big_endian)
    for (std::size_t i = 0; i < bytes.size(); i += sizeof(T))
      std::reverse(bytes.begin() + i, bytes.begin() + i + sizeof(T));
  return bytes;
}

Matrix matrix(Eigen::Index rows, Eigen::Index cols, std::initializer_list<double> values) {
  Matrix m(rows, cols);
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

// The message of the `Error` that `f` throws; a failed check if it throws none.
template <class Error = itercl::InputError, class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  FAIL_CHECK("expected an exception, nothing was thrown");
  return "";
}

void check_contains(const std::string& message, std::initializer_list<std::string> parts) {
  for (const auto& part : parts)
    CHECK_MESSAGE(message.find(part) != std::string::npos, "'" << part << "' is missing from: " << message);
}

// Every file name in `folder`, to see that nothing was left behind.
std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("load_matrix reads CSV with and without a header line") {
  TempDir dir;
  write_bytes(dir / "named.csv", "x,y\n1,2\n3.5,-4\n");
  CHECK(itercl::load_matrix(dir / "named.csv") == matrix(2, 2, {1, 2, 3.5, -4}));

  write_bytes(dir / "plain.csv", "1,2,3\r\n+4,5e-1,-6\r\n");
  CHECK(itercl::load_matrix(dir / "plain.csv") == matrix(2, 3, {1, 2, 3, 4, 0.5, -6}));

  // A numeric first line is data unless the header is declared.
  write_bytes(dir / "numeric_header.csv", "10,20\n1,2\n");
  CHECK(itercl::load_matrix(dir / "numeric_header.csv") == matrix(2, 2, {10, 20, 1, 2}));
  itercl::LoadOptions with_header;
  with_header.header = true;
  CHECK(itercl::load_matrix(dir / "numeric_header.csv", with_header) == matrix(1, 2, {1, 2}));

  itercl::LoadOptions no_header;
  no_header.header = false;
  check_contains(error_message([&] { itercl::load_matrix(dir / "named.csv", no_header); }),
                 {(dir / "named.csv").string() + ":1, column 1: 'x' is not a number"});
}

TEST_CASE("load_matrix reads whitespace text and semicolon CSV, skipping comments and blank lines") {
  TempDir dir;
  write_bytes(dir / "points.txt", "# made by hand\n\n1 2\t3\n  4\t\t5   6  \n\n# the last row\n7 8 9\n");
  CHECK(itercl::load_matrix(dir / "points.txt") == matrix(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}));

  write_bytes(dir / "semicolon.csv", "# exported with a European locale\na;b\n1.5;2\n3 ; 4e2\n");
  CHECK(itercl::load_matrix(dir / "semicolon.csv") == matrix(2, 2, {1.5, 2, 3, 400}));
}

TEST_CASE("gzip is detected by content, for text and for .npy") {
  TempDir dir;
  const std::string text = "1,2\n3,4\n5,6\n";
  write_bytes(dir / "points.dat", gzip(dir / "scratch.gz", text));
  CHECK(itercl::read_file(dir / "points.dat") == text);
  CHECK(itercl::load_matrix(dir / "points.dat") == matrix(3, 2, {1, 2, 3, 4, 5, 6}));

  write_bytes(dir / "points.npy.gz",
              gzip(dir / "scratch.gz", npy("<f8", false, "(2, 2)", raw<double>({1, -2, 0.25, 8}))));
  CHECK(itercl::load_matrix(dir / "points.npy.gz") == matrix(2, 2, {1, -2, 0.25, 8}));
}

TEST_CASE(".npy float32 and float64, C and Fortran order, 1-D and big-endian") {
  TempDir dir;
  const Matrix expected = matrix(2, 3, {1.5, -2, 3.25, 4, 0.125, -6});
  // The same matrix in C order (rows one after another) and Fortran order (columns one after another).
  write_bytes(dir / "c8.npy", npy("<f8", false, "(2, 3)", raw<double>({1.5, -2, 3.25, 4, 0.125, -6})));
  write_bytes(dir / "f8.npy", npy("<f8", true, "(2, 3)", raw<double>({1.5, 4, -2, 0.125, 3.25, -6})));
  write_bytes(dir / "c4.npy", npy("<f4", false, "(2, 3)", raw<float>({1.5f, -2, 3.25f, 4, 0.125f, -6})));
  write_bytes(dir / "f4.npy", npy("<f4", true, "(2, 3)", raw<float>({1.5f, 4, -2, 0.125f, 3.25f, -6})));
  write_bytes(dir / "big.npy", npy(">f8", false, "(2, 3)", raw<double>({1.5, -2, 3.25, 4, 0.125, -6}, true)));
  for (const char* name : {"c8.npy", "f8.npy", "c4.npy", "f4.npy", "big.npy"}) {
    CAPTURE(name);
    CHECK(itercl::load_matrix(dir / name) == expected);
  }

  // float32 values that double cannot tell from their float rounding: converted, not re-parsed.
  write_bytes(dir / "tenth.npy", npy("<f4", false, "(1, 1)", raw<float>({0.1f})));
  CHECK(itercl::load_matrix(dir / "tenth.npy")(0, 0) == static_cast<double>(0.1f));

  write_bytes(dir / "vector.npy", npy("<f8", false, "(4,)", raw<double>({1, 2, 3, 4})));
  CHECK(itercl::load_matrix(dir / "vector.npy") == matrix(4, 1, {1, 2, 3, 4}));
}

TEST_CASE("a block of a .npy file, C or Fortran order, reads only its values") {
  TempDir dir;
  // 3 x 4 with element (i, j) = 10 i + j, in both orders.
  std::vector<double> c_order, f_order;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) c_order.push_back(10 * i + j);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) f_order.push_back(10 * i + j);
  write_bytes(dir / "c.npy", npy("<f8", false, "(3, 4)", raw<double>(c_order)));
  write_bytes(dir / "f.npy", npy("<f4", true, "(3, 4)", raw<float>({f_order.begin(), f_order.end()})));
  for (const char* name : {"c.npy", "f.npy"}) {
    CAPTURE(name);
    const itercl::io::NpyShape shape = itercl::io::npy_shape(dir / name);
    CHECK(shape.rows == 3);
    CHECK(shape.cols == 4);
    CHECK(itercl::io::read_npy_block(dir / name, 1, 2, 0, 4) == matrix(2, 4, {10, 11, 12, 13, 20, 21, 22, 23}));
    CHECK(itercl::io::read_npy_block(dir / name, 0, 3, 2, 1) == matrix(3, 1, {2, 12, 22}));
    CHECK(itercl::io::read_npy_block(dir / name, 2, 0, 0, 4).rows() == 0);
    // As float, row-major, whole rows (one run of a C-order file) and a column.
    CHECK(shape.dtype == (std::string_view(name) == "c.npy" ? itercl::Precision::f64 : itercl::Precision::f32));
    std::vector<float> rows(8), column(3);
    itercl::io::read_npy_block(dir / name, 1, 2, 0, 4, rows.data());
    CHECK(rows == std::vector<float>{10, 11, 12, 13, 20, 21, 22, 23});
    itercl::io::read_npy_block(dir / name, 0, 3, 2, 1, column.data());
    CHECK(column == std::vector<float>{2, 12, 22});
    CHECK_THROWS_WITH_AS(itercl::io::read_npy_block(dir / name, 2, 2, 0, 4),
                         doctest::Contains("rows [2, 4) x columns [0, 4) lie outside its shape (3, 4)"),
                         itercl::InputError);
  }
  // Only the block's values are checked: a NaN elsewhere is the other ranks' to find.
  c_order[0] = std::numeric_limits<double>::quiet_NaN();
  write_bytes(dir / "nan.npy", npy("<f8", false, "(3, 4)", raw<double>(c_order)));
  CHECK(itercl::io::read_npy_block(dir / "nan.npy", 1, 2, 0, 4)(0, 0) == 10);
  CHECK_THROWS_WITH_AS(itercl::io::read_npy_block(dir / "nan.npy", 0, 1, 0, 4),
                       doctest::Contains("element (0, 0) is not finite"), itercl::InputError);
  CHECK_THROWS_WITH_AS(itercl::io::npy_shape(dir / "nothing.npy"), doctest::Contains("cannot open"),
                       itercl::InputError);
  // A NaN met inside a whole-rows read (one run of the file) is named by its row and column too.
  CHECK_THROWS_WITH_AS(itercl::io::read_npy_block(dir / "nan.npy", 0, 3, 0, 4),
                       doctest::Contains("element (0, 0) is not finite"), itercl::InputError);
  c_order[0] = 0, c_order[6] = std::numeric_limits<double>::infinity();
  write_bytes(dir / "inf.npy", npy("<f8", false, "(3, 4)", raw<double>(c_order)));
  CHECK_THROWS_WITH_AS(itercl::io::read_npy_block(dir / "inf.npy", 0, 3, 0, 4),
                       doctest::Contains("element (1, 2) is not finite"), itercl::InputError);
}

TEST_CASE("save_npy then load_matrix gives back the same bits") {
  TempDir dir;
  std::mt19937_64 random(20240607);
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  Matrix m(7, 3);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = uniform(random);
  m(0, 0) = 1e-310;  // a subnormal
  itercl::save_npy(dir / "m.npy", m);

  const Matrix back = itercl::load_matrix(dir / "m.npy");
  REQUIRE(back.rows() == 7);
  REQUIRE(back.cols() == 3);
  CHECK(std::memcmp(back.data(), m.data(), sizeof(double) * 21) == 0);

  const std::string bytes = read_bytes(dir / "m.npy");
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (7, 3), }";
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  CHECK((10 + header_len) % 64 == 0);
  CHECK(bytes.substr(10, header.size()) == header);
  CHECK(bytes[10 + header_len - 1] == '\n');
  CHECK(bytes.size() == 10 + header_len + 21 * sizeof(double));
}

TEST_CASE("save_npy writes int32 labels as a 1-D '<i4' array") {
  TempDir dir;
  const std::vector<std::int32_t> labels = {0, 2, 1, -1, 2147483647};
  itercl::save_npy(dir / "labels.npy", labels);

  const std::string bytes = read_bytes(dir / "labels.npy");
  const std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }";
  REQUIRE(bytes.size() > 10);
  const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK((10 + header_len) % 64 == 0);
  CHECK(bytes.substr(10, header.size()) == header);
  CHECK(bytes.find_first_not_of(' ', 10 + header.size()) == 10 + header_len - 1);  // spaces, then '\n'
  CHECK(bytes.substr(10 + header_len) == raw(labels));
}

TEST_CASE("to_csv keeps every bit, and the loader reads it back") {
  TempDir dir;
  const Matrix m = matrix(2, 2, {1.5, -2, 0.1, 3});
  CHECK(itercl::to_csv(m) == "1.5,-2\n0.10000000000000001,3\n");

  Matrix odd(1, 3);
  odd << 1.0 / 3, -2.5e-300, 6.02214076e23;
  write_bytes(dir / "odd.csv", itercl::to_csv(odd));
  CHECK(itercl::load_matrix(dir / "odd.csv") == odd);
}

TEST_CASE("bad text files: the message names the file and the line") {
  TempDir dir;
  const auto error_for = [&](const std::string& name, const std::string& contents) {
    write_bytes(dir / name, contents);
    return error_message([&] { itercl::load_matrix(dir / name); });
  };
  const auto file = [&](const std::string& name) { return (dir / name).string(); };

  check_contains(error_for("empty.csv", ""), {file("empty.csv") + ": no data"});
  check_contains(error_for("header.csv", "x,y\n\n"), {file("header.csv") + ": no data"});
  check_contains(error_for("ragged.csv", "x,y\n1,2\n3,4,5\n"),
                 {file("ragged.csv") + ":3: expected 2 values (as on line 2), found 3"});
  check_contains(error_for("nan.csv", "1,2\n3,nan\n"), {file("nan.csv") + ":2, column 2: nan is not allowed"});
  check_contains(error_for("inf.txt", "1 2\n3 4\n-inf 5\n"), {file("inf.txt") + ":3, column 1: -inf is not allowed"});
  check_contains(error_for("word.csv", "x,y\n1,2\n3,abc\n"),
                 {file("word.csv") + ":3, column 2: 'abc' is not a number"});
}

TEST_CASE("bad .npy files: the message names the file and the problem") {
  TempDir dir;
  const auto error_for = [&](const std::string& name, const std::string& contents) {
    write_bytes(dir / name, contents);
    return error_message([&] { itercl::load_matrix(dir / name); });
  };
  const auto file = [&](const std::string& name) { return (dir / name).string(); };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();

  check_contains(error_for("nan.npy", npy("<f8", false, "(2, 2)", raw<double>({1, 2, nan, 4}))),
                 {file("nan.npy") + ": element (1, 0) is not finite"});
  check_contains(error_for("inf.npy", npy("<f4", false, "(2, 2)", raw<float>({1, static_cast<float>(inf), 3, 4}))),
                 {file("inf.npy") + ": element (0, 1) is not finite"});
  check_contains(error_for("short.npy", npy("<f8", false, "(3, 2)", raw<double>({1, 2, 3, 4, 5}))),
                 {file("short.npy") + ": truncated .npy data", "needs 48 bytes, the file holds 40"});
  check_contains(error_for("int.npy", npy("<i4", false, "(2, 2)", raw<std::int32_t>({1, 2, 3, 4}))),
                 {file("int.npy") + ": .npy dtype '<i4' is not supported"});
  check_contains(error_for("cube.npy", npy("<f8", false, "(2, 2, 2)", raw<double>({1, 2, 3, 4, 5, 6, 7, 8}))),
                 {file("cube.npy") + ": .npy array has shape (2, 2, 2); expected 1 or 2 dimensions"});
}

TEST_CASE("bad gzip streams are InputErrors naming the file") {
  TempDir dir;
  write_bytes(dir / "garbage.csv", "\x1f\x8b this is not deflate data at all");
  check_contains(error_message([&] { itercl::load_matrix(dir / "garbage.csv"); }),
                 {(dir / "garbage.csv").string() + ": not a valid gzip stream"});

  std::string text;
  for (int i = 0; i < 2000; ++i) text += std::to_string(i) + "," + std::to_string(i * 7 % 13) + "\n";
  const std::string packed = gzip(dir / "scratch.gz", text);
  write_bytes(dir / "cut.csv.gz", packed.substr(0, packed.size() / 2));
  check_contains(error_message([&] { itercl::read_file(dir / "cut.csv.gz"); }),
                 {(dir / "cut.csv.gz").string() + ": not a valid gzip stream (unexpected end of compressed data)"});
}

TEST_CASE("a missing file and a folder are InputErrors naming the path") {
  TempDir dir;
  check_contains(error_message([&] { itercl::load_matrix(dir / "missing.csv"); }),
                 {(dir / "missing.csv").string() + ": cannot open"});
  check_contains(error_message([&] { itercl::read_file(dir.path); }),
                 {dir.path.string() + ": is a directory; expected a regular file"});
}

TEST_CASE("write_file_atomically replaces content, creates folders, and cleans up after a failure") {
  TempDir dir;
  itercl::write_file_atomically(dir / "out.txt", "a long first version\n");
  itercl::write_file_atomically(dir / "out.txt", "short");
  CHECK(read_bytes(dir / "out.txt") == "short");

  itercl::write_file_atomically(dir.path / "a" / "b" / "nested.txt", std::string("with\0nul", 8));
  CHECK(read_bytes(dir.path / "a" / "b" / "nested.txt") == std::string("with\0nul", 8));

  // The parent "folder" is a regular file: nothing can be created under it.
  write_bytes(dir / "blocker", "keep me");
  CHECK_THROWS_AS(itercl::write_file_atomically(dir.path / "blocker" / "x.txt", "data"), itercl::RuntimeError);
  CHECK(read_bytes(dir / "blocker") == "keep me");

  // The target is a folder: the temporary file is written, the rename fails, the temporary must go.
  fs::create_directories(dir.path / "taken" / "inside");
  check_contains(error_message<itercl::RuntimeError>([&] { itercl::write_file_atomically(dir / "taken", "data"); }),
                 {(dir / "taken").string() + ": cannot replace"});
  CHECK(names_in(dir.path) == std::vector<std::string>{"a", "blocker", "out.txt", "taken"});
  CHECK(names_in(dir.path / "taken") == std::vector<std::string>{"inside"});
}

// An IDX file's bytes: magic (0, 0, type, rank), big-endian extents, then the payload as given.
std::string idx_bytes(unsigned char type, std::vector<std::uint32_t> extents, const std::string& payload) {
  std::string b = {'\0', '\0', static_cast<char>(type), static_cast<char>(extents.size())};
  for (std::uint32_t e : extents)
    for (int shift = 24; shift >= 0; shift -= 8) b += static_cast<char>((e >> shift) & 0xff);
  return b + payload;
}

TEST_CASE("IDX files: bytes as rows of flattened images, big-endian integers and floats, gzip") {
  TempDir dir;
  // 2 images of 2 x 3 unsigned bytes.
  write_bytes(dir / "images.idx", idx_bytes(0x08, {2, 2, 3},
                                            std::string("\x00\x01\x02\x03\x04\xff"
                                                        "\x0a\x0b\x0c\x0d\x0e\x0f",
                                                        12)));
  const Matrix images = itercl::load_matrix(dir / "images.idx");
  REQUIRE(images.rows() == 2);
  REQUIRE(images.cols() == 6);
  CHECK(images(0, 5) == 255);
  CHECK(images(1, 0) == 10);
  // Labels: 1-D int32, big-endian; -2 and 70000.
  write_bytes(dir / "labels.idx", idx_bytes(0x0C, {2}, std::string("\xff\xff\xff\xfe\x00\x01\x11\x70", 8)));
  const Matrix labels = itercl::load_matrix(dir / "labels.idx", {.format = "idx", .header = {}});
  CHECK(labels.cols() == 1);
  CHECK(labels(0, 0) == -2);
  CHECK(labels(1, 0) == 70000);
  // float32 1.5 is 0x3fc00000.
  write_bytes(dir / "f.idx", idx_bytes(0x0D, {1, 1}, std::string("\x3f\xc0\x00\x00", 4)));
  CHECK(itercl::load_matrix(dir / "f.idx")(0, 0) == 1.5);

  CHECK_THROWS_WITH_AS(itercl::load_matrix(dir / "images.idx", {.format = "csv", .header = {}}),
                       doctest::Contains("is an IDX file, but format 'csv'"), itercl::InputError);
  write_bytes(dir / "short.idx", idx_bytes(0x08, {2, 2, 3}, std::string(11, '\x01')));
  CHECK_THROWS_WITH_AS(itercl::load_matrix(dir / "short.idx"),
                       doctest::Contains("IDX header promises 28 bytes, the file holds 27"), itercl::InputError);

  // MNIST's test images, where the shared datasets are beside the checkout (as in CI).
  if (const auto mnist = test::shared_dataset("vectors/t10k-images-idx3-ubyte.gz")) {
    const Matrix m = itercl::load_matrix(*mnist);
    CHECK(m.rows() == 10000);
    CHECK(m.cols() == 784);
    CHECK(m.minCoeff() == 0);
    CHECK(m.maxCoeff() == 255);
  }
}

// Issue 14: .npy headers parsed by a bounded parser (no regular expressions), shapes read strictly.
TEST_CASE(".npy headers: bad shapes, shapes beyond 2^64 and oversized headers are errors; padding is fine") {
  TempDir dir;
  const std::string data = raw<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  write_bytes(dir / "negative.npy", npy("<f8", false, "(-6, 2)", data));
  check_contains(error_message([&] { itercl::load_matrix(dir / "negative.npy"); }),
                 {"negative.npy: .npy header: shape: expected a non-negative integer"});
  write_bytes(dir / "letters.npy", npy("<f8", false, "(6abc, 2xyz)", data));
  check_contains(error_message([&] { itercl::load_matrix(dir / "letters.npy"); }),
                 {"letters.npy: .npy header: shape: expected ',' or ')'"});
  write_bytes(dir / "huge.npy", npy("<f8", false, "(99999999999999999999, 2)", data));
  check_contains(error_message([&] { itercl::load_matrix(dir / "huge.npy"); }),
                 {"huge.npy: .npy header: shape: the dimension starting '99999999999999999999' is beyond 2^64"});
  // About 26,000 characters (std::regex overflowed the stack on it): refused by numpy's header limit.
  std::string shape = "(";
  for (int k = 0; k < 8000; ++k) shape += "1, ";
  write_bytes(dir / "long.npy", npy("<f8", false, shape + ")", data));
  check_contains(error_message([&] { itercl::load_matrix(dir / "long.npy"); }),
                 {"long.npy: .npy header of ", "characters; numpy's limit, kept here, is 10000"});
  // A header padded to 9,000 characters is still read.
  write_bytes(dir / "padded.npy", npy("<f8", false, "(6, 2)" + std::string(9000, ' '), data));
  CHECK(itercl::load_matrix(dir / "padded.npy").rows() == 6);
  write_bytes(dir / "extra.npy", npy("<f8", false, "(6, 2), 'other': 1", data));
  check_contains(error_message([&] { itercl::load_matrix(dir / "extra.npy"); }),
                 {"unexpected or repeated key 'other'"});
}

TEST_CASE("text first lines: a header only when none of its fields is a number") {
  TempDir dir;
  write_bytes(dir / "bad_first.csv", "1,x\n3,4\n");
  check_contains(error_message([&] { itercl::load_matrix(dir / "bad_first.csv"); }),
                 {"bad_first.csv:1, column 2: 'x' is not a number"});
  write_bytes(dir / "words.csv", "a,b\n1,2\n");
  CHECK(itercl::load_matrix(dir / "words.csv") == matrix(1, 2, {1, 2}));
}

// Issue 14: a FIFO blocked the reader forever, /dev/zero and /dev/urandom were read until memory ran out.
TEST_CASE("data paths that are no regular file are refused before opening") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "fifo.csv").c_str(), 0600) == 0);
  check_contains(error_message([&] { itercl::load_matrix(dir / "fifo.csv"); }),
                 {"fifo.csv: is a FIFO (named pipe); expected a regular file"});
  for (const char* device : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    CAPTURE(device);
    check_contains(error_message([&] { itercl::load_matrix(device); }),
                   {std::string(device) + ": is a character device; expected a regular file"});
  }
  check_contains(error_message([&] { itercl::read_file(dir.path); }), {": is a directory; expected a regular file"});
  // A link to a device is the device.
  fs::create_symlink("/dev/zero", dir / "zero.csv");
  check_contains(error_message([&] { itercl::load_matrix(dir / "zero.csv"); }), {"is a character device"});
}

// Issue 14: sizes declared inside files are checked before anything is allocated, without wrapping.
TEST_CASE("IDX dimensions whose byte count passes 2^64 are refused, not wrapped") {
  TempDir dir;
  // 2^32 - 1 cubed times 8 bytes: beyond 2^64; the product wrapped before.
  write_bytes(dir / "wrap.idx", idx_bytes(0x0E, {0xffffffffu, 0xffffffffu, 0xffffffffu}, std::string(64, '\0')));
  check_contains(
      error_message([&] { itercl::load_matrix(dir / "wrap.idx"); }),
      {"wrap.idx: IDX header promises ", "(4294967295 x 18446744065119617025 items of 8 bytes)", "the file holds 80"});
  write_bytes(dir / "big.idx", idx_bytes(0x08, {100000, 100000}, std::string(100, '\0')));
  check_contains(error_message([&] { itercl::load_matrix(dir / "big.idx"); }),
                 {"big.idx: IDX header promises 10000000012 bytes"});
}

// Issue 34: an IDX file whose magic is broken was parsed as text, and failed on its binary "line 1".
TEST_CASE("IDX files with a broken magic are errors about the magic, not text") {
  TempDir dir;
  write_bytes(dir / "type.idx", idx_bytes(0x0F, {2, 2}, std::string(4, '\1')));
  check_contains(error_message([&] { itercl::load_matrix(dir / "type.idx"); }),
                 {"type.idx: IDX magic 00 00 0F 02: type code 0F is not one of 08 (unsigned byte)"});
  write_bytes(dir / "rank0.idx", idx_bytes(0x08, {}, std::string(4, '\1')));
  check_contains(error_message([&] { itercl::load_matrix(dir / "rank0.idx"); }),
                 {"rank0.idx: IDX magic 00 00 08 00: 0 dimensions; expected 1 to 4"});
  write_bytes(dir / "rank9.idx", idx_bytes(0x08, {1, 1, 1, 1, 1, 1, 1, 1, 1}, "x"));
  check_contains(error_message([&] { itercl::load_matrix(dir / "rank9.idx"); }), {"09: 9 dimensions; expected 1 to 4"});
  write_bytes(dir / "cut.idx", std::string("\0\0\x08", 3));
  check_contains(error_message([&] { itercl::load_matrix(dir / "cut.idx"); }), {"cut.idx: IDX magic cut short: 3 of"});
  write_bytes(dir / "header.idx", std::string("\0\0\x08\x02\0\0\0\x01", 8));
  check_contains(error_message([&] { itercl::load_matrix(dir / "header.idx"); }),
                 {"header.idx: IDX header cut short: 8 bytes of the 12 that its 2 dimensions take"});
  check_contains(error_message([&] { itercl::load_matrix(dir / "type.idx", {.format = "csv", .header = {}}); }),
                 {"is an IDX file, but format 'csv'"});
}

// Issue 34: a loop of symbolic links was reported as a file that does not exist.
TEST_CASE("a loop of symbolic links and a dangling link say so") {
  TempDir dir;
  fs::create_symlink(dir / "b.csv", dir / "a.csv");
  fs::create_symlink(dir / "a.csv", dir / "b.csv");
  check_contains(error_message([&] { itercl::load_matrix(dir / "a.csv"); }),
                 {"a.csv: is a loop of symbolic links; expected a regular file"});
  fs::create_symlink(dir / "gone.csv", dir / "dangling.csv");
  check_contains(error_message([&] { itercl::load_matrix(dir / "dangling.csv"); }),
                 {"dangling.csv: is a symbolic link to " + (dir / "gone.csv").string() + ", which does not exist"});
  check_contains(error_message([&] { itercl::load_matrix(dir / "absent.csv"); }),
                 {"absent.csv: cannot open (does the file exist?)"});
}

// Issue 34: a file that shrank between its size being read and its bytes was "cannot read: Success".
TEST_CASE("a file that shrinks while it is read says so") {
  TempDir dir;
  write_bytes(dir / "shrinks.bin", std::string(100, 'x'));
  const int fd = ::open((dir / "shrinks.bin").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::string buffer(100, '\0');
  itercl::io::read_at(fd, buffer.data(), 100, 0, "shrinks.bin");  // whole: no error
  REQUIRE(::truncate((dir / "shrinks.bin").c_str(), 60) == 0);    // as another program would, mid-read
  check_contains(error_message([&] { itercl::io::read_at(fd, buffer.data(), 50, 40, "shrinks.bin"); }),
                 {"shrinks.bin: the file ends at byte 60, before byte 90 that was there when it was opened; it "
                  "shrank while being read"});
  ::close(fd);
}

// Issue 14: a 1 MB gzip of zeros expanded to 1 GiB and ended in a misleading "no data".
TEST_CASE("decompression stops at its bound with a message saying so") {
  TempDir dir;
  write_bytes(dir / "zeros.csv.gz", gzip(dir / "scratch.gz", std::string(std::size_t{8} << 20, '0')));
  ::setenv("ITERCL_DECOMPRESS_LIMIT", "1048576", 1);
  const std::string message = error_message([&] { itercl::load_matrix(dir / "zeros.csv.gz"); });
  ::unsetenv("ITERCL_DECOMPRESS_LIMIT");
  check_contains(message, {"zeros.csv.gz: the gzip data expands beyond 1.05 MB, the memory available", "stopped"});
  // Without the bound (the memory available here), the same file reads: one 8 MiB number.
  CHECK(itercl::load_matrix(dir / "zeros.csv.gz").size() == 1);
}

}  // namespace io_tests
