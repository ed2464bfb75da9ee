// The origin rows are centred on before the device's precision rounds them, and the smallest spread
// about it that the device's squared distances resolve (internal). Every family (pairwise, histograms,
// K-Means, SMACOF) centres and checks through these two, so that they agree on what is exact and what is
// refused.
#pragma once

#include <cmath>
#include <limits>
#include <string>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/matrix.hpp"

namespace itercl::core {

// Bits below a column's spread that its origin keeps: the origin is `mean` moved to the nearest multiple
// of step = 2^(e - kOriginBits), 2^e the power of two just above the spread (the largest |value - mean|).
// Centred values then grow by at most step / 2, 1/2048 of the spread, and values on a grid of spacing 2^q
// (integers: q = 0) are centred exactly while the spread over 2^q fits the precision (2^24 in float, 2^53
// in double): either step >= 2^q and the origin is on their grid, or the centred values are multiples of
// step of at most 11 bits. The mean itself, rarely on the data's grid, turned integers 1 apart into
// 0.9999999999999998 apart in double, and a pair at distance 5 into the bin below in float.
inline constexpr int kOriginBits = 10;

inline Eigen::RowVectorXd centring_origin(const Eigen::RowVectorXd& mean, const Eigen::RowVectorXd& spread) {
  Eigen::RowVectorXd origin = mean;
  for (Eigen::Index j = 0; j < mean.size(); ++j) {
    if (!(spread[j] > 0) || !std::isfinite(spread[j]) || !std::isfinite(mean[j])) continue;
    int e = 0;
    std::frexp(spread[j], &e);  // spread in [2^(e-1), 2^e)
    const double step = std::ldexp(1.0, e - kOriginBits);
    // A mean 2^53 steps from 0 is already a multiple of the step (its own ulp is larger).
    if (std::abs(mean[j]) < std::ldexp(step, std::numeric_limits<double>::digits))
      origin[j] = std::nearbyint(mean[j] / step) * step;
  }
  return origin;
}

// The smallest largest |centred value| (or, uncentred, |value|; or largest dissimilarity) a run in `p`
// accepts: sqrt(least normal / eps), 3.1e-16 in float and 1.0e-146 in double. Below it squared
// differences reach the subnormals (which devices may flush to 0) by more than eps of the largest
// squared distance, so points 1e-30 apart were all at distance 0 in float, parallel rows at cosine
// distance 1, every pair in the first bin and every point in one cluster. The statistics are
// scale-equivariant, so the caller scaling by a power of two loses nothing: the error says so.
inline double smallest_resolved(Precision p) {
  return p == Precision::f32
             ? std::sqrt(static_cast<double>(std::numeric_limits<float>::min() / std::numeric_limits<float>::epsilon()))
             : std::sqrt(std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon());
}

// Throws InputError naming `field` when 0 < largest < smallest_resolved(p); `what` names `largest`.
inline void check_resolved(double largest, Precision p, const std::string& field, const char* what) {
  const double least = smallest_resolved(p);
  if (largest > 0 && largest < least)
    throw InputError(field + ": " + what + " is " + number_text(largest) + ", under " + number_text(least) +
                     ", the least whose squares " + std::string(precision_name(p)) +
                     " resolves; multiply the data by a power of two (distances scale by it exactly)" +
                     (p == Precision::f32 ? " or use precision double" : ""));
}

}  // namespace itercl::core
