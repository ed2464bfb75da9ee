// merge_reduced_parts: the reductions of several parts of a pair space (MPI ranks) merged into the whole's.
// Each part is reduced here by brute force over its own columns, and the merge is held to the brute-force
// reduction over all of them, on integer distances full of ties.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "itercl/pairwise.hpp"

namespace pairwise_merge_tests {

using itercl::ReducedDistances;

// The reduction of D's columns [c0, c1) for every row, as one process reports it: ties to the lower
// column, index -1 and +-infinity (knn: infinity) where a row has no candidate.
ReducedDistances brute(const std::vector<std::vector<double>>& d, const itercl::PairwiseReduction& red, int c0,
                       int c1) {
  ReducedDistances out;
  const double inf = std::numeric_limits<double>::infinity();
  const auto k = static_cast<std::size_t>(red.k);
  out.width = red.form == "knn" ? red.k : red.form == "threshold" ? 0 : 1;
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::vector<int> cols(static_cast<std::size_t>(c1 - c0));
    std::iota(cols.begin(), cols.end(), c0);
    std::stable_sort(cols.begin(), cols.end(), [&](int a, int b) { return d[i][a] < d[i][b]; });
    if (red.form == "threshold") {
      for (int j = c0; j < c1; ++j)
        if (d[i][j] <= red.threshold) out.pairs.push_back({static_cast<std::int64_t>(i), j, d[i][j]});
    } else if (red.form == "knn") {
      for (std::size_t q = 0; q < k; ++q) {
        out.values.push_back(q < cols.size() ? d[i][cols[q]] : inf);
        out.indices.push_back(q < cols.size() ? cols[q] : -1);
      }
    } else if (red.form == "row_sum") {
      double s = 0;
      for (int j = c0; j < c1; ++j) s += d[i][j];
      out.values.push_back(s);
    } else if (red.form == "row_min") {
      out.values.push_back(cols.empty() ? inf : d[i][cols.front()]);
      out.indices.push_back(cols.empty() ? -1 : cols.front());
    } else {  // row_max: the largest, the lowest column among equals
      int best = -1;
      for (int j = c0; j < c1; ++j)
        if (best < 0 || d[i][j] > d[i][best]) best = j;
      out.values.push_back(best < 0 ? -inf : d[i][best]);
      out.indices.push_back(best);
    }
  }
  return out;
}

TEST_CASE("merged parts of the pair space reduce as the whole: min, max, knn, threshold exactly, sums") {
  std::mt19937 random(11);
  std::uniform_int_distribution<int> value(0, 4);
  const int rows = 9, cols = 23;
  std::vector<std::vector<double>> d(rows, std::vector<double>(cols));
  for (auto& row : d)
    for (double& v : row) v = value(random);
  const std::vector<int> cuts = {0, 5, 5, 17, 23};  // four parts, one of them empty
  for (const char* form : {"row_min", "row_max", "row_sum", "knn", "threshold"}) {
    CAPTURE(form);
    const itercl::PairwiseReduction red{.form = form, .k = 7, .threshold = 1};
    std::vector<ReducedDistances> parts;
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) parts.push_back(brute(d, red, cuts[p], cuts[p + 1]));
    std::shuffle(parts.begin(), parts.end(), random);  // the merge does not depend on the parts' order
    const ReducedDistances merged = itercl::merge_reduced_parts(red, rows, parts);
    const ReducedDistances whole = brute(d, red, 0, cols);
    CHECK(merged.values == whole.values);  // integer sums: exact in any order
    CHECK(merged.indices == whole.indices);
    REQUIRE(merged.pairs.size() == whole.pairs.size());
    for (std::size_t q = 0; q < whole.pairs.size(); ++q) {
      CHECK(merged.pairs[q].i == whole.pairs[q].i);
      CHECK(merged.pairs[q].j == whole.pairs[q].j);
      CHECK(merged.pairs[q].d == whole.pairs[q].d);
    }
  }
}

}  // namespace pairwise_merge_tests
