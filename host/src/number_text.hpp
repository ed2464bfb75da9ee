// A double as it reads best in a message (internal): the shortest of the stream's default format.
#pragma once

#include <sstream>
#include <string>

namespace itercl {

inline std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace itercl
