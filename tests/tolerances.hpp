// Every tolerance the tests use, in one place, each with where it comes from.
#pragma once

#include <cmath>
#include <limits>

#include "itercl/matrix.hpp"

namespace tolerance {

// Relative agreement of objectives (inertia, stress) with the double-precision reference. Double: the
// host accumulates in double either way, so only summation order differs (measured < 1e-13).
// Float: the kernels round inputs and distances to float, which moves labels only at near-ties and
// objectives by a few float ulps (measured < 1e-6 on the tests' data).
inline double objective(itercl::Precision p) { return p == itercl::Precision::f32 ? 1e-4 : 1e-9; }

// Two squared distances the device may rank either way: they differ by no more than the rounding
// of computing them in precision p, bounded by 4 D ulps of sum_d (|x_d| + |c_d|)^2.
inline double tie(itercl::Precision p, Eigen::Index dim, double magnitude_sq) {
  const double eps =
      p == itercl::Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  return 4.0 * static_cast<double>(dim) * eps * magnitude_sq;
}

}  // namespace tolerance

namespace tolerance {

// L1 distance between two PageRank vectors (each sums to 1) after the same iterations, device
// against the double-precision reference. Double: only summation order differs, the dangling mass's
// most (a tree on the device, a loop in the reference), and its rounding reaches every node (measured
// 4e-14 on the tests' 3,000 nodes, 3.8e-12 on web-NotreDame's 325,729). Float: every iteration rounds
// x / outdeg and the sums to float; the damping keeps the error from growing (measured up to 1.5e-6,
// csr_scalar adding a 2,000-link row in sequence).
inline double ranks_l1(itercl::Precision p) { return p == itercl::Precision::f32 ? 5e-6 : 1e-10; }

}  // namespace tolerance
