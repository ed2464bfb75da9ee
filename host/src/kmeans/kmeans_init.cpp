// Initial centroids: scikit-learn's greedy k-means++ and weighted random sampling.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>

#include "core/parallel.hpp"
#include "kmeans/kmeans_ranks.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl::kmeans {

namespace {

// k-means++ draws point i with probability v_i / sum(v), v_i = w_i D(x_i)^2, from running sums of the
// v_i. In doubles those sums round differently when the ranks' boundaries split them otherwise (and with
// the number of threads), so a draw within rounding of a running sum could fall on one point with one
// process and on its neighbour over ranks. Here every v_i is first made a fixed-point integer on one scale for
// all ranks, and integers add exactly in any order: the running sums, the draws and the candidates'
// potentials are the same for every split of the points, as the one-process sequential sums would be
// without rounding. The scale puts the largest v_i just below 2^(126 - bit_width(n)), so that n of them
// sum below 2^126: for n below 2^56, 70 and more bits below the largest value are kept, more than a
// double's 53 (only values below 2^-70 of the largest become 0, and are never drawn: a probability
// below 2^-70 each).
__extension__ typedef unsigned __int128 Fixed;  // __extension__: GCC's and Clang's 128-bit integer

struct FixedScale {
  int shift = 0;  // v_i is floor(v_i 2^shift)
  Fixed of(double v) const { return static_cast<Fixed>(std::ldexp(v, shift)); }
};

// The scale for values whose largest over all ranks is `largest`, of n points in all.
FixedScale fixed_scale(double largest, Eigen::Index n) {
  if (!(largest > 0)) return {};
  int exponent = 0;
  std::frexp(largest, &exponent);  // largest < 2^exponent
  return {126 - exponent - static_cast<int>(std::bit_width(static_cast<std::uint64_t>(n)))};
}

// The sum of one Fixed per rank, on every rank (exact: the order does not matter).
Fixed sum_over_ranks(core::Comm& comm, Fixed mine) {
  const std::vector<Fixed> all = comm.allgatherv<Fixed>(std::span<const Fixed>(&mine, 1));
  return std::accumulate(all.begin(), all.end(), Fixed{0});
}

// X: this rank's rows as an Eigen expression of doubles (the stored values, widened as they are read).
template <class Rows>
Matrix kmeans_plus_plus_of(core::Comm& comm, const Rows& X, std::span<const double> w, Eigen::Index n_all, int k,
                           Rng& rng) {
  const Eigen::Index n = X.rows(), d = X.cols();
  const auto un = static_cast<std::size_t>(n);
  const int trials = 2 + static_cast<int>(std::log(k));
  const int workers = worker_count(un * static_cast<std::size_t>(d));
  Matrix centers(k, d);

  // Four per-sample arrays: running sums, nearest-centre distances, a candidate's and the best candidate's.
  const std::string per_sample = "k-means++'s distances of " + std::to_string(n) + " samples";
  std::vector<Fixed> cumulative = host_array<Fixed>(un, 0, per_sample);
  // The scale of the values last accumulated, and every rank's sum of them, in rank order.
  FixedScale scale;
  std::vector<Fixed> totals;
  Fixed total = 0;
  // The last rank holding points.
  const std::int64_t rows = n;
  const std::vector<std::int64_t> each_rows = comm.allgatherv<std::int64_t>(std::span<const std::int64_t>(&rows, 1));
  int last_rank = 0;
  for (std::size_t r = 0; r < each_rows.size(); ++r)
    if (each_rows[r] > 0) last_rank = static_cast<int>(r);
  auto accumulate_weighted = [&](const std::vector<double>& values) {
    double largest = 0;
    for (std::size_t i = 0; i < un; ++i)
      largest = std::max(largest, weight(w, static_cast<Eigen::Index>(i)) * values[i]);
    const std::vector<double> each = comm.allgatherv<double>(std::span<const double>(&largest, 1));
    scale = fixed_scale(*std::max_element(each.begin(), each.end()), n_all);
    Fixed running = 0;
    for (std::size_t i = 0; i < un; ++i)
      cumulative[i] = running += scale.of(weight(w, static_cast<Eigen::Index>(i)) * values[i]);
    totals = comm.allgatherv<Fixed>(std::span<const Fixed>(&running, 1));
    total = std::accumulate(totals.begin(), totals.end(), Fixed{0});
  };
  // The point drawn by u uniform in [0, 1): the first whose running sum over all points exceeds u times
  // the total, on every rank, from the rank that holds it. All values 0 (every point on a centre): the
  // last point, as the search clips.
  auto drawn = [&](double u) {
    int owner = 0;
    Eigen::Index at = 0;
    if (total == 0) {
      owner = last_rank;
      at = n - 1;
    } else {
      // u < 1, but u times the total rounded to a double may reach it: clipped to the last positive value.
      const Fixed target = std::min(static_cast<Fixed>(u * static_cast<double>(total)), total - 1);
      Fixed offset = 0;
      while (target >= offset + totals[static_cast<std::size_t>(owner)])
        offset += totals[static_cast<std::size_t>(owner++)];
      if (comm.rank() == owner)
        at = std::upper_bound(cumulative.begin(), cumulative.end(), target - offset) - cumulative.begin();
    }
    Eigen::RowVectorXd x(d);
    if (comm.rank() == owner) x = X.row(at);
    comm.broadcast_bytes(x.data(), static_cast<std::size_t>(d) * sizeof(double), owner);
    return x;
  };

  // First centre: a sample drawn with probability proportional to its weight.
  std::vector<double> closest = host_array<double>(un, 1.0, per_sample);
  accumulate_weighted(closest);
  centers.row(0) = drawn(uniform01(rng));
  parallel_blocks(un, workers, [&](std::size_t b, std::size_t e, int) {
    for (std::size_t i = b; i < e; ++i)
      closest[i] = (X.row(static_cast<Eigen::Index>(i)) - centers.row(0)).squaredNorm();
  });
  accumulate_weighted(closest);

  std::vector<double> candidate_closest = host_array<double>(un, 0, per_sample),
                      best_closest = host_array<double>(un, 0, per_sample);
  std::vector<Fixed> partial(static_cast<std::size_t>(workers));
  for (int c = 1; c < k; ++c) {
    std::vector<double> draws(static_cast<std::size_t>(trials));
    for (double& u : draws) u = uniform01(rng);
    bool first = true;
    Fixed best_potential = 0;
    for (const double u : draws) {
      const Eigen::RowVectorXd candidate = drawn(u);
      // The candidate's potential on the scale of `closest`: its distances are no larger.
      parallel_blocks(un, workers, [&](std::size_t b, std::size_t e, int worker) {
        Fixed s = 0;
        for (std::size_t i = b; i < e; ++i) {
          const auto ii = static_cast<Eigen::Index>(i);
          candidate_closest[i] = std::min(closest[i], (X.row(ii) - candidate).squaredNorm());
          s += scale.of(weight(w, ii) * candidate_closest[i]);
        }
        partial[static_cast<std::size_t>(worker)] = s;
      });
      const Fixed p = sum_over_ranks(comm, std::accumulate(partial.begin(), partial.end(), Fixed{0}));
      if (first || p < best_potential) {  // the first of equal candidates wins, as numpy.argmin
        first = false;
        best_potential = p;
        centers.row(c) = candidate;
        std::swap(best_closest, candidate_closest);
      }
    }
    std::swap(closest, best_closest);
    accumulate_weighted(closest);
  }
  return centers;
}

}  // namespace

Matrix init_kmeans_plus_plus(core::Comm& comm, const LocalRows& mine, int k, Rng& rng) {
  return mine.X.visit([&](const auto& stored) {
    return kmeans_plus_plus_of(comm, stored.template cast<double>(), mine.w, mine.n, k, rng);
  });
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
