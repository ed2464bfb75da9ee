// Dissimilarity matrices with point names: CSV or whitespace text as R's write.csv writes a distance
// matrix (a header row of names, a name column, quoted names), or plain numbers; or .npy.
#include <charconv>
#include <cmath>
#include <vector>

#include "io/io_idx.hpp"
#include "io/io_npy.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

// Fields of one line split at `delimiter` (' ': runs of blanks), with double-quoted fields that may hold
// the delimiter and "" for a quote. Fields are trimmed of blanks; `quoted` tells which were quoted.
struct Fields {
  std::vector<std::string> text;
  std::vector<bool> quoted;
};

Fields split_quoted(std::string_view line, char delimiter, const std::string& where) {
  Fields f;
  std::size_t i = 0;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (true) {
    while (i < line.size() && blank(line[i])) ++i;
    if (delimiter == ' ' && i == line.size()) break;
    std::string field;
    bool quoted = false;
    if (i < line.size() && line[i] == '"') {
      quoted = true;
      for (++i;; ++i) {
        if (i == line.size()) throw InputError(where + ": a quoted field is not closed");
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          field += line[i];
        }
      }
      while (i < line.size() && blank(line[i]) && delimiter != ' ') ++i;
    } else {
      while (i < line.size() && line[i] != delimiter && !(delimiter == ' ' && blank(line[i]))) field += line[i++];
      while (!field.empty() && blank(field.back())) field.pop_back();
    }
    f.text.push_back(std::move(field));
    f.quoted.push_back(quoted);
    if (i >= line.size()) break;
    if (line[i] == delimiter) {
      ++i;
      if (delimiter != ' ' && i == line.size()) f.text.emplace_back(), f.quoted.push_back(false);
    } else if (delimiter != ' ') {
      throw InputError(where + ": unexpected text after a quoted field");
    }
  }
  return f;
}

bool number(const std::string& field, bool quoted, double& value) {
  if (quoted || field.empty()) return false;
  const char* first = field.data() + (field.front() == '+');
  const auto [end, ec] = std::from_chars(first, field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size();
}

LabelledMatrix parse_labelled_text(const std::string& text, const std::filesystem::path& path,
                                   const LoadOptions& options) {
  const std::string name = path.string();
  LabelledMatrix out;
  std::vector<double> values;
  std::vector<std::string> header;
  char delimiter = 0;
  bool first_line = true, name_column = false;
  std::size_t columns = 0, rows = 0, line_number = 0, pos = 0, columns_line = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    const std::string_view line = std::string_view(text).substr(pos, end == std::string::npos ? end : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    ++line_number;
    const auto content = line.find_first_not_of(" \t\r");
    if (content == std::string_view::npos || line[content] == '#') continue;
    const std::string where = name + ":" + std::to_string(line_number);
    if (delimiter == 0)
      delimiter = line.find(',') != std::string_view::npos ? ',' : line.find(';') != std::string_view::npos ? ';' : ' ';
    Fields f = split_quoted(line, delimiter, where);
    double v;
    if (first_line) {
      first_line = false;
      // A header only when none of its fields past the first (which may be a name, or the name column's
      // header) is a number: a data row with one bad field is an error, not a header.
      bool any_number = false;
      for (std::size_t c = 1; c < f.text.size(); ++c) any_number |= number(f.text[c], f.quoted[c], v);
      if (options.header.value_or(!any_number)) {
        header = f.text;
        continue;
      }
    }
    if (columns == 0) {
      name_column = !number(f.text[0], f.quoted[0], v);
      columns = f.text.size();
      columns_line = line_number;
    } else if (f.text.size() != columns) {
      throw InputError(where + ": expected " + std::to_string(columns) + " fields (as on line " +
                       std::to_string(columns_line) + "), found " + std::to_string(f.text.size()));
    }
    if (name_column) out.names.push_back(f.text[0]);
    for (std::size_t c = name_column; c < f.text.size(); ++c) {
      const std::string at = where + ", column " + std::to_string(c + 1);
      if (!number(f.text[c], f.quoted[c], v)) throw InputError(at + ": '" + f.text[c] + "' is not a number");
      if (!std::isfinite(v)) throw InputError(at + ": " + f.text[c] + " is not allowed (values must be finite)");
      values.push_back(v);
    }
    ++rows;
  }
  if (rows == 0) throw InputError(name + ": no data (the file is empty or holds only a header or comments)");
  const std::size_t cols = columns - name_column;
  // Without a name column, a header holding one name per column names the points.
  if (!name_column && header.size() == cols) out.names = header;
  out.values = Matrix(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  std::copy(values.begin(), values.end(), out.values.data());
  return out;
}

}  // namespace io

LabelledMatrix load_labelled_matrix(const std::filesystem::path& path, const LoadOptions& options) {
  const std::string& f = options.format;
  if (f != "auto" && f != "npy" && f != "csv" && f != "text")
    throw ParamError("format", "expected one of auto, npy, csv, text; got '" + f + "'");
  const std::string bytes = read_file(path);
  if (io::is_npy(bytes)) {
    if (f == "csv" || f == "text")
      throw InputError(path.string() + ": is a NumPy .npy file, but format '" + f + "' was asked for");
    return {io::parse_npy(bytes, path), {}};
  }
  if (f == "npy") throw InputError(path.string() + ": not a NumPy .npy file");
  if (io::is_idx(bytes)) throw InputError(path.string() + ": is an IDX file; expected a matrix as text or .npy");
  return io::parse_labelled_text(bytes, path, options);
}

}  // namespace itercl
