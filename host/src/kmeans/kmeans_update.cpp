// The CPU half of the seed's hybrid K-Means: centroid update, empty-cluster relocation, inertia.
#include <algorithm>
#include <new>
#include <numeric>
#include <string>
#include <utility>

#include "core/parallel.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl::kmeans {

// Per-worker partial sums, merged in worker order so the rounding is reproducible.
struct Partial {
  std::vector<double> sums;     // k x d, row-major
  std::vector<double> weights;  // k
  double inertia = 0;
  std::int64_t changed = 0;
};

// x as stored (float or double), each value widened to double.
template <class T>
double squared_distance(const T* x, const double* c, Eigen::Index d) {
  double s = 0;
  for (Eigen::Index j = 0; j < d; ++j) s += (x[j] - c[j]) * (x[j] - c[j]);
  return s;
}

// The address of X's value (0, 0) as stored, for f(data).
template <class F>
decltype(auto) with_data(const RowsView& X, F&& f) {
  return X.visit([&](const auto& rows) { return f(rows.data()); });
}

ClusterSums cluster_sums(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                         std::vector<std::int32_t>& previous, const Matrix& centroids) {
  const Eigen::Index n = X.rows(), d = X.cols(), k = centroids.rows();
  const auto uk = static_cast<std::size_t>(k), ud = static_cast<std::size_t>(d);

  // The hot loop of the host's half, once over all points: plain pointers, since Eigen's dynamic-size
  // row expressions cost several times more per point at small d.
  const int workers = worker_count(static_cast<std::size_t>(n));
  // Reserved here, filled in the workers (each zeroes its own, in parallel): a worker cannot throw
  // (parallel_blocks), and their k x d sums together can outgrow the data when k is large.
  std::vector<Partial> parts(static_cast<std::size_t>(workers));
  try {
    for (Partial& p : parts) p.sums.reserve(uk * ud), p.weights.reserve(uk);
  } catch (const std::bad_alloc&) {
    throw RuntimeError("out of host memory for the centroid update's partial sums: " + std::to_string(workers) +
                       " threads x " + std::to_string(k) + " x " + std::to_string(d + 1) + " values (" +
                       std::to_string(parts.size() * (uk * ud + uk) * sizeof(double)) + " bytes)");
  }
  with_data(X, [&](const auto* values) {
    parallel_blocks(static_cast<std::size_t>(n), workers, [&](std::size_t begin, std::size_t end, int worker) {
      Partial& p = parts[static_cast<std::size_t>(worker)];
      p.sums.assign(uk * ud, 0.0);  // within the reserved capacity: no allocation
      p.weights.assign(uk, 0.0);
      for (std::size_t i = begin; i < end; ++i) {
        const auto l = static_cast<std::size_t>(labels[i]);
        const double wi = w.empty() ? 1.0 : w[i];
        const auto* x = values + i * ud;
        p.inertia += wi * squared_distance(x, centroids.data() + l * ud, d);
        double* sum = p.sums.data() + l * ud;
        const double* origin = centroids.data() + l * ud;
        for (std::size_t j = 0; j < ud; ++j) sum[j] += wi * (x[j] - origin[j]);
        p.weights[l] += wi;
        p.changed += previous[i] != labels[i];
        previous[i] = labels[i];
      }
    });
  });

  ClusterSums out;
  out.sums = Matrix::Zero(k, d);
  out.origin = centroids;
  out.weights = Vector::Zero(k);
  for (const Partial& p : parts) {
    out.sums += Eigen::Map<const Matrix>(p.sums.data(), k, d);
    out.weights += Eigen::Map<const Vector>(p.weights.data(), k);
    out.inertia += p.inertia;
    out.n_changed += p.changed;
  }
  return out;
}

std::vector<Eigen::Index> empty_clusters(const ClusterSums& s) {
  std::vector<Eigen::Index> empty;
  for (Eigen::Index j = 0; j < s.weights.size(); ++j)
    if (s.weights[j] <= 0) empty.push_back(j);
  return empty;
}

bool farther(const FarPoint& a, const FarPoint& b) {
  return a.distance != b.distance ? a.distance > b.distance : a.index > b.index;
}

std::vector<FarPoint> farthest_points(const RowsView& rows, std::span<const double> w,
                                      std::span<const std::int32_t> labels, const Matrix& centroids, std::size_t take,
                                      Eigen::Index first_index) {
  return rows.visit([&](const auto& stored) {
    const auto X = stored.template cast<double>();      // an expression: each value widened as it is read
    using Candidate = std::pair<double, Eigen::Index>;  // squared distance to its centroid, row
    // `farther`'s order, a strict one: the blocks' farthest merged are the farthest of all.
    auto further = [](const Candidate& a, const Candidate& b) {
      return a.first != b.first ? a.first > b.first : a.second > b.second;
    };
    // Each block keeps its `take` farthest in a heap whose top is the nearest of them, so that memory
    // stays O(take) a worker at a billion points.
    const auto n = static_cast<std::size_t>(X.rows());
    const int workers = worker_count(n * static_cast<std::size_t>(X.cols()));
    std::vector<std::vector<Candidate>> kept(static_cast<std::size_t>(workers));
    if (take > 0)
      parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int worker) {
        std::vector<Candidate>& heap = kept[static_cast<std::size_t>(worker)];
        for (auto i = static_cast<Eigen::Index>(begin); i < static_cast<Eigen::Index>(end); ++i) {
          if (weight(w, i) <= 0) continue;
          keep_best(heap, Candidate{(X.row(i) - centroids.row(labels[static_cast<std::size_t>(i)])).squaredNorm(), i},
                    take, further);
        }
      });
    std::vector<Candidate> all;
    for (const std::vector<Candidate>& k : kept) all.insert(all.end(), k.begin(), k.end());
    take = std::min(take, all.size());
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(take), all.end(), further);
    std::vector<FarPoint> order;
    for (std::size_t e = 0; e < take; ++e) {
      const auto [distance, i] = all[e];
      order.push_back({distance, first_index + i, labels[static_cast<std::size_t>(i)], weight(w, i), X.row(i)});
    }
    return order;
  });
}

UpdateOutcome finish_update(ClusterSums& s, const std::vector<Eigen::Index>& empty,
                            const std::vector<FarPoint>& farthest, const Matrix& centroids, Matrix& next) {
  UpdateOutcome out;
  out.inertia = s.inertia;
  out.n_changed = s.n_changed;
  const std::size_t take = std::min(empty.size(), farthest.size());
  for (std::size_t e = 0; e < take; ++e) {
    const Eigen::Index j = empty[e];
    const FarPoint& far = farthest[e];
    s.sums.row(far.label) -= far.weight * (far.x - s.origin.row(far.label));
    s.weights[far.label] -= far.weight;
    s.origin.row(j) = far.x;  // the centroid becomes the point exactly
    s.sums.row(j).setZero();
    s.weights[j] = far.weight;
    ++out.n_relocated;
  }
  const Eigen::Index k = centroids.rows();
  next.resize(k, centroids.cols());
  for (Eigen::Index j = 0; j < k; ++j) {
    // A cluster that lost its only point to a relocation keeps its centroid rather than becoming NaN.
    next.row(j) = s.weights[j] > 0 ? Eigen::RowVectorXd(s.origin.row(j) + s.sums.row(j) / s.weights[j])
                                   : Eigen::RowVectorXd(centroids.row(j));
    out.shift_sq += (next.row(j) - centroids.row(j)).squaredNorm();
  }
  return out;
}

UpdateOutcome update_centroids(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                               std::vector<std::int32_t>& previous, const Matrix& centroids, Matrix& next) {
  ClusterSums s = cluster_sums(X, w, labels, previous, centroids);
  // Empty clusters (no weight) take the points farthest from their own centroids, the farthest going
  // to the lowest-numbered empty cluster; equal distances go to the later point (which reproduces
  // scikit-learn's result on its relocation test). Zero-weight points cannot fill a cluster.
  const std::vector<Eigen::Index> empty = empty_clusters(s);
  const std::vector<FarPoint> farthest =
      empty.empty() ? std::vector<FarPoint>{} : farthest_points(X, w, labels, centroids, empty.size(), 0);
  return finish_update(s, empty, farthest, centroids, next);
}

double kmeans_inertia(const RowsView& X, std::span<const double> w, std::span<const std::int32_t> labels,
                      const Matrix& centroids) {
  const int workers = worker_count(static_cast<std::size_t>(X.rows()));
  std::vector<double> parts(static_cast<std::size_t>(workers));
  const auto ud = static_cast<std::size_t>(X.cols());
  with_data(X, [&](const auto* values) {
    parallel_blocks(static_cast<std::size_t>(X.rows()), workers, [&](std::size_t begin, std::size_t end, int worker) {
      double s = 0;
      for (std::size_t i = begin; i < end; ++i)
        s += (w.empty() ? 1.0 : w[i]) *
             squared_distance(values + i * ud, centroids.data() + static_cast<std::size_t>(labels[i]) * ud, X.cols());
      parts[static_cast<std::size_t>(worker)] = s;
    });
  });
  return std::accumulate(parts.begin(), parts.end(), 0.0);
}

}  // namespace itercl::kmeans
