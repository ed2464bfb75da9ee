// Converting host matrices (double, row-major) to the device's precision and layout (internal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "itercl/matrix.hpp"
#include "itercl/rows.hpp"

namespace itercl {

// Calls f with a value of the C++ type matching p (float or double): the one place a precision is
// turned into a type, so drivers are written once as templates.
template <class F>
decltype(auto) with_real(Precision p, F&& f) {
  return p == Precision::f32 ? f(float{}) : f(double{});
}

// m's elements less `shift[j]` in column j (no shift if empty), in `p`, column-major (element (i, j) at
// j * ld + i, ld = m.rows() unless given), into `out`, which holds at least (m.cols() - 1) * ld + m.rows()
// values of real_size(p) bytes. Shifting before the rounding to float keeps the precision that an offset
// far from the origin would cost. The rows are read as stored (float or double, itercl/rows.hpp), each
// value widened to double on the way. A larger ld packs a block of rows into its place among more.
inline void pack_column_major(const RowsView& m, Precision p, void* out, const Eigen::RowVectorXd& shift = {},
                              Eigen::Index ld = 0) {
  if (!ld) ld = m.rows();
  m.visit([&](const auto& rows) {
    with_real(p, [&](auto zero) {
      using T = decltype(zero);
      auto* o = static_cast<T*>(out);
      // A block of rows at a time, so that every column's pass over them reads the cache, not memory.
      constexpr Eigen::Index kBlock = 64;
      for (Eigen::Index first = 0; first < rows.rows(); first += kBlock) {
        const Eigen::Index last = std::min(first + kBlock, rows.rows());
        for (Eigen::Index j = 0; j < rows.cols(); ++j) {
          const double s = shift.size() ? shift[j] : 0.0;
          for (Eigen::Index i = first; i < last; ++i)
            o[j * ld + i] = static_cast<T>(static_cast<double>(rows(i, j)) - s);
        }
      }
    });
  });
}

// The same, row-major.
inline void pack_row_major(const Matrix& m, Precision p, void* out, const Eigen::RowVectorXd& shift = {}) {
  with_real(p, [&](auto zero) {
    using T = decltype(zero);
    auto* o = static_cast<T*>(out);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j)
        o[i * m.cols() + j] = static_cast<T>(m(i, j) - (shift.size() ? shift[j] : 0.0));
  });
}

}  // namespace itercl
