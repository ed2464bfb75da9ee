// What the runner (experiment/run_kmeans.cpp), the tuner (tune/tune_kmeans.cpp) and the tests share
// about K-Means's assignment (internal): its work, the comparison with the reference, the tuner's problem.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "itercl/datagen.hpp"
#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "tuning/tolerances.hpp"

namespace itercl::kmeans {

// One assignment of n points of dim features to k centroids. A Lloyd iteration is counted as its
// assignment: the update on the host is the seed's CPU half and not counted.
struct Work {
  double flops;  // the seed's count (section 6): F = 3DK + K flops per point
  double bytes;  // the fewest an assignment moves through device memory: the points once, the labels once
};

inline Work assignment_work(Eigen::Index n, Eigen::Index dim, Eigen::Index k, Precision p) {
  const auto points = static_cast<double>(n);
  return {(3.0 * static_cast<double>(dim) * static_cast<double>(k) + static_cast<double>(k)) * points,
          points * (static_cast<double>(dim) * static_cast<double>(real_size(p)) + sizeof(std::int32_t))};
}

// The variant a tuning candidate's labels are compared with: the seed's baseline, one point per
// work-item, every distance computed as written.
inline constexpr std::string_view kReferenceVariant = "naive";

// Empty if `got` equals `reference` wherever the two labels' centroids are not equally near within the
// rounding of `p` (tolerance::tie); else the first offending point. got and reference are equally long.
inline std::string labels_mismatch(const Matrix& X, const Matrix& C, std::span<const std::int32_t> got,
                                   std::span<const std::int32_t> reference, Precision p) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == reference[i]) continue;
    const auto ii = static_cast<Eigen::Index>(i);
    if (got[i] < 0 || got[i] >= C.rows()) return "point " + std::to_string(i) + " labelled " + std::to_string(got[i]);
    const double a = (X.row(ii) - C.row(got[i])).squaredNorm(), b = (X.row(ii) - C.row(reference[i])).squaredNorm();
    const double magnitude = (X.row(ii).cwiseAbs() + C.row(got[i]).cwiseAbs()).squaredNorm() +
                             (X.row(ii).cwiseAbs() + C.row(reference[i]).cwiseAbs()).squaredNorm();
    if (a - b > tolerance::tie(p, X.cols(), magnitude))
      return "point " + std::to_string(i) + ": label " + std::to_string(got[i]) + " where the reference has " +
             std::to_string(reference[i]);
  }
  return {};
}

// The tuner's problem: n points uniform in [0, 1)^d, and their first k rows as the centroids (uniform
// data: its first rows are as random as any).
struct TuneProblem {
  Matrix points, centroids;
};

inline TuneProblem tune_problem(Eigen::Index n, Eigen::Index d, Eigen::Index k, std::uint64_t seed) {
  Matrix X = make_uniform({.n_samples = n, .n_features = d, .random_state = seed});
  Matrix C = X.topRows(k);
  return {std::move(X), std::move(C)};
}

}  // namespace itercl::kmeans
