// What the all-pairs distances' tests, tuner (tune/tune_pairwise.cpp) and runner
// (experiment/run_pairwise.cpp) share, from one place: the work a matrix is, the problem the tuner times,
// and the reference a candidate kernel must agree with.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "itercl/datagen.hpp"
#include "itercl/pairwise.hpp"
#include "tuning/tolerances.hpp"

namespace itercl::pairwise {

// Floating-point operations for `pairs` entries of D over `dim` dimensions, for GFLOPS: seed 001 counts 3
// per dimension for the L_p norms (a difference, its magnitude or square, the sum); the inner-product forms
// (cosine, dot, and euclidean expanded: `inner_products`, pairwise_kernel.hpp) do 2 (a multiply, an add).
inline double flops(bool inner_products, Eigen::Index dim, double pairs) {
  const double per_dimension = inner_products ? 2 : 3;
  return per_dimension * static_cast<double>(dim) * pairs;
}

// The tuner's problem: n vectors of d dimensions, uniform in [0, 1).
inline Matrix tuning_problem(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  return make_uniform({.n_samples = n, .n_features = d, .random_state = seed});
}

// The kernel every candidate is held to: one entry per work-item, nothing staged.
inline constexpr const char* kDistanceReference = "naive";

// Where a candidate's D (one input X, metric euclidean, sqeuclidean or cityblock) leaves the reference's
// D computed on the same device: tolerance::pair_sum for each of the two, compared before the root, over
// the centred vectors' (|x_k| + |y_k|)^power summed, bounded by 2 (|x|^2 + |y|^2) for power 2. Empty
// where they agree.
inline std::string mismatch(const Matrix& D, const Matrix& reference, const Matrix& X, Metric metric,
                            Precision precision) {
  const bool squares = metric != Metric::cityblock;
  const Matrix centred = X.rowwise() - X.colwise().mean();
  const Eigen::VectorXd size = squares ? Eigen::VectorXd(2 * centred.rowwise().squaredNorm())
                                       : Eigen::VectorXd(centred.cwiseAbs().rowwise().sum());
  for (Eigen::Index j = 0; j < D.cols(); ++j)
    for (Eigen::Index i = 0; i < D.rows(); ++i) {
      double got = D(i, j), ref = reference(i, j);
      if (metric == Metric::euclidean) got *= got, ref *= ref;
      if (!(std::abs(got - ref) <= 2 * tolerance::pair_sum(precision, X.cols(), squares ? 2 : 1, size(i) + size(j))))
        return "D(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(D(i, j)) + ", " +
               kDistanceReference + "'s " + std::to_string(reference(i, j));
    }
  return {};
}

}  // namespace itercl::pairwise
