// K-Means over several MPI ranks (internal): each rank holds a block of rows and assigns them on its
// own device; per iteration the ranks sum their per-cluster sums with one allreduce and compute the
// same centroids. No rank needs all the points: the checks, the centring origin, the scaled tolerance
// and the initial centroids are computed over the ranks. The answers equal one process's: the same
// initial centroids (each point takes the random draw it takes in one process), the same empty-cluster
// relocation (the farthest points over all ranks, the same tie-break), hence the same labels and
// iterations; sums differ only in the order of their additions (tolerance::ranks_objective). Of n_init
// runs, one that reaches the best's clustering again does not replace it (scikit-learn's rule), so that
// the inertias' rounding never picks another numbering of the same clusters.
#pragma once

#include <span>
#include <vector>

#include "core/comm.hpp"
#include "core/host_rows.hpp"
#include "core/random.hpp"
#include "itercl/kmeans.hpp"

namespace itercl::kmeans {

// This rank's rows of the data, rows [first, first + X.rows()) of n: generated or read by the rank (in
// the precision it holds them in, float or double), or scattered from rank 0 (in double, as parsed).
struct RankRows {
  core::HostRows X;
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
inline LocalRows local_rows(const RankRows& r) { return {r.X.view(), r.w, r.first, r.n, r.scatter}; }

// Rank 0 passes all points (and weights, or none); the other ranks pass empty ones. Every rank calls it.
RankRows scatter_rows(core::Comm& comm, const Matrix& all, std::span<const double> all_weights);
// Rank 0's sample weights of n points (or none), each rank's part of them; every rank calls it.
std::vector<double> scatter_weights(core::Comm& comm, std::span<const double> all, Eigen::Index n);

// Where the labels of a fit over ranks go: all of them to rank 0 (which writes them; the other ranks get
// none), or each rank's own rows' labels to it (a caller's rows on each rank: KMeans::fit(Ranks, ...)).
enum class LabelsTo { rank0, each_rank };

// Lloyd's iterations over the ranks of `comm` from the rows each holds, and KMeans::fit itself on a
// one-rank communicator. The labels go as `labels` says; the timings are this rank's.
KMeansResult fit_over_ranks(core::Comm& comm, const Device& device, const KMeansParams& p, const LocalRows& mine,
                            LabelsTo labels = LabelsTo::rank0);

// The steps that look at every point, over the ranks (one rank: the caller's points):
// - check_rows: KMeansParams::validate(X, w) of all the points: each rank checks its own rows (values
//   finite, weights finite and non-negative, named by their index among all points), then the counts
//   of all (n_clusters at most the samples of positive weight).
// - sample_mean: the mean of 1,024 rows spread evenly over all the points (all of them below that), the
//   origin the rows are centred on before the device's precision rounds them, moved to a grid of 2^-10
//   of the sample's spread (core/centring.hpp: integers stay exact): the same on every number of ranks,
//   so that each point is rounded as in one process.
// - scaled_tol: scikit-learn's tolerance, tol times the mean of the columns' variances, from the ranks'
//   sums about `origin` added in rank order.
// - init_kmeans_plus_plus, init_random: the initial centroids (kmeans_init.cpp), as one process draws
//   them from all the points, for any split: k-means++'s running sums and candidates' potentials are
//   exact fixed-point sums (kmeans_init.cpp).
void check_rows(core::Comm& comm, const KMeansParams& p, const LocalRows& mine);
Eigen::RowVectorXd sample_mean(core::Comm& comm, const LocalRows& mine);
double scaled_tol(core::Comm& comm, const LocalRows& mine, const Eigen::RowVectorXd& origin, double tol);
Matrix init_kmeans_plus_plus(core::Comm& comm, const LocalRows& mine, int k, Rng& rng);
Matrix init_random(core::Comm& comm, const LocalRows& mine, int k, Rng& rng);

}  // namespace itercl::kmeans
