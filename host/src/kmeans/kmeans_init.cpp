// Initial centroids: scikit-learn's greedy k-means++ and weighted random sampling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/parallel.hpp"
#include "kmeans/kmeans_ranks.hpp"
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

// Where a target of the running sum over all ranks' points falls: the rank, and the target within that
// rank's own running sum. `totals` are the ranks' sums in rank order. A target past the end (rounding)
// goes to the end of the last rank with a positive sum, where search_cumulative clips it.
struct Owner {
  int rank;
  double target;
};
Owner owner_of(const std::vector<double>& totals, double target) {
  double offset = 0;
  Owner last{0, 0};
  for (std::size_t r = 0; r < totals.size(); ++r) {
    if (totals[r] > 0) {
      if (target < offset + totals[r]) return {static_cast<int>(r), target - offset};
      last = {static_cast<int>(r), totals[r]};
    }
    offset += totals[r];
  }
  return last;
}

// X: this rank's rows as an Eigen expression of doubles (the stored values, widened as they are read).
template <class Rows>
Matrix kmeans_plus_plus_of(core::Comm& comm, const Rows& X, std::span<const double> w, int k, Rng& rng) {
  const Eigen::Index n = X.rows(), d = X.cols();
  const auto un = static_cast<std::size_t>(n);
  const int trials = 2 + static_cast<int>(std::log(k));
  const int workers = worker_count(un * static_cast<std::size_t>(d));
  Matrix centers(k, d);

  // Four per-sample arrays: running sums, nearest-centre distances, a candidate's and the best candidate's.
  const std::string per_sample = "k-means++'s distances of " + std::to_string(n) + " samples";
  std::vector<double> cumulative = host_array<double>(un, 0, per_sample);
  // The running sum of w * values over this rank's points; every rank's total, in rank order.
  std::vector<double> totals;
  auto accumulate_weighted = [&](const std::vector<double>& values) {
    double running = 0;
    for (std::size_t i = 0; i < un; ++i) cumulative[i] = running += weight(w, static_cast<Eigen::Index>(i)) * values[i];
    totals = comm.allgatherv<double>(std::span<const double>(&running, 1));
    return std::accumulate(totals.begin(), totals.end(), 0.0);  // in rank order: the same bits on every rank
  };
  // The point the running sum reaches at `target`, from the rank that holds it, on every rank.
  auto drawn = [&](double target) {
    const Owner o = owner_of(totals, target);
    Eigen::RowVectorXd x(d);
    if (comm.rank() == o.rank) x = X.row(search_cumulative(cumulative, o.target));
    comm.broadcast_bytes(x.data(), static_cast<std::size_t>(d) * sizeof(double), o.rank);
    return x;
  };

  // First centre: a sample drawn with probability proportional to its weight.
  std::vector<double> closest = host_array<double>(un, 1.0, per_sample);
  const double total_weight = accumulate_weighted(closest);
  centers.row(0) = drawn(uniform01(rng) * total_weight);
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
    std::vector<double> targets(static_cast<std::size_t>(trials));
    for (double& t : targets) t = uniform01(rng) * potential;
    for (const double t : targets) {
      const Eigen::RowVectorXd candidate = drawn(t);
      parallel_blocks(un, workers, [&](std::size_t b, std::size_t e, int worker) {
        double s = 0;
        for (std::size_t i = b; i < e; ++i) {
          const auto ii = static_cast<Eigen::Index>(i);
          candidate_closest[i] = std::min(closest[i], (X.row(ii) - candidate).squaredNorm());
          s += weight(w, ii) * candidate_closest[i];
        }
        partial[static_cast<std::size_t>(worker)] = s;
      });
      const double local = std::accumulate(partial.begin(), partial.end(), 0.0);
      const double p = comm.sum_in_rank_order(std::span<const double>(&local, 1))[0];
      if (p < best_potential) {  // the first of equal candidates wins, as numpy.argmin
        best_potential = p;
        centers.row(c) = candidate;
        std::swap(best_closest, candidate_closest);
      }
    }
    std::swap(closest, best_closest);
    potential = accumulate_weighted(closest);
  }
  return centers;
}

}  // namespace

Matrix init_kmeans_plus_plus(core::Comm& comm, const LocalRows& mine, int k, Rng& rng) {
  return mine.X.visit(
      [&](const auto& stored) { return kmeans_plus_plus_of(comm, stored.template cast<double>(), mine.w, k, rng); });
}

Matrix init_random(core::Comm& comm, const LocalRows& mine, int k, Rng& rng) {
  // Efraimidis-Spirakis: the k largest keys u^(1/w) are a weighted sample without replacement.
  // Compared as log(u) / w to stay in range; zero-weight samples are never drawn. Unweighted, the key is
  // u itself (the same order, without a logarithm a point). Point i takes draw i of a stream keyed by one
  // draw of `rng`, whichever rank and thread hold it; of equal keys the earlier point wins.
  using Keyed = std::pair<double, Eigen::Index>;  // key, index among all points
  auto better = [](const Keyed& a, const Keyed& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  const std::uint64_t stream = rng();
  // Each worker keeps its best k in a heap, the worst of them on top. The order is total (no two points
  // share an index), so the best k of the workers' best are the best k of all, whatever the split.
  const auto local = static_cast<std::size_t>(mine.X.rows());
  const int workers = worker_count(local);
  std::vector<std::vector<Keyed>> best(static_cast<std::size_t>(workers));
  parallel_blocks(local, workers, [&](std::size_t begin, std::size_t end, int worker) {
    std::vector<Keyed>& heap = best[static_cast<std::size_t>(worker)];
    for (std::size_t q = begin; q < end; ++q) {
      const auto i = static_cast<Eigen::Index>(q);
      const double wi = weight(mine.w, i), u = uniform01_at(stream, static_cast<std::uint64_t>(mine.first + i));
      if (wi <= 0) continue;
      // log(1 - u): u may be 0, never 1.
      keep_best(heap, Keyed{mine.w.empty() ? 1 - u : std::log1p(-u) / wi, mine.first + i}, static_cast<std::size_t>(k),
                better);
    }
  });
  std::vector<double> offered;  // key, index
  for (const std::vector<Keyed>& heap : best)
    for (const Keyed& keyed : heap) offered.insert(offered.end(), {keyed.first, static_cast<double>(keyed.second)});
  const std::vector<double> all = comm.allgatherv<double>(offered);
  std::vector<Keyed> candidates;
  for (std::size_t at = 0; at + 1 < all.size(); at += 2)
    candidates.emplace_back(all[at], static_cast<Eigen::Index>(all[at + 1]));
  std::partial_sort(candidates.begin(), candidates.begin() + k, candidates.end(), better);
  std::vector<Eigen::Index> chosen;
  for (int c = 0; c < k; ++c) chosen.push_back(candidates[static_cast<std::size_t>(c)].second);
  std::sort(chosen.begin(), chosen.end());

  // The chosen rows from the ranks that hold them, in index order (ranks hold increasing rows).
  const Eigen::Index d = mine.X.cols();
  std::vector<double> rows;
  mine.X.visit([&](const auto& stored) {
    for (const Eigen::Index i : chosen)
      if (i >= mine.first && i < mine.first + stored.rows()) {
        const Eigen::RowVectorXd x = stored.row(i - mine.first).template cast<double>();
        rows.insert(rows.end(), x.data(), x.data() + d);
      }
  });
  const std::vector<double> gathered = comm.allgatherv<double>(rows);
  return Eigen::Map<const Matrix>(gathered.data(), k, d);
}

Matrix init_kmeans_plus_plus(const RowsView& X, std::span<const double> w, int k, Rng& rng) {
  core::Comm one_rank;
  return init_kmeans_plus_plus(one_rank, {X, w, 0, X.rows(), {}}, k, rng);
}

Matrix init_random(const RowsView& X, std::span<const double> w, int k, Rng& rng) {
  core::Comm one_rank;
  return init_random(one_rank, {X, w, 0, X.rows(), {}}, k, rng);
}

}  // namespace itercl::kmeans
