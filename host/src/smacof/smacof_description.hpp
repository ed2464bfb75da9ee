// What the tests, the tuner (tune/tune_smacof.cpp) and the runner (experiment/run_smacof.cpp) share about
// SMACOF (internal): the work of an iteration, the reference a candidate kernel must agree with, and the
// problem the tuner measures on.
#pragma once

#include <cstdint>

#include "itercl/matrix.hpp"
#include "tuning/tolerances.hpp"

namespace itercl::smacof {

// The seed's count (section 4): F = 8DN + 7N + 3D + 1 flops per point and iteration, N points.
inline double iteration_flops(Eigen::Index n, int dim) {
  const double d = dim, points = static_cast<double>(n);
  return (8 * d * points + 7 * points + 3 * d + 1) * points;
}

// The variant every candidate is checked against: the seed's first step, one row per work-item.
inline constexpr const char* kReferenceVariant = "naive";

// Iterations a candidate and the reference run from the same start before their embeddings are compared.
inline constexpr int kCheckedIterations = 3;

// Relative Frobenius distance between two matrices (embeddings, dissimilarities).
inline double relative_error(const Matrix& got, const Matrix& expected) {
  return (got - expected).norm() / expected.norm();
}

// How far a candidate's embedding may be from the reference variant's (relative_error): each is within
// tolerance::smacof of the exact iterate, so the two within twice that of each other.
inline double reference_tolerance(Precision p) { return 2 * tolerance::smacof(p); }

// The tuner's problem: euclidean distances of n uniform points in `features` dimensions (the
// dissimilarities of a typical embedding problem), and a uniform start in `dim` dimensions.
struct TuneProblem {
  Matrix delta;  // n x n
  Matrix x0;     // n x dim
};
TuneProblem tune_problem(Eigen::Index n, int dim, Eigen::Index features, std::uint64_t seed);

}  // namespace itercl::smacof
