// K-Means over several MPI ranks (internal): each rank holds a block of rows and assigns them on its
// own device; per iteration the ranks sum their per-cluster sums with one allreduce and compute the
// same centroids. The answers equal one process's: the same initial centroids (drawn by rank 0 from all
// the points, with the same random draws), the same empty-cluster relocation (the farthest points over
// all ranks, the same tie-break), hence the same labels and iterations; sums differ only in the order
// of their additions (tolerance::ranks_objective).
#pragma once

#include <span>
#include <vector>

#include "core/comm.hpp"
#include "itercl/kmeans.hpp"

namespace itercl::kmeans {

// This rank's rows of the data, scattered from rank 0: rows [first, first + X.rows()) of n.
struct RankRows {
  Matrix X;
  std::vector<double> w;  // empty: unit weights
  Eigen::Index first = 0, n = 0;
  Timings scatter;  // the scatter's communication
};

// The rows one rank works on: its scattered RankRows, or on one rank (KMeans::fit) the caller's data,
// not copied.
struct LocalRows {
  RowsView X;                 // in place
  std::span<const double> w;  // empty: unit weights
  Eigen::Index first = 0, n = 0;
  Timings scatter;
  const DeviceRows* on_device = nullptr;  // X as the caller holds it on the device (one rank): repacked there
};
inline LocalRows local_rows(const RankRows& r) { return {r.X, r.w, r.first, r.n, r.scatter}; }

// Rank 0 passes all points (and weights, or none); the other ranks pass empty ones. Every rank calls it.
RankRows scatter_rows(core::Comm& comm, const Matrix& all, std::span<const double> all_weights);

// Lloyd's iterations over the ranks of `comm`, and KMeans::fit itself on a one-rank communicator. `all` and
// `all_weights`: every point, on rank 0 only (for the initialisation and the scaled tolerance; empty elsewhere). The
// labels of all points are returned on rank 0 (the other ranks get none); the timings are this rank's.
KMeansResult fit_over_ranks(core::Comm& comm, const Device& device, const KMeansParams& p, const LocalRows& mine,
                            const RowsView& all, std::span<const double> all_weights);

}  // namespace itercl::kmeans
