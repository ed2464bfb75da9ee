// Numbers in messages (internal): as a person writes them ("1.5", "1e-06", "nan"), not as
// std::to_string does ("1.500000", "0.000001").
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
