// Shared by the graph loaders (internal): a line reader and token parsers for edge lists and
// Matrix Market files.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "itercl/graph.hpp"

namespace itercl::io {

// Lines of a text, '\r' and surrounding blanks trimmed, numbered from 1.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const auto end = text_.find('\n', pos_);
    line = text_.substr(pos_, end == std::string_view::npos ? std::string_view::npos : end - pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++number_;
    while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
    while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
    return true;
  }
  std::size_t number() const { return number_; }

  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0, number_ = 0;
};

// The next field of `line` (separated by blanks, commas or semicolons), removed from it; false at the end.
inline bool next_field(std::string_view& line, std::string_view& field) {
  auto separator = [](char c) { return LineReader::is_blank(c) || c == ',' || c == ';'; };
  std::size_t i = 0;
  while (i < line.size() && separator(line[i])) ++i;
  std::size_t j = i;
  while (j < line.size() && !separator(line[j])) ++j;
  field = line.substr(i, j - i);
  line.remove_prefix(j);
  return !field.empty();
}

inline bool parse_int(std::string_view field, std::int64_t& value) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return !field.empty() && ec == std::errc() && end == field.data() + field.size();
}

// A finite number (an integer or a float, '+' allowed), as a weight or a value is read.
inline bool parse_real(std::string_view field, double& value) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return !field.empty() && ec == std::errc() && end == field.data() + field.size() && std::isfinite(value);
}

// Whether any field of `line` reads as a number (an integer or a float).
inline bool any_number(std::string_view line) {
  std::string_view field;
  while (next_field(line, field)) {
    if (!field.empty() && (field.front() == '+' || field.front() == '-') && field.size() > 1) field.remove_prefix(1);
    double v;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
    if (ec == std::errc() && end == field.data() + field.size()) return true;
  }
  return false;
}

// "file:line: " for messages.
inline std::string where(const std::filesystem::path& path, std::size_t line) {
  return path.string() + ":" + std::to_string(line) + ": ";
}

// A weight field of an edge list or a .mtx: a finite number >= 0, else InputError at `at` ("file:line: ").
double edge_weight(std::string_view field, const std::string& at);

Graph parse_matrix_market(const std::string& text, const std::filesystem::path& path, const GraphLoadOptions& options,
                          GraphLoadReport& report);
Graph parse_edge_list(const std::string& text, const std::filesystem::path& path, const GraphLoadOptions& options,
                      GraphLoadReport& report);

}  // namespace itercl::io
