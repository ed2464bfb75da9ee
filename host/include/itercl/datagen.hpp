// Synthetic data with a seed, for benchmarks and tests. The same seed gives the same data on every
// platform (the generators use their own transforms of std::mt19937_64, not std:: distributions).
#pragma once

#include <cstdint>

#include "itercl/matrix.hpp"

namespace itercl {

struct BlobsParams {
  Eigen::Index n_samples = 100, n_features = 2;
  int centers = 3;  // Gaussian clusters, centres uniform in [center_low, center_high)^d
  double cluster_std = 1.0;
  double center_low = -10, center_high = 10;
  std::uint64_t random_state = 0;
};
// Isotropic Gaussian blobs (scikit-learn's make_blobs): sample i belongs to cluster i % centers.
Matrix make_blobs(const BlobsParams& p);
// Rows [first, first + rows) of make_blobs(p), the same values, without the others (an MPI rank's part).
// The rows come from streams of 65,536 rows, each with a generator of its own (the first seeded with
// random_state, stream s with the seed sequence (random_state, s)), drawn on all cores: a part starts at
// its first row's stream and skips only the draws before it there.
Matrix make_blobs(const BlobsParams& p, Eigen::Index first, Eigen::Index rows);

struct UniformParams {
  Eigen::Index n_samples = 100, n_features = 2;
  double low = 0, high = 1;
  std::uint64_t random_state = 0;
};
// Points uniform in [low, high)^d.
Matrix make_uniform(const UniformParams& p);
// Rows [first, first + rows) of make_uniform(p), the same values (as make_blobs' rows).
Matrix make_uniform(const UniformParams& p, Eigen::Index first, Eigen::Index rows);

}  // namespace itercl
