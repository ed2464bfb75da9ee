// Distance histograms and pair counts on the device against the double-precision reference: exact
// counts where no distance lies near an edge, and otherwise exactly the pairs within rounding of an
// edge allowed to move.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "itercl/error.hpp"
#include "itercl/pair_histogram.hpp"
#include "pairwise/pair_histogram_binning.hpp"
#include "pairwise/pair_histogram_kernel.hpp"
#include "reference/pairwise_reference.hpp"
#include "test_support.hpp"
#include "tune_checks.hpp"

using itercl::Binning;
using itercl::Matrix;
using itercl::PairHistogram;
using itercl::PairHistogramParams;
using itercl::Precision;

// Helpers and cases in a namespace of their own: no name here meets another test file's.
namespace pairwise_tests {

// Points on an integer lattice: squared distances are integers, so no distance comes within 1/600 of
// an edge at k / 2 + 1 / 4 (and float computes them exactly).
Matrix lattice_points(Eigen::Index n, Eigen::Index dim, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Matrix X(n, dim);
  for (Eigen::Index k = 0; k < X.size(); ++k) X.data()[k] = static_cast<double>(rng() % 10);
  return X;
}

std::vector<std::uint64_t> run(const Matrix& X, PairHistogramParams p, std::string_view variant, int workers = 1,
                               itercl::PairHistogramResult* out = nullptr) {
  p.kernel.variant = std::string(variant);
  const std::vector<itercl::Device> devices(static_cast<std::size_t>(workers), test::device());
  PairHistogram h(devices, X, p);
  auto r = h.run();
  CHECK(r.kernel.variant == variant);
  if (out) *out = r;
  return r.counts;
}

// Every bucket within the pairs near its edges of the reference, and in all no more moved than near.
void check_counts(const std::vector<std::uint64_t>& got, const reference::Histogram& ref) {
  REQUIRE(got.size() == ref.counts.size());
  std::uint64_t moved = 0;
  for (std::size_t b = 0; b < got.size(); ++b) {
    const auto diff =
        static_cast<std::uint64_t>(std::llabs(static_cast<long long>(got[b]) - static_cast<long long>(ref.counts[b])));
    CAPTURE(b);
    CHECK(diff <= ref.near_edge[b]);
    moved += diff;
  }
  CHECK(moved <= 2 * ref.near_any);
}

TEST_CASE("histogram: exact counts on a lattice, every variant, uniform bins and explicit edges") {
  const Matrix X = lattice_points(301, 3, 1);  // 301: no multiple of any block
  PairHistogramParams uniform;
  uniform.binning = Binning::uniform(24, 0.25, 12.25);
  PairHistogramParams edges;
  edges.binning = Binning::explicit_edges({-1.0, 0.25, 1.75, 2.25, 5.75, 9.25, 15.75});
  const auto ref_uniform = reference::histogram(X, uniform.binning.bucket_edges(), {}, 0);
  const auto ref_edges = reference::histogram(X, edges.binning.edges, {}, 0);
  CHECK(std::accumulate(ref_edges.counts.begin(), ref_edges.counts.end(), std::uint64_t{0}) == 301 * 300 / 2);
  for (Precision prec : test::kPrecisions)
    for (const std::string_view name : itercl::pairwise::kHistogramVariants) {
      const std::string variant(name);
      CAPTURE(variant);
      CAPTURE(itercl::precision_name(prec));
      uniform.precision = edges.precision = prec;
      CHECK(run(X, uniform, variant) == ref_uniform.counts);
      CHECK(run(X, edges, variant) == ref_edges.counts);
    }
}

TEST_CASE("pair counts: pairs within each radius, exact on a lattice, 2-D") {
  const Matrix X = lattice_points(500, 2, 2);
  PairHistogramParams p;
  // Radii whose squares are no integers, but 0: a lattice's distances are exact and never near them
  // (the library centres the points first, so a distance equal to a radius is a rounding matter).
  p.binning = Binning::radii({0.0, 1.2, 1.5, 3.1, 7.3, 20.0});
  for (const char* variant : {"tiled", "private_hist_balanced"}) {
    const auto got = run(X, p, variant);
    for (std::size_t k = 0; k < p.binning.edges.size(); ++k) {
      std::uint64_t within = 0;
      for (Eigen::Index i = 0; i < X.rows(); ++i)
        for (Eigen::Index j = i + 1; j < X.rows(); ++j)
          within += reference::particle_distance(X, i, j, {}) <= p.binning.edges[k];
      CAPTURE(k);
      CHECK(got[k] == within);
    }
    CHECK(got.back() == 500 * 499 / 2);  // every pair lies within 20 of the others on a 10 x 10 lattice
  }
}

TEST_CASE("pair counts: a distance equal to a radius counts (d <= r, as scipy's count_neighbors)") {
  Matrix X(5, 1);
  X << 0, 1, 2, 3, 4;  // the mean is 2: centred, the points stay exact
  PairHistogramParams p;
  p.binning = Binning::radii({1, 2, 4});
  for (const std::string_view name : itercl::pairwise::kHistogramVariants) {
    const std::string variant(name);
    CAPTURE(variant);
    CHECK(run(X, p, variant) == std::vector<std::uint64_t>{4, 7, 10});
  }
}

TEST_CASE("histogram: random points in a periodic box, minimum image, within rounding of the edges") {
  const std::vector<double> box = {10.0, 12.0, 9.0};
  Matrix X = test::random_matrix(700, 3, 3, 4.0, 5.0);  // some outside the box: images still apply
  PairHistogramParams p;
  p.box = box;
  p.binning = Binning::uniform(50, 0.0, 4.5);
  for (Precision prec : test::kPrecisions) {
    p.precision = prec;
    const double magnitude = X.cwiseAbs().maxCoeff() + 12.0;
    const auto ref = reference::histogram(X, p.binning.bucket_edges(), box, tolerance::edge_band(prec, 3, magnitude));
    CAPTURE(itercl::precision_name(prec));
    for (const char* variant : {"naive", "private_hist_balanced"}) {
      CAPTURE(variant);
      check_counts(run(X, p, variant), ref);
    }
  }
}

TEST_CASE("histogram: rectangles, two workers and 32-bit global counters give the same counts") {
  const Matrix X = lattice_points(1000, 3, 4);
  PairHistogramParams p;
  p.binning = Binning::uniform(30, 0.25, 15.25);
  const auto ref = reference::histogram(X, p.binning.bucket_edges(), {}, 0);
  itercl::PairHistogramResult r;
  p.kernel.work_group_size = 32;
  p.block = 96;
  CHECK(run(X, p, "private_hist", 1, &r) == ref.counts);
  CHECK(r.block == 96);
  CHECK(r.shares.at(0).rectangles == 11 * 12 / 2);
  // Two rectangles in flight on the device: their kernel time is the device's busy time, counted once.
  CHECK(r.shares[0].timings.kernel_s <= r.shares[0].timings.wall_s * 1.01 + 1e-3);
  CHECK(run(X, p, "private_hist_balanced", 2, &r) == ref.counts);
  REQUIRE(r.shares.size() == 2);
  CHECK(r.shares[0].rectangles + r.shares[1].rectangles == 11 * 12 / 2);
  CHECK(r.shares[0].pairs + r.shares[1].pairs == doctest::Approx(1000.0 * 999 / 2));
  CHECK(r.shares[0].rectangles > 0);
  CHECK(r.shares[1].rectangles > 0);
  // Each rectangle's columns split among work-groups, down to a block a group, with the intra-block
  // pairs in the split that holds the anchors' own block; the last rectangles' columns end mid-block.
  for (const int groups_per_unit : {4, 1024}) {
    CAPTURE(groups_per_unit);
    p.kernel.groups_per_unit = groups_per_unit;
    CHECK(run(X, p, "private_hist_balanced", 1) == ref.counts);
    CHECK(run(X, p, "tiled", 1) == ref.counts);
  }
  p.kernel.groups_per_unit = 0;
  p.kernel.global_counter_bits = 32;
  CHECK(run(X, p, "tiled", 1, &r) == ref.counts);
  CHECK(r.kernel.global_counter_bits == 32);
  CHECK(run(X, p, "naive", 2) == ref.counts);
}

TEST_CASE("histogram: one point, two points, and a histogram too large for local memory") {
  PairHistogramParams p;
  p.binning = Binning::uniform(4, 0.0, 2.0);
  CHECK(run(Matrix::Zero(1, 3), p, "tiled") == std::vector<std::uint64_t>(4, 0));
  Matrix two(2, 1);
  two << 0.0, 1.5;
  CHECK(run(two, p, "private_hist_balanced") == std::vector<std::uint64_t>{0, 0, 0, 1});

  const int buckets = static_cast<int>(test::device().info().local_memory / 4) + 1;
  p.binning = Binning::uniform(buckets, 0.0, 1.0);
  PairHistogram fallback({test::device()}, lattice_points(40, 2, 5), p);
  CHECK(fallback.run().kernel.variant == "tiled");
  p.kernel.variant = "private_hist";
  CHECK_THROWS_WITH_AS(PairHistogram({test::device()}, two, p), doctest::Contains("use variant tiled"),
                       itercl::ParamError);
}

TEST_CASE("histogram: bad binning, box and tuning are errors naming the field") {
  const Matrix X = lattice_points(10, 3, 6);
  auto make = [&](PairHistogramParams p) { return PairHistogram({test::device()}, X, p); };
  PairHistogramParams p;
  p.binning = Binning::uniform(0, 0, 1);
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("bins: expected an integer from 1"), itercl::ParamError);
  p.binning = Binning::uniform(5, 2, 1);
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("range"), itercl::ParamError);
  p.binning = Binning::explicit_edges({0, 2, 1});
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("edges: expected increasing"), itercl::ParamError);
  p.binning = Binning::radii({-1});
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("radii"), itercl::ParamError);
  p.binning = Binning::uniform(5, 0, 1);
  p.box = {1, 2};
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("box: 2 side lengths for points of 3"), itercl::ParamError);
  p.box = {1, 0, 1};
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("box"), itercl::ParamError);
  p.box = {};
  p.kernel.variant = "shared";
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("kernel.variant"), itercl::ParamError);
  p.kernel = {};
  p.kernel.even_edges = "cells";
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("kernel.even_edges"), itercl::ParamError);
  p.kernel = {.variant = "tiled", .global_counter_bits = 16};
  CHECK_THROWS_WITH_AS(make(p), doctest::Contains("global_counter_bits"), itercl::ParamError);
}

TEST_CASE("histogram: tuning checks every variant's counts against naive's and proposes the fastest") {
  const auto r = test::check_tune("pair_histogram", {{"n_samples", 48}, {"lattice_side", 4}}, "counts");
  CHECK(r.problem["n_samples"] == 48);
  CHECK(r.candidates.size() == 5);  // the database's choice and the four variants in blocks of 32
  CHECK(r.entry.contains("variant"));
  test::check_tune_problem_error("pair_histogram", {{"lattice_side", 100}}, "lattice_side");
  test::check_tune_problem_error("pair_histogram", {{"bins", 3}}, "bins: unknown field");
}

// The 8^3 integer lattice: its mean (3.5) is exact, so centred its squared distances stay integers, and
// many of its distances equal an edge exactly (sqrt 2, sqrt 3, k sqrt 3, ...).
Matrix cube_lattice() {
  Matrix X(512, 3);
  for (Eigen::Index i = 0; i < 512; ++i)
    X.row(i) << static_cast<double>(i % 8), static_cast<double>(i / 8 % 8), static_cast<double>(i / 64);
  return X;
}

std::vector<long> cube_squared_distances(const Matrix& X) {
  std::vector<long> d2;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = i + 1; j < X.rows(); ++j) d2.push_back(std::lround((X.row(i) - X.row(j)).squaredNorm()));
  return d2;
}

// numpy.histogram's semantics in precision T: the rounded root of each (exact, integer) squared
// distance against the edges rounded to T; bin k holds edge_k <= d < edge_k+1, the last bin closed.
// Radii: the pairs with d <= r_k. `on_edge` counts the distances equal to an edge.
template <class T>
std::vector<std::uint64_t> numpy_counts(const std::vector<long>& d2s, const std::vector<double>& edges_in, bool radii,
                                        std::uint64_t* on_edge = nullptr) {
  std::vector<T> e;
  for (double v : edges_in) e.push_back(static_cast<T>(v));
  const std::size_t buckets = radii ? e.size() : e.size() - 1;
  std::vector<std::uint64_t> counts(buckets, 0);
  for (long s : d2s) {
    const T d = std::sqrt(static_cast<T>(s));
    if (on_edge && std::find(e.begin(), e.end(), d) != e.end()) ++*on_edge;
    if (radii) {
      for (std::size_t k = 0; k < e.size(); ++k) counts[k] += d <= e[k];
      continue;
    }
    if (d < e.front() || d > e.back()) continue;
    const auto k = static_cast<std::size_t>(std::upper_bound(e.begin(), e.end(), d) - e.begin());
    ++counts[std::min(k - 1, buckets - 1)];
  }
  return counts;
}

// The same in the run's precision.
std::vector<std::uint64_t> numpy_counts(Precision p, const std::vector<long>& d2s, const std::vector<double>& edges,
                                        bool radii, std::uint64_t* on_edge = nullptr) {
  return p == Precision::f32 ? numpy_counts<float>(d2s, edges, radii, on_edge)
                             : numpy_counts<double>(d2s, edges, radii, on_edge);
}

TEST_CASE("histogram: a distance equal to an edge lands in the upper bin, as numpy.histogram (8^3 lattice)") {
  const Matrix X = cube_lattice();
  const std::vector<long> d2s = cube_squared_distances(X);
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    // Uniform bins over [0, 7 sqrt 3]: edges k sqrt 3 / 3, 7 sqrt 3 the closed end.
    for (int bins : test::sweep({21, 7, 49})) {
      CAPTURE(bins);
      PairHistogramParams p;
      p.precision = prec;
      p.binning = Binning::uniform(bins, 0, 7 * std::sqrt(3.0));
      std::uint64_t on_edge = 0;
      const auto want = numpy_counts(prec, d2s, p.binning.bucket_edges(), false, &on_edge);
      CHECK(on_edge > 0);
      CHECK(std::accumulate(want.begin(), want.end(), std::uint64_t{0}) == d2s.size());
      for (const char* variant : {"naive", "tiled", "private_hist_balanced"}) {
        CAPTURE(variant);
        CHECK(run(X, p, variant) == want);
      }
    }
    // Explicit edges at lattice distances sqrt m: numpy's rule and the exact one (d2 >= m) agree.
    const std::vector<long> m = {0, 1, 2, 3, 4, 5, 6, 8, 9, 12, 27, 48, 100, 147};
    std::vector<double> edges;
    for (long v : m) edges.push_back(std::sqrt(static_cast<double>(v)));
    std::vector<std::uint64_t> exact(m.size() - 1, 0);
    for (long s : d2s)
      for (std::size_t k = 0; k + 1 < m.size(); ++k)
        exact[k] += s >= m[k] && (s < m[k + 1] || (k + 2 == m.size() && s == m[k + 1]));
    PairHistogramParams p;
    p.precision = prec;
    p.binning = Binning::explicit_edges(edges);
    std::uint64_t on_edge = 0;
    const auto want = numpy_counts(prec, d2s, edges, false, &on_edge);
    CHECK(on_edge > 0);
    CHECK(want == exact);
    for (const std::string_view name : itercl::pairwise::kHistogramVariants) {
      const std::string variant(name);
      CAPTURE(variant);
      CHECK(run(X, p, variant) == exact);
    }
    // Radii equal to lattice distances count the pairs at them (d <= r).
    std::vector<double> radii(edges.begin() + 1, edges.end());
    std::vector<std::uint64_t> within(radii.size(), 0);
    for (long s : d2s)
      for (std::size_t k = 0; k < radii.size(); ++k) within[k] += s <= m[k + 1];
    PairHistogramParams r;
    r.precision = prec;
    r.binning = Binning::radii(radii);
    CHECK(numpy_counts(prec, d2s, radii, true) == within);
    for (const char* variant : {"naive", "tiled", "private_hist"}) {
      CAPTURE(variant);
      CHECK(run(X, r, variant) == within);
    }
  }
}

}  // namespace pairwise_tests

namespace pairwise_tests {

std::vector<std::uint64_t> run_kernel(const Matrix& X, PairHistogramParams p, const itercl::PairHistogramKernel& k) {
  p.kernel = k;
  PairHistogram h({test::device()}, X, p);
  const auto r = h.run();
  CHECK(r.kernel.variant == k.variant);
  if (k.replicas) CHECK(r.kernel.replicas == k.replicas);
  if (k.table_copies) CHECK(r.kernel.table_copies == k.table_copies);
  if (k.even_edges != "auto") CHECK(r.kernel.even_edges == k.even_edges);
  return r.counts;
}

// The pairs within each radius from a reference histogram over [-1, r_0, r_1, ...]: its buckets are
// half-open the other way (r_k-1 <= d < r_k), which only the pairs near a radius can tell apart.
std::vector<std::uint64_t> within_radii(const reference::Histogram& h) {
  std::vector<std::uint64_t> within(h.counts.size(), 0);
  std::partial_sum(h.counts.begin(), h.counts.end(), within.begin());
  return within;
}

// The kernels whose bucket finding and counting differ: one copy of the histogram and of the edge table
// and the guarded uniform check, 8 copies of both with atomics, every pair corrected and the columns split
// a block a work-group (64 groups per compute unit asked for), a copy of the histogram per work-item (no
// atomics) with 4 of the table, and naive's global atomics.
// Histogram copies and uniform checks: the default tier takes the first two (both checks, both variants
// that keep private histograms), the full tier all four.
std::vector<itercl::PairHistogramKernel> counting_kernels() {
  std::vector<itercl::PairHistogramKernel> all = {
      {.variant = "private_hist_balanced",
       .uniform_check = "guarded",
       .work_group_size = 64,
       .replicas = 1,
       .table_copies = 1,
       .groups_per_unit = 1},
      {.variant = "private_hist",
       .uniform_check = "corrected",
       .work_group_size = 64,
       .replicas = 8,
       .table_copies = 8,
       .groups_per_unit = 64},
      {.variant = "private_hist_balanced",
       .uniform_check = "guarded",
       .work_group_size = 64,
       .replicas = 64,
       .table_copies = 4},
      {.variant = "naive", .uniform_check = "corrected", .work_group_size = 64}};
  if (!test::full_tier()) all.resize(2);
  return all;
}

TEST_CASE("histogram: histogram copies, both uniform checks and the bucket lookup count at edges as numpy (8^3)") {
  const Matrix X = cube_lattice();
  const std::vector<long> d2s = cube_squared_distances(X);
  // Edges at every lattice distance sqrt m, m = 0 .. 147: most pairs lie exactly on one, the lookup's
  // cells (2,048, about 14 per bucket) hold several edges each near 0 and none further out.
  std::vector<double> edges;
  for (long m = 0; m <= 147; ++m) edges.push_back(std::sqrt(static_cast<double>(m)));
  std::vector<double> radii;
  for (long m = 1; m <= 20; ++m) radii.push_back(std::sqrt(static_cast<double>(m)));
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    PairHistogramParams uniform, explicit_edges, twenty, one;
    uniform.precision = explicit_edges.precision = twenty.precision = one.precision = prec;
    // 147 bins over [0, 7 sqrt 3]: edges k sqrt 3 / 21, at lattice distances j sqrt 3 for k = 21 j; 147
    // buckets in 64 copies still fit a GPU's 48 KiB of local memory.
    uniform.binning = Binning::uniform(147, 0, 7 * std::sqrt(3.0));
    explicit_edges.binning = Binning::explicit_edges(edges);
    twenty.binning = Binning::radii(radii);
    one.binning = Binning::radii({std::sqrt(3.0)});
    auto numpy = [&](const std::vector<double>& e, bool r) { return numpy_counts(prec, d2s, e, r); };
    const auto want_uniform = numpy(uniform.binning.bucket_edges(), false);
    const auto want_edges = numpy(edges, false);
    const auto want_twenty = numpy(radii, true);
    const auto want_one = numpy({std::sqrt(3.0)}, true);
    CHECK(want_twenty[2] == want_one[0]);
    for (const itercl::PairHistogramKernel& k : counting_kernels()) {
      CAPTURE(k);
      CHECK(run_kernel(X, uniform, k) == want_uniform);
      // The 148 edges' table (with its lookup, 2,197 values) takes the copies that fit: 4 or 8 would not
      // fit a GPU's 48 KiB of local memory beside the histogram's copies.
      itercl::PairHistogramKernel fitting = k;
      fitting.table_copies = 0;
      CHECK(run_kernel(X, explicit_edges, fitting) == want_edges);
      CHECK(run_kernel(X, twenty, k) == want_twenty);
      CHECK(run_kernel(X, one, k) == want_one);
    }
  }
}

TEST_CASE("histogram: evenly spaced radii and edges, by their place and by the lookup, count at edges as numpy (8^3)") {
  const Matrix X = cube_lattice();
  const std::vector<long> d2s = cube_squared_distances(X);
  // Radii 1 .. 12, which many pairs lie exactly on (d = 1, 2, 3 ..), and k sqrt 3 / 3 for k = 1 .. 21,
  // evenly spaced only within rounding, with the pairs at j sqrt 3 on every third; as edges, 0 and the radii.
  std::vector<double> whole, thirds;
  for (int k = 1; k <= 12; ++k) whole.push_back(k);
  for (int k = 1; k <= 21; ++k) thirds.push_back(k * std::sqrt(3.0) / 3);
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    for (const std::vector<double>& radii : test::sweep({thirds, whole})) {
      CAPTURE(radii.size());
      std::vector<double> edges = radii;
      edges.insert(edges.begin(), 0.0);
      PairHistogramParams r, e;
      r.precision = e.precision = prec;
      r.binning = Binning::radii(radii);
      e.binning = Binning::explicit_edges(edges);
      REQUIRE(itercl::pairwise::device_binning(r.binning, prec, true).rule == Binning::Kind::uniform);
      REQUIRE(itercl::pairwise::device_binning(e.binning, prec, true).rule == Binning::Kind::uniform);
      std::uint64_t on_edge = 0;
      const auto want_radii = numpy_counts(prec, d2s, radii, true, &on_edge);
      const auto want_edges = numpy_counts(prec, d2s, edges, false);
      CHECK(on_edge > 0);
      for (itercl::PairHistogramKernel k : counting_kernels())
        for (const char* rule : {"place", "lookup"}) {
          k.even_edges = rule;
          CAPTURE(k);
          CHECK(run_kernel(X, r, k) == want_radii);
          CHECK(run_kernel(X, e, k) == want_edges);
        }
    }
  }
}

TEST_CASE("histogram: 40,000 uniform bins, more than one comparison corrects in float, count as numpy (8^3)") {
  const Matrix X = cube_lattice();
  const std::vector<long> d2s = cube_squared_distances(X);
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    PairHistogramParams p;
    p.precision = prec;
    // In float the bound on x's rounding (the kernel's guard) exceeds half a bin, so the thresholds are
    // walked from the nearest edge; in double one comparison decides. The corner-to-corner pairs lie on
    // the closed last edge.
    p.binning = Binning::uniform(40000, 0, 7 * std::sqrt(3.0));
    const auto want = numpy_counts(prec, d2s, p.binning.bucket_edges(), false);
    CHECK(want.back() > 0);
    for (const char* check : {"guarded", "corrected"}) {
      CAPTURE(check);
      CHECK(run_kernel(X, p, {.variant = "tiled", .uniform_check = check, .work_group_size = 64}) == want);
    }
  }
}

TEST_CASE("histogram: bins narrower than float's spacing of the distances walk the thresholds, count as numpy") {
  // The origin and (2048, j), (j, 2048) for j = 0 .. 64: 130 distances in [2048, 2049], each a multiple of
  // float's spacing there (2^-11), and 65,536 bins over that span, whose float edges fall 16 to a spacing.
  // x = (d - 2048) 65,536 lands on the first of the 16 equal edges where numpy takes the last, 15 buckets
  // on: only walking the thresholds (the host's UNIFORM_WALK) reaches it. In double one comparison decides.
  Matrix X(131, 2);
  X.row(0) << 0, 0;
  for (int j = 0; j <= 64; ++j) {
    X.row(1 + j) << 2048, j;
    X.row(66 + j) << j, 2048;
  }
  const std::vector<long> d2s = cube_squared_distances(X);
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    PairHistogramParams p;
    p.precision = prec;
    p.binning = Binning::uniform(65536, 2048, 2049);
    const auto want = numpy_counts(prec, d2s, p.binning.bucket_edges(), false);
    CHECK(std::accumulate(want.begin(), want.end(), std::uint64_t{0}) == 130);
    for (const char* check : {"guarded", "corrected"}) {
      CAPTURE(check);
      CHECK(run_kernel(X, p, {.variant = "tiled", .uniform_check = check, .work_group_size = 64}) == want);
    }
  }
}

TEST_CASE("histogram: uneven edges and radii far from 0 through the lookup count as numpy, on and between edges") {
  // The origin and (1000, j), j = 0 .. 64: squared distances 10^6 + j^2, exact in float, whose cells over
  // d2 lie far from 0 (the index's rounding is then the largest). Edges and radii at every third of those
  // distances and between them, unevenly.
  Matrix X(66, 2);
  X.row(0) << 0, 0;
  for (int j = 0; j <= 64; ++j) X.row(1 + j) << 1000, j;
  const std::vector<long> d2s = cube_squared_distances(X);
  std::vector<double> edges = {1000.0};
  for (int j = 3; j <= 63; j += 3) edges.push_back(std::sqrt(1e6 + j * j + (j % 2 ? 0.0 : 5.0)));
  edges.push_back(1002.5);
  const std::vector<double> radii(edges.begin() + 1, edges.end());
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    PairHistogramParams by_edges, by_radii;
    by_edges.precision = by_radii.precision = prec;
    by_edges.binning = Binning::explicit_edges(edges);
    by_radii.binning = Binning::radii(radii);
    std::uint64_t on_edge = 0;
    const auto want = numpy_counts(prec, d2s, edges, false, &on_edge);
    CHECK(on_edge >= 10);
    const auto within = numpy_counts(prec, d2s, radii, true);
    for (const char* variant : {"tiled", "private_hist_balanced"}) {
      CAPTURE(variant);
      CHECK(run_kernel(X, by_edges, {.variant = variant, .even_edges = "lookup", .work_group_size = 64}) == want);
      CHECK(run_kernel(X, by_radii, {.variant = variant, .even_edges = "lookup", .work_group_size = 64}) == within);
    }
  }
}

TEST_CASE("histogram: histogram copies and the bucket lookup on random points, uneven edges and radii") {
  const Matrix X = test::random_matrix(600, 3, 11, 0.0, 4.0);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 7.0);
  std::vector<double> edges(100), radii(20);
  for (double& e : edges) e = u(rng);
  for (double& r : radii) r = u(rng);
  std::sort(edges.begin(), edges.end());
  std::sort(radii.begin(), radii.end());
  std::vector<double> radii_edges = {-1.0};
  radii_edges.insert(radii_edges.end(), radii.begin(), radii.end());
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    const double band = tolerance::edge_band(prec, 3, X.cwiseAbs().maxCoeff());
    PairHistogramParams e, r;
    e.precision = r.precision = prec;
    e.binning = Binning::explicit_edges(edges);
    r.binning = Binning::radii(radii);
    const auto ref_edges = reference::histogram(X, edges, {}, band);
    const auto ref_radii = reference::histogram(X, radii_edges, {}, band);
    const auto want_within = within_radii(ref_radii);
    for (const itercl::PairHistogramKernel& k : counting_kernels()) {
      CAPTURE(k);
      itercl::PairHistogramKernel fitting = k;  // 100 edges' table, 1,702 values: the copies that fit
      fitting.table_copies = 0;
      check_counts(run_kernel(X, e, fitting), ref_edges);
      const auto got = run_kernel(X, r, k);
      REQUIRE(got.size() == want_within.size());
      for (std::size_t b = 0; b < got.size(); ++b) {
        CAPTURE(b);
        const auto diff = std::llabs(static_cast<long long>(got[b]) - static_cast<long long>(want_within[b]));
        CHECK(static_cast<std::uint64_t>(diff) <= ref_radii.near_any);
      }
    }
  }
}

}  // namespace pairwise_tests
