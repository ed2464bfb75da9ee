// Every tolerance that tests and tuners hold results to, in one place, each with where it comes from:
// a tuner rejects a candidate by the same bound a test would fail it by.
#pragma once

#include <cmath>
#include <limits>

#include "itercl/matrix.hpp"

namespace itercl::tolerance {

// Relative agreement of objectives (inertia, stress) with the double-precision reference. Double: the
// host accumulates in double either way, so only summation order differs (measured < 1e-13).
// Float: the kernels round inputs and distances to float, which moves labels only at near-ties and
// objectives by a few float ulps (measured < 1e-6 on the tests' data).
inline double objective(Precision p) { return p == Precision::f32 ? 1e-4 : 1e-9; }

// Two squared distances the device may rank either way: they differ by no more than the rounding
// of computing them in precision p, bounded by 4 D ulps of sum_d (|x_d| + |c_d|)^2.
inline double tie(Precision p, Eigen::Index dim, double magnitude_sq) {
  const double eps =
      p == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  return 4.0 * static_cast<double>(dim) * eps * magnitude_sq;
}

// SMACOF against the double-precision reference, embeddings (relative Frobenius norm) and stress
// (relative), iteration by iteration: the targets, 1e-9 in double (only summation order
// differs) and 1e-4 in float (delta, X and every distance rounded to float).
inline double smacof(Precision p) { return p == Precision::f32 ? 1e-4 : 1e-9; }

}  // namespace itercl::tolerance

namespace itercl::tolerance {

inline double epsilon(Precision p) {
  return p == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

// All-pairs values compared before their root (Σ terms for euclidean, minkowski; the value itself for
// the others). The inputs are rounded to p (relative eps), each term adds the rounding of the difference
// and of raising it to `power`, OpenCL's pow up to 16 ulps (minkowski), and a sum of dim terms at most
// dim eps of itself: all bounded by (8 + 4 power + pow_ulps) dim eps times `bound`, the same sum over
// |x_k| + |y_k|. Measured errors on the tests' data stay below a tenth of this.
inline double pair_sum(Precision p, Eigen::Index dim, double power, double bound, bool uses_pow = false) {
  return (8 + 4 * power + (uses_pow ? 16 : 0)) * static_cast<double>(dim) * epsilon(p) * bound;
}

// How far from a bucket edge a pair's distance can be computed on the other side of it: the distance's
// rounding in p, (8 + 4 dim) eps of the coordinates' magnitude (the box's length included, for the
// minimum image), and the square root's 3 ulps.
inline double edge_band(Precision p, Eigen::Index dim, double magnitude) {
  return (11 + 4 * static_cast<double>(dim)) * epsilon(p) * magnitude;
}

}  // namespace itercl::tolerance

namespace itercl::tolerance {

// L1 distance between two PageRank vectors (each sums to 1) after the same iterations, device
// against the double-precision reference. Double: only summation order differs, the dangling mass's
// most (a tree on the device, a loop in the reference), and its rounding reaches every node (measured
// 4e-14 on the tests' 3,000 nodes, 3.8e-12 on web-NotreDame's 325,729). Float: every iteration rounds
// x / outdeg and the sums to float; the damping keeps the error from growing (measured up to 1.5e-6,
// csr_scalar adding a 2,000-link row in sequence).
inline double ranks_l1(Precision p) { return p == Precision::f32 ? 5e-6 : 1e-10; }

}  // namespace itercl::tolerance

namespace itercl::tolerance {

// K-Means over P MPI ranks against one process, same labels and iterations: the per-cluster sums and
// the inertia are the same double terms added in another order (each rank's blocks, then the
// allreduce), so they differ by at most about (n + P) double ulps of the sum of the terms' magnitudes
// (non-negative for the inertia and the weights). Bound: 1e-11 relative, above n eps for the tests'
// n <= 10^4 (2e-12); measured at most 4.2e-15 for the inertia and 5.6e-16 for the centroids (relative
// to their largest value) over 2 and 3 ranks (tests/mpi).
inline double ranks_objective() { return 1e-11; }

// SMACOF over P MPI ranks against one process: every rank resolves the kernel for the whole problem, so
// each row of every iterate is computed by the same operations in the same order (the embedding and the
// iterations are identical), and only the stress is summed otherwise. Its non-negative pair terms are
// added in precision p by work-groups of rows (a row's terms in sequence, at most N, then a tree over
// the group), the groups' sums in double; the ranks cut the groups elsewhere, so the two sums differ by
// at most about 2 (N + log2 WG_SIZE) ulps of p, relative. Bound: 2 (N + 16) eps(p); measured 2.3e-8 in
// float (N = 301, bound 7.6e-5) and below 1e-15 in double over 2 and 3 ranks (tests/mpi).
inline double ranks_stress(Precision p, Eigen::Index n) {
  const double eps =
      p == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  return 2.0 * (static_cast<double>(n) + 16.0) * eps;
}

// SMACOF with packed storage over P MPI ranks against one process, the same iterations: a row of B(X) X
// is the sum of its N pair terms, which one process adds in precision p slice by slice and then over the
// slices; over ranks each rank adds its range of the slices in p and the ranks' sums are added in double
// (and the slices may be cut otherwise: the rule gives each rank its own). Two orders of the same N terms
// differ by at most about 2 (N + 16) ulps of p of the terms' magnitudes, and the iterations carry that on,
// slowly (the stress is flat along a rotation of the embedding, so nothing pulls it back either). Bound on
// the embedding, relative in the Frobenius norm: 2 (N + 16) eps(p), as ranks_stress; the stress within
// ranks_stress plus twice that (the distances move with the coordinates). Measured: 1.2e-7 to 5.1e-7 in
// float and at most 2.8e-16 in double, N = 41 to 301, 20 to 40 iterations, over 2 and 3 ranks
// (tests/mpi); at N = 1,500 in float, one slice against two, 5 eps after one iteration, 10 after 10 and 19
// after 40 (bound 3,032 eps).
inline double ranks_packed(Precision p, Eigen::Index n) { return ranks_stress(p, n); }

}  // namespace itercl::tolerance

namespace itercl::tolerance {

// K-Means per-cluster sums reduced on the device (lloyd_expanded) against the double sums of the
// original points under the same labels. Each centred point is rounded to p (eps/2 of |x - mean|) and
// undoing the centring rounds once in double: 2 eps(p) of `magnitude`, sum_i w_i (|x_i - mean| + |mean|),
// bounds both; the reference's own double sum of the cluster's `count` terms rounds by up to count
// double eps of it. The 64-bit fixed point rounds each term by at most 2^-61 of `bound`, the largest sum
// it was scaled for (total weight times the feature's largest |x - mean|).
inline double kmeans_sums(Precision p, double magnitude, double count, double bound) {
  return (2 * epsilon(p) + count * epsilon(Precision::f64)) * magnitude + count * std::ldexp(bound, -61);
}

}  // namespace itercl::tolerance

namespace itercl::tolerance {

// PageRank over P MPI ranks against one process, the same iterations: the same updates with some sums
// taken in another order. The dangling mass and the L1 change are one tree over all nodes on one device,
// per-rank trees added in double over ranks (the mass rounded once to p for the next step), and
// csr_adaptive, bsr and hybrid group a rank's rows' links otherwise than the whole graph's. Each such sum
// moves by a few ulps of p of itself; a node's rank takes it times its (normalised) weight, and the
// damping keeps a step's error from growing (at most 1 / (1 - alpha) of it in all), so the ranks (summing
// to 1) stay within a few dozen ulps in L1. Bound: 32 eps(p), 3.8e-6 in float (below ranks_l1, the
// distance to the reference) and 7.1e-15 in double; measured up to 1.0e-7 (hybrid) and 1.8e-17 over 2 and
// 3 ranks on the tests' graphs (tests/mpi). The halo exchange and the spread of the hubs (issue 33) add
// nothing: the ranks' renumbering keeps every row's links in one process's order and the halo holds the
// owners' bits, so each row's sum is one process's wherever its row lies.
inline double ranks_pagerank(Precision p) { return 32 * epsilon(p); }

}  // namespace itercl::tolerance
