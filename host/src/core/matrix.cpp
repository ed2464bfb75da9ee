#include "itercl/matrix.hpp"

#include "itercl/error.hpp"

namespace itercl {

std::string_view precision_name(Precision p) { return p == Precision::f32 ? "float" : "double"; }

Precision parse_precision(std::string_view name) {
  if (name == "float") return Precision::f32;
  if (name == "double") return Precision::f64;
  throw ParamError("precision", "expected \"float\" or \"double\", got \"" + std::string(name) + "\"");
}

}  // namespace itercl
