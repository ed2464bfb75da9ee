// Initial centroids: scikit-learn's greedy k-means++ and weighted random sampling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <string>

#include "core/parallel.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl::kmeans {

// The first index whose running sum exceeds `target`: for target uniform in [0, total), index i is drawn
// with probability value_i / total, and never an index of value 0. Clipped to the last index, as
// scikit-learn clips, against rounding.
Eigen::Index search_cumulative(const std::vector<double>& cumulative, double target) {
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
  return std::min<Eigen::Index>(it - cumulative.begin(), static_cast<Eigen::Index>(cumulative.size()) - 1);
}

namespace {

// X: the rows as an Eigen expression of doubles (the stored values, widened as they are read).
template <class Rows>
Matrix kmeans_plus_plus_of(const Rows& X, std::span<const double> w, int k, Rng& rng) {
  const Eigen::Index n = X.rows();
  const auto un = static_cast<std::size_t>(n);
  const int trials = 2 + static_cast<int>(std::log(k));
  const int workers = worker_count(un * static_cast<std::size_t>(X.cols()));
  Matrix centers(k, X.cols());

  // Four per-sample arrays: running sums, nearest-centre distances, a candidate's and the best candidate's.
  const std::string per_sample = "k-means++'s distances of " + std::to_string(n) + " samples";
  std::vector<double> cumulative = host_array<double>(un, 0, per_sample);
  auto accumulate_weighted = [&](const std::vector<double>& values) {
    double running = 0;
    for (std::size_t i = 0; i < un; ++i) cumulative[i] = running += weight(w, static_cast<Eigen::Index>(i)) * values[i];
    return running;
  };

  // First centre: a sample drawn with probability proportional to its weight.
  std::vector<double> closest = host_array<double>(un, 1.0, per_sample);
  const double total_weight = accumulate_weighted(closest);
  centers.row(0) = X.row(search_cumulative(cumulative, uniform01(rng) * total_weight));
  parallel_blocks(un, workers, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t i = b; i < e; ++i)
      closest[i] = (X.row(static_cast<Eigen::Index>(i)) - centers.row(0)).squaredNorm();
  });
  double potential = accumulate_weighted(closest);

  std::vector<double> candidate_closest = host_array<double>(un, 0, per_sample),
                      best_closest = host_array<double>(un, 0, per_sample);
  std::vector<double> partial(static_cast<std::size_t>(workers));
  for (int c = 1; c < k; ++c) {
    double best_potential = std::numeric_limits<double>::infinity();
    Eigen::Index best = 0;
    std::vector<Eigen::Index> candidates(static_cast<std::size_t>(trials));
    for (auto& id : candidates) id = search_cumulative(cumulative, uniform01(rng) * potential);
    for (const Eigen::Index id : candidates) {
      parallel_blocks(un, workers, [&](std::size_t b, std::size_t e, int worker) {
        double s = 0;
        for (std::size_t i = b; i < e; ++i) {
          const auto ii = static_cast<Eigen::Index>(i);
          candidate_closest[i] = std::min(closest[i], (X.row(ii) - X.row(id)).squaredNorm());
          s += weight(w, ii) * candidate_closest[i];
        }
        partial[static_cast<std::size_t>(worker)] = s;
      });
      const double p = std::accumulate(partial.begin(), partial.end(), 0.0);
      if (p < best_potential) {  // the first of equal candidates wins, as numpy.argmin
        best_potential = p;
        best = id;
        std::swap(best_closest, candidate_closest);
      }
    }
    centers.row(c) = X.row(best);
    std::swap(closest, best_closest);
    potential = accumulate_weighted(closest);
  }
  return centers;
}

}  // namespace

Matrix init_kmeans_plus_plus(const RowsView& X, std::span<const double> w, int k, Rng& rng) {
  return X.visit([&](const auto& stored) { return kmeans_plus_plus_of(stored.template cast<double>(), w, k, rng); });
}

Matrix init_random(const RowsView& X, std::span<const double> w, int k, Rng& rng) {
  // Efraimidis-Spirakis: the k largest keys u^(1/w) are a weighted sample without replacement.
  // Compared as log(u) / w to stay in range; zero-weight samples are never drawn.
  using Keyed = std::pair<double, Eigen::Index>;
  std::priority_queue<Keyed, std::vector<Keyed>, std::greater<>> smallest_of_best;
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double u = uniform01(rng), wi = weight(w, i);
    if (wi <= 0) continue;
    const double key = std::log1p(-u) / wi;  // log(1 - u): u may be 0, never 1
    if (static_cast<int>(smallest_of_best.size()) < k) {
      smallest_of_best.emplace(key, i);
    } else if (key > smallest_of_best.top().first) {
      smallest_of_best.pop();
      smallest_of_best.emplace(key, i);
    }
  }
  std::vector<Eigen::Index> chosen;
  while (!smallest_of_best.empty()) chosen.push_back(smallest_of_best.top().second), smallest_of_best.pop();
  std::sort(chosen.begin(), chosen.end());
  Matrix centers(k, X.cols());
  X.visit([&](const auto& stored) {
    for (int c = 0; c < k; ++c)
      centers.row(c) = stored.row(chosen[static_cast<std::size_t>(c)]).template cast<double>();
  });
  return centers;
}

}  // namespace itercl::kmeans
