// The CPU half of the seed's hybrid K-Means: centroid update, empty-cluster relocation, inertia.
#include <algorithm>
#include <new>
#include <numeric>
#include <string>

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

double squared_distance(const double* x, const double* c, Eigen::Index d) {
  double s = 0;
  for (Eigen::Index j = 0; j < d; ++j) s += (x[j] - c[j]) * (x[j] - c[j]);
  return s;
}

UpdateOutcome update_centroids(const Matrix& X, std::span<const double> w, std::span<const std::int32_t> labels,
                               std::vector<std::int32_t>& previous, const Matrix& centroids, Matrix& next) {
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
  parallel_blocks(static_cast<std::size_t>(n), workers, [&](std::size_t begin, std::size_t end, int worker) {
    Partial& p = parts[static_cast<std::size_t>(worker)];
    p.sums.assign(uk * ud, 0.0);  // within the reserved capacity: no allocation
    p.weights.assign(uk, 0.0);
    for (std::size_t i = begin; i < end; ++i) {
      const auto l = static_cast<std::size_t>(labels[i]);
      const double wi = w.empty() ? 1.0 : w[i];
      const double* x = X.data() + i * ud;
      p.inertia += wi * squared_distance(x, centroids.data() + l * ud, d);
      double* sum = p.sums.data() + l * ud;
      for (std::size_t j = 0; j < ud; ++j) sum[j] += wi * x[j];
      p.weights[l] += wi;
      p.changed += previous[i] != labels[i];
      previous[i] = labels[i];
    }
  });

  UpdateOutcome out;
  Matrix sums = Matrix::Zero(k, d);
  Vector weights = Vector::Zero(k);
  for (const Partial& p : parts) {
    sums += Eigen::Map<const Matrix>(p.sums.data(), k, d);
    weights += Eigen::Map<const Vector>(p.weights.data(), k);
    out.inertia += p.inertia;
    out.n_changed += p.changed;
  }

  // Empty clusters (no weight) take the points farthest from their own centroids, the farthest going
  // to the lowest-numbered empty cluster; equal distances go to the later point (which reproduces
  // scikit-learn's result on its relocation test). Zero-weight points cannot fill a cluster.
  std::vector<Eigen::Index> empty;
  for (Eigen::Index j = 0; j < k; ++j)
    if (weights[j] <= 0) empty.push_back(j);
  if (!empty.empty()) {
    std::vector<double> dist = host_array<double>(static_cast<std::size_t>(n), 0, "the relocation's distances");
    std::vector<Eigen::Index> order;
    for (Eigen::Index i = 0; i < n; ++i) {
      dist[static_cast<std::size_t>(i)] = (X.row(i) - centroids.row(labels[static_cast<std::size_t>(i)])).squaredNorm();
      if (weight(w, i) > 0) order.push_back(i);
    }
    const std::size_t take = std::min(empty.size(), order.size());
    auto farther = [&](Eigen::Index a, Eigen::Index b) {
      const double da = dist[static_cast<std::size_t>(a)], db = dist[static_cast<std::size_t>(b)];
      return da != db ? da > db : a > b;
    };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(), farther);
    for (std::size_t e = 0; e < take; ++e) {
      const Eigen::Index j = empty[e], far = order[e];
      const std::int32_t donor = labels[static_cast<std::size_t>(far)];
      const double wf = weight(w, far);
      sums.row(donor) -= wf * X.row(far);
      weights[donor] -= wf;
      sums.row(j) = wf * X.row(far);
      weights[j] = wf;
      ++out.n_relocated;
    }
  }

  next.resize(k, X.cols());
  for (Eigen::Index j = 0; j < k; ++j) {
    // A cluster that lost its only point to a relocation keeps its centroid rather than becoming NaN.
    next.row(j) = weights[j] > 0 ? Eigen::RowVectorXd(sums.row(j) / weights[j]) : Eigen::RowVectorXd(centroids.row(j));
    out.shift_sq += (next.row(j) - centroids.row(j)).squaredNorm();
  }
  return out;
}

double kmeans_inertia(const Matrix& X, std::span<const double> w, std::span<const std::int32_t> labels,
                      const Matrix& centroids) {
  const int workers = worker_count(static_cast<std::size_t>(X.rows()));
  std::vector<double> parts(static_cast<std::size_t>(workers));
  const auto ud = static_cast<std::size_t>(X.cols());
  parallel_blocks(static_cast<std::size_t>(X.rows()), workers, [&](std::size_t begin, std::size_t end, int worker) {
    double s = 0;
    for (std::size_t i = begin; i < end; ++i)
      s += (w.empty() ? 1.0 : w[i]) *
           squared_distance(X.data() + i * ud, centroids.data() + static_cast<std::size_t>(labels[i]) * ud, X.cols());
    parts[static_cast<std::size_t>(worker)] = s;
  });
  return std::accumulate(parts.begin(), parts.end(), 0.0);
}

}  // namespace itercl::kmeans
