// The -D options of a kernel build (internal): every family's kernel struct renders its fields with this
// (tuning/kernel_checks.hpp), and core's own kernels (device_rows.cl) too.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "itercl/matrix.hpp"

namespace itercl {

// The -D options of a kernel build: REAL first (every kernel file needs it: cl/common.clh), then the
// family's own, in the order added.
class Defines {
 public:
  explicit Defines(Precision p) { out_ << "-D REAL=" << precision_name(p); }
  template <class T>
  Defines& add(std::string_view name, const T& value) {
    out_ << " -D " << name << '=' << value;
    return *this;
  }
  std::string str() const { return out_.str(); }

 private:
  std::ostringstream out_;
};

}  // namespace itercl
