// Numbers in messages (internal): as a person writes them ("1.5", "1e-06", "nan"), not as
// std::to_string does ("1.500000", "0.000001").
#pragma once

#include <charconv>
#include <sstream>
#include <string>

namespace itercl {

inline std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// The shortest text that reads back as exactly `v` ("0.1", "1e-05"), as Python's repr writes floats.
inline std::string shortest_text(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

}  // namespace itercl
