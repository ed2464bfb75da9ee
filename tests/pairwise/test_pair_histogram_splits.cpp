// column_splits and partial_rows: how a rectangle's columns are cut among work-groups, against the rule
// written out (the launch's groups reach groups_per_unit per compute unit, a split holds at least one
// column block, and the per-group histograms fit the buffer the worker allocated).
#include <doctest/doctest.h>

#include <cstddef>

#include "pairwise/pair_histogram_kernel.hpp"

namespace pair_histogram_splits_tests {

using itercl::pairwise::column_splits;
using itercl::pairwise::partial_rows;

// Uniform bins over 3-D points in float.
itercl::pairwise::HistogramProblem uniform_problem(int bins) {
  const auto binning =
      itercl::pairwise::device_binning(itercl::Binning::uniform(bins, 0, 1), itercl::Precision::f32, true);
  return {.dim = 3,
          .buckets = bins,
          .place = binning,
          .lookup = binning,
          .periodic = false,
          .precision = itercl::Precision::f32};
}

TEST_CASE("histogram splits: enough work-groups per compute unit, at most a split per column block") {
  itercl::PairHistogramKernel k{.variant = "private_hist_balanced", .work_group_size = 256, .groups_per_unit = 64};
  const itercl::pairwise::HistogramProblem problem = uniform_problem(256);
  const unsigned units = 132;  // an H200
  for (const std::size_t groups : {1, 5, 64, 1024, 8447, 8448, 16384}) {
    CAPTURE(groups);
    const std::size_t rows = partial_rows(k, problem, groups, units);
    CHECK(rows >= groups);
    for (const std::size_t blocks : {std::size_t{1}, std::size_t{7}, groups}) {
      CAPTURE(blocks);
      const std::size_t s = column_splits(k, groups, blocks, rows, units);
      CHECK(s >= 1);
      CHECK(s <= blocks);
      CHECK(groups * s <= rows);
      // Fewer groups than wanted only where every column block is a split of its own.
      CHECK((groups * s >= 64 * units || s == blocks));
      // No more splits than needed: one fewer would leave the launch short of the groups wanted.
      if (s > 1) CHECK(groups * (s - 1) < 64 * units);
    }
  }
  // The buffer's budget (256 MiB of 32-bit counts) bounds the splits of many buckets.
  const itercl::pairwise::HistogramProblem wide = uniform_problem(1 << 20);
  const std::size_t rows = partial_rows(k, wide, 16, units);
  CHECK(rows == 64);
  CHECK(column_splits(k, 16, 1000, rows, units) == 4);
  k.groups_per_unit = 1;
  CHECK(column_splits(k, 1024, 1024, partial_rows(k, problem, 1024, units), units) == 1);
  k.variant = "naive";
  k.groups_per_unit = 64;
  CHECK(column_splits(k, 4, 1024, partial_rows(k, problem, 4, units), units) == 1);
}

}  // namespace pair_histogram_splits_tests
