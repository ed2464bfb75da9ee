// The host-side steps of K-Means (internal): initialisation and the centroid update, in double. They read
// the caller's rows as stored (float or double), each value widened to double as it is read.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "core/host_memory.hpp"
#include "core/random.hpp"
#include "itercl/error.hpp"
#include "itercl/matrix.hpp"
#include "itercl/rows.hpp"

namespace itercl::kmeans {

// Offers `item` to `heap`, which keeps the best `k` offered so far by `better` (a strict order), the worst of
// them on top: the selection that init_random's keys and the relocation's farthest points share.
template <class T, class Better>
void keep_best(std::vector<T>& heap, const T& item, std::size_t k, const Better& better) {
  if (heap.size() < k) {
    heap.push_back(item);
    std::push_heap(heap.begin(), heap.end(), better);
  } else if (better(item, heap.front())) {
    std::pop_heap(heap.begin(), heap.end(), better);
    heap.back() = item;
    std::push_heap(heap.begin(), heap.end(), better);
  }
}

// Sample i's weight; empty weights mean every sample weighs 1.
inline double weight(std::span<const double> w, Eigen::Index i) {
  return w.empty() ? 1.0 : w[static_cast<std::size_t>(i)];
}

// scikit-learn's greedy k-means++: each new centroid is the best (lowest potential) of
// 2 + floor(ln k) candidates drawn with probability proportional to w * D^2.
Matrix init_kmeans_plus_plus(const RowsView& X, std::span<const double> w, int k, Rng& rng);

// k distinct samples drawn with probability proportional to their weights.
Matrix init_random(const RowsView& X, std::span<const double> w, int k, Rng& rng);

struct UpdateOutcome {
  double inertia = 0;          // sum of w * squared distance of each point to its centroid in `centroids`
  std::int64_t n_changed = 0;  // labels that differ from `previous`
  int n_relocated = 0;         // empty clusters moved to far points
  double shift_sq = 0;         // sum over clusters of the squared move from `centroids` to `next`
};

// One Lloyd update: `next` = weighted means of the points under `labels` (assigned against
// `centroids`). Empty clusters take the points farthest from their centroids, as scikit-learn does.
// `previous` (the last labels, -1 before the first) is compared with `labels`, then overwritten.
// w empty means unit weights.
UpdateOutcome update_centroids(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                               std::vector<std::int32_t>& previous, const Matrix& centroids, Matrix& next);

// The pieces of update_centroids, for an update whose points are spread over several ranks (kmeans_ranks):
// the per-cluster sums of one rank's points, the points it offers to empty clusters, and the update
// from the sums of all ranks.
// The sums are about each cluster's own origin, its centroid (the same on every rank): summed as they
// are, data far from 0 (offsets of 1e12 in double) lost up to dozens of ulps of the offset to the running
// sums, and the returned inertia moved 8e-8 from scikit-learn's, which sums about the mean.
struct ClusterSums {
  Matrix sums;     // k x d: sum of w_i (x_i - origin_k) per cluster
  Matrix origin;   // k x d: the centroids the points were assigned to; a relocated cluster's point
  Vector weights;  // k: sum of w_i per cluster
  double inertia = 0;
  std::int64_t n_changed = 0;
};
ClusterSums cluster_sums(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                         std::vector<std::int32_t>& previous, const Matrix& centroids);
std::vector<Eigen::Index> empty_clusters(const ClusterSums& s);  // clusters of no weight, in order

// A point of positive weight offered to an empty cluster: the farthest from its centroid go first.
struct FarPoint {
  double distance;     // squared, to its own centroid
  Eigen::Index index;  // among all points (a rank's first row + its own row)
  std::int32_t label;
  double weight;
  Eigen::RowVectorXd x;
};
// The farther of two points: larger distance, then (equal distances) the later point.
bool farther(const FarPoint& a, const FarPoint& b);
// The `take` farthest points of X by `farther` (fewer if fewer have positive weight), farthest first.
std::vector<FarPoint> farthest_points(const RowsView& X, std::span<const double> w,
                                      std::span<const std::int32_t> labels, const Matrix& centroids, std::size_t take,
                                      Eigen::Index first_index);
// `next` from the sums: empty[e] takes farthest[e] (from its donor cluster), then the weighted means.
UpdateOutcome finish_update(ClusterSums& s, const std::vector<Eigen::Index>& empty,
                            const std::vector<FarPoint>& farthest, const Matrix& centroids, Matrix& next);

// sum of w_i * ||x_i - centroids[labels_i]||^2.
double kmeans_inertia(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                      const Matrix& centroids);

}  // namespace itercl::kmeans
