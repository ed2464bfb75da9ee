// CSV and whitespace-separated text matrices, and the format dispatch of load_matrix.
#include "io/io_text.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "io/io_idx.hpp"
#include "io/io_npy.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Fields of one line: split at `delimiter`, or at runs of blanks when it is ' '.
std::vector<std::string_view> split(std::string_view line, char delimiter) {
  std::vector<std::string_view> fields;
  if (delimiter == ' ') {
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      if (j > i) fields.push_back(line.substr(i, j - i));
      i = j;
    }
    return fields;
  }
  std::size_t start = 0;
  while (true) {
    const auto end = line.find(delimiter, start);
    fields.push_back(trim(line.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

// A number as from_chars reads it (also "nan"/"inf", which the caller rejects), with an optional '+'.
bool parse_number(std::string_view field, double& value) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size();
}

// A first line is a header only when none of its fields is a number: a data row with one bad field is
// an error, not a header that silently drops the row.
bool no_numbers(const std::vector<std::string_view>& fields) {
  double ignored;
  for (auto f : fields)
    if (parse_number(f, ignored)) return false;
  return true;
}

Matrix parse_text(const std::string& text, const std::filesystem::path& path, const LoadOptions& options) {
  const std::string name = path.string();
  std::vector<double> values;
  std::size_t columns = 0, rows = 0, first_line = 0;
  char delimiter = 0;
  bool header_pending = true;  // the first content line may be a header

  std::size_t line_number = 0, pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    std::string_view line = trim(std::string_view(text).substr(pos, end == std::string::npos ? end : end - pos));
    pos = end == std::string::npos ? text.size() : end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;

    if (delimiter == 0) {
      if (options.format == "csv")
        delimiter = line.find(';') != std::string_view::npos && line.find(',') == std::string_view::npos ? ';' : ',';
      else if (options.format == "text")
        delimiter = ' ';
      else
        delimiter = line.find(',') != std::string_view::npos   ? ','
                    : line.find(';') != std::string_view::npos ? ';'
                                                               : ' ';
    }
    const auto fields = split(line, delimiter);
    if (header_pending) {
      header_pending = false;
      const bool header = options.header.value_or(no_numbers(fields));
      if (header) continue;
    }
    if (columns == 0) {
      columns = fields.size();
      first_line = line_number;
    } else if (fields.size() != columns) {
      throw InputError(name + ":" + std::to_string(line_number) + ": expected " + std::to_string(columns) +
                       " values (as on line " + std::to_string(first_line) + "), found " +
                       std::to_string(fields.size()));
    }
    for (std::size_t c = 0; c < fields.size(); ++c) {
      double v;
      const std::string where = name + ":" + std::to_string(line_number) + ", column " + std::to_string(c + 1);
      if (!parse_number(fields[c], v)) throw InputError(where + ": '" + std::string(fields[c]) + "' is not a number");
      if (!std::isfinite(v))
        throw InputError(where + ": " + std::string(fields[c]) + " is not allowed (values must be finite)");
      values.push_back(v);
    }
    ++rows;
  }
  if (rows == 0) throw InputError(name + ": no data (the file is empty or holds only a header or comments)");
  Matrix m(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(columns));
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

}  // namespace io

Matrix load_matrix(const std::filesystem::path& path, const LoadOptions& options) {
  const std::string& f = options.format;
  if (f != "auto" && f != "npy" && f != "idx" && f != "csv" && f != "text")
    throw ParamError("format", "expected one of auto, npy, idx, csv, text; got '" + f + "'");
  const std::string bytes = read_file(path);
  const std::string found = io::is_npy(bytes) ? "npy" : io::is_idx(bytes) ? "idx" : "text";
  auto named = [](const std::string& kind) { return kind == "npy" ? "a NumPy .npy file" : "an IDX file"; };
  if ((f == "npy" || f == "idx") && found != f) throw InputError(path.string() + ": not " + named(f));
  if ((f == "csv" || f == "text") && found != "text")
    throw InputError(path.string() + ": is " + named(found) + ", but format '" + f + "' was asked for");
  if (found == "npy") return io::parse_npy(bytes, path);
  if (found == "idx") return io::parse_idx(bytes, path);
  return io::parse_text(bytes, path, options);
}

std::string to_csv(const Matrix& m) {
  std::ostringstream out;
  out.precision(std::numeric_limits<double>::max_digits10);  // every double reads back exactly
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) out << (j ? "," : "") << m(i, j);
    out << '\n';
  }
  return out.str();
}

}  // namespace itercl
