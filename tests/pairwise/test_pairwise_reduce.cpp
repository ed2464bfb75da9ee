// All-pairs reductions on the device (issue 5) against the double-precision reference: per-row minima,
// maxima and sums, k nearest neighbours and pairs within a threshold, one and two inputs, rectangles
// smaller than D (diagonal and mirrored ones for one input), one and two workers.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/io.hpp"
#include "itercl/pairwise.hpp"
#include "itercl/tuning.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "reference/pairwise_reference.hpp"
#include "test_support.hpp"

using itercl::Matrix;
using itercl::PairwiseDistances;
using itercl::PairwiseParams;
using itercl::PairwiseReduction;
using itercl::Precision;
using itercl::ReducedDistances;

// Helpers and cases in a namespace of their own: no name here meets another test file's.
namespace pairwise_tests {

// sqeuclidean (no root, so values compare in the accumulated domain) with the quick tiling of
// test_pairwise.cpp and rectangles of 8 x 6 (one input: 8 x 8) over every D below.
PairwiseParams reduce_params(Precision precision) {
  PairwiseParams p;
  p.metric = itercl::Metric::sqeuclidean;
  p.precision = precision;
  p.kernel = {.variant = "tiled", .tile_rows = 4, .tile_cols = 4, .subtiles = 2, .cols_per_item = 2, .slice = 4};
  p.block_rows = 8;
  p.block_cols = 6;
  return p;
}

// One row's candidates in the reference: (value, column), ascending, lower column first among equals.
std::vector<std::pair<double, Eigen::Index>> ranked(const Matrix& D, Eigen::Index i, bool self) {
  std::vector<std::pair<double, Eigen::Index>> out;
  for (Eigen::Index j = 0; j < D.cols(); ++j)
    if (!self || j != i) out.push_back({D(i, j), j});
  std::sort(out.begin(), out.end());
  return out;
}

// The reference and the largest error tolerances.hpp allows any entry of D (the library centres the data
// on X's mean before rounding, so the bound is over the centred values).
struct Expected {
  Matrix D;
  double tol;
  bool self;
  Precision precision;
};

Expected expected(const Matrix& X, const Matrix* Y, Precision precision) {
  const Matrix& B = Y ? *Y : X;
  const Eigen::RowVectorXd shift = X.colwise().mean();
  const Matrix Xs = X.rowwise() - shift, Bs = B.rowwise() - shift;
  double bound = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < B.rows(); ++j)
      bound = std::max(bound, (Xs.row(i).cwiseAbs().array() + Bs.row(j).cwiseAbs().array()).square().sum());
  return {reference::cdist("sqeuclidean", X, B), tolerance::pair_sum(precision, X.cols(), 2, bound), Y == nullptr,
          precision};
}

// Values within the tolerance; an index wherever the reference's gap to the next candidate exceeds it.
void check_rank(double got, std::int64_t at, const std::vector<std::pair<double, Eigen::Index>>& ranks, std::size_t q,
                const Expected& e, Eigen::Index row) {
  CHECK(std::abs(got - ranks[q].first) <= e.tol);
  const bool clear = (q == 0 || ranks[q].first - ranks[q - 1].first > e.tol) &&
                     (q + 1 == ranks.size() || ranks[q + 1].first - ranks[q].first > e.tol);
  if (clear) CHECK(at == ranks[q].second);
  REQUIRE(at >= 0);
  CHECK(std::abs(got - e.D(row, at)) <= e.tol);
}

void check_reduced(const PairwiseReduction& r, const ReducedDistances& got, const Expected& e) {
  CAPTURE(r.form);
  const Eigen::Index n = e.D.rows();
  if (r.form == "threshold") {
    std::size_t sure = 0;
    for (const auto& p : got.pairs) {
      CHECK((!e.self || p.i < p.j));
      CHECK(e.D(p.i, p.j) <= r.threshold + e.tol);
      CHECK(std::abs(p.d - e.D(p.i, p.j)) <= e.tol);
    }
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = e.self ? i + 1 : 0; j < e.D.cols(); ++j) sure += e.D(i, j) <= r.threshold - e.tol;
    CHECK(got.pairs.size() >= sure);
    CHECK(std::is_sorted(got.pairs.begin(), got.pairs.end(),
                         [](const auto& a, const auto& b) { return a.i < b.i || (a.i == b.i && a.j < b.j); }));
    return;
  }
  REQUIRE(got.values.size() == static_cast<std::size_t>(n * got.width));
  for (Eigen::Index i = 0; i < n; ++i) {
    CAPTURE(i);
    const auto ranks = ranked(e.D, i, e.self);
    const auto at = [&](Eigen::Index q) { return static_cast<std::size_t>(i * got.width + q); };
    if (r.form == "row_sum") {
      const double sum =
          std::accumulate(ranks.begin(), ranks.end(), 0.0, [](double s, auto& v) { return s + v.first; });
      // Each term's tolerance, and the device's sum of n terms in its precision.
      const double n_terms = static_cast<double>(ranks.size());
      CHECK(std::abs(got.values[at(0)] - sum) <= n_terms * (e.tol + tolerance::epsilon(e.precision) * sum));
    } else if (r.form == "row_min") {
      check_rank(got.values[at(0)], got.indices[at(0)], ranks, 0, e, i);
    } else if (r.form == "row_max") {
      check_rank(got.values[at(0)], got.indices[at(0)], ranks, ranks.size() - 1, e, i);
    } else {
      for (Eigen::Index q = 0; q < got.width; ++q)
        check_rank(got.values[at(q)], got.indices[at(q)], ranks, static_cast<std::size_t>(q), e, i);
    }
  }
}

PairwiseReduction form(const char* name, int k = 1, double threshold = 0) {
  return {.form = name, .k = k, .threshold = threshold};
}

TEST_CASE("pairwise reduce: every form against the reference, one and two inputs, float and double") {
  const Matrix X = test::random_matrix(37, 6, 31, 1.0, 5.0);
  const Matrix Y = test::random_matrix(23, 6, 32, 1.0, 5.0);
  for (Precision prec : test::kPrecisions) {
    CAPTURE(itercl::precision_name(prec));
    for (const Matrix* second : {static_cast<const Matrix*>(nullptr), &Y}) {
      CAPTURE(second != nullptr);
      PairwiseDistances pairs({test::device()}, X, second, reduce_params(prec));
      const Expected e = expected(X, second, prec);
      for (const PairwiseReduction& r :
           {form("row_min"), form("row_max"), form("row_sum"), form("knn", 5), form("threshold", 1, 4.0)}) {
        if (prec == Precision::f64 && r.form != "row_min" && r.form != "knn") continue;  // fewer builds
        itercl::PairwiseRun run;
        check_reduced(r, pairs.reduce(r, &run), e);
        CHECK(run.shares.at(0).rectangles > 4);
      }
    }
  }
}

TEST_CASE("pairwise reduce: the same result for any rectangles and workers, lower index first among ties") {
  // Small integer coordinates, and each point's negation so that the mean the library subtracts is 0:
  // many equal distances, each computed exactly.
  Matrix X(28, 3);
  X.topRows(14) = test::random_matrix(14, 3, 33, 2.0).array().round();
  X.bottomRows(14) = -X.topRows(14);
  PairwiseParams whole = reduce_params(Precision::f32);
  whole.block_rows = whole.block_cols = 0;
  PairwiseParams cut = reduce_params(Precision::f32);
  cut.block_rows = 5;
  PairwiseDistances one({test::device()}, X, nullptr, whole), two({test::device(), test::device()}, X, nullptr, cut);
  const Expected e = expected(X, nullptr, Precision::f32);
  for (const PairwiseReduction& r : {form("row_min"), form("row_max"), form("knn", 5), form("threshold", 1, 6.0)}) {
    CAPTURE(r.form);
    const ReducedDistances a = one.reduce(r), b = two.reduce(r);
    CHECK(a.values == b.values);
    CHECK(a.indices == b.indices);
    REQUIRE(a.pairs.size() == b.pairs.size());
    for (std::size_t q = 0; q < a.pairs.size(); ++q)
      CHECK((a.pairs[q].i == b.pairs[q].i && a.pairs[q].j == b.pairs[q].j && a.pairs[q].d == b.pairs[q].d));
    if (r.form == "threshold") continue;
    // Exact distances: every index is the reference's, ties by the lower column.
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const auto ranks = ranked(e.D, i, true);
      for (Eigen::Index q = 0; q < a.width; ++q) {
        const std::size_t at = static_cast<std::size_t>(i * a.width + q);
        if (r.form == "row_max") {  // the largest value's lowest column
          const auto first =
              std::find_if(ranks.begin(), ranks.end(), [&](auto& v) { return v.first == ranks.back().first; });
          CHECK(a.indices[at] == first->second);
        } else {
          CHECK(a.indices[at] == ranks[static_cast<std::size_t>(q)].second);
        }
      }
    }
  }
}

TEST_CASE("pairwise reduce: edge cases") {
  const Matrix X = test::random_matrix(10, 4, 34);
  PairwiseDistances pairs({test::device()}, X, nullptr, reduce_params(Precision::f32));
  CHECK_THROWS_WITH_AS(pairs.reduce(form("knn", 10)), doctest::Contains("k: 10 neighbours, but each row has 9"),
                       itercl::ParamError);
  CHECK_THROWS_WITH_AS(pairs.reduce(form("knn", 65)), doctest::Contains("k: expected an integer from 1 to 64"),
                       itercl::ParamError);
  CHECK_THROWS_WITH_AS(pairs.reduce(form("row_median")), doctest::Contains("form: expected one of row_min"),
                       itercl::ParamError);
  CHECK(pairs.reduce(form("threshold", 1, -1.0)).pairs.empty());

  // n = 2, one input: each row's only candidate is the other.
  const Matrix two = test::random_matrix(2, 4, 35);
  PairwiseDistances tiny({test::device()}, two, nullptr, reduce_params(Precision::f32));
  const ReducedDistances lo = tiny.reduce(form("row_min"));
  CHECK(lo.indices == std::vector<std::int64_t>{1, 0});
  CHECK(lo.values[0] == lo.values[1]);
  CHECK(lo.values[0] == doctest::Approx(reference::distance("sqeuclidean", two, 0, two, 1)).epsilon(1e-5));
  const ReducedDistances within = tiny.reduce(form("threshold", 1, 1e9));
  REQUIRE(within.pairs.size() == 1);
  CHECK((within.pairs[0].i == 0 && within.pairs[0].j == 1));
}

TEST_CASE("pairwise reduce: pairs past the first buffers grow them and run the rectangle again") {
  // One rectangle of 400 points, every pair within the threshold: 79,800 pairs, past the first 65,536.
  const Matrix X = test::random_matrix(400, 2, 36);
  PairwiseParams p = reduce_params(Precision::f32);
  p.block_rows = 0;
  PairwiseDistances pairs({test::device()}, X, nullptr, p);
  const ReducedDistances all = pairs.reduce(form("threshold", 1, 1e9));
  CHECK(all.pairs.size() == 400 * 399 / 2);
}

TEST_CASE("pairwise reduce: knn through a config, inline results") {
  test::TempDir tmp;
  const Matrix X = test::random_matrix(30, 4, 37);
  itercl::save_npy(tmp / "x.npy", X);
  nlohmann::json config = {{"algorithm", "pairwise_distances"},
                           {"data", {{"path", "x.npy"}}},
                           {"params",
                            {{"metric", "sqeuclidean"},
                             {"form", "knn"},
                             {"k", 3},
                             {"block_rows", 8},
                             {"kernel", reduce_params(Precision::f32).kernel}}},
                           {"output", "r.json"}};
  const auto out = itercl::run_experiment(config, "c.json", tmp.path);
  const auto& res = out.results["result"];
  REQUIRE(res["distances"].size() == 30);
  REQUIRE(res["indices"][0].size() == 3);
  const Expected e = expected(X, nullptr, Precision::f32);
  for (Eigen::Index i = 0; i < 30; ++i) {
    const auto ranks = ranked(e.D, i, true);
    for (std::size_t q = 0; q < 3; ++q)
      check_rank(res["distances"][i][q].get<double>(), res["indices"][i][q].get<std::int64_t>(), ranks, q, e, i);
  }
  // k = 1 keeps the n x k shape: rows of one, not a flat list (row_min's form).
  config["params"]["k"] = 1;
  const auto one = itercl::run_experiment(config, "c.json", tmp.path).results["result"];
  REQUIRE(one["distances"].size() == 30);
  REQUIRE(one["indices"].size() == 30);
  CHECK(one["distances"][0].is_array());
  CHECK(one["distances"][0].size() == 1);
  CHECK(one["indices"][29].size() == 1);
  config["params"]["k"] = 3;
  config["params"]["form"] = "row_min";
  CHECK_THROWS_WITH_AS(itercl::run_experiment(config, "c.json", tmp.path),
                       doctest::Contains("params.k: only form knn takes k"), itercl::InputError);
  config["params"].erase("k");
  const auto row_min = itercl::run_experiment(config, "c.json", tmp.path).results["result"];
  CHECK(row_min["min"].size() == 30);
  CHECK(row_min["min"][0].is_number());  // one value a row: a list
}

}  // namespace pairwise_tests

namespace pairwise_tests {

// The fused k nearest (cl/pairwise_knn.cl) with a small tile of its own: 2 x 8 work-items of 4 x 4 entries,
// 8 rows by 32 columns, so that every row's candidates are spread over 8 work-items' lists (each seeing
// fewer columns than k = 64) and merged at the end; the distances' tile (for the tiles) is another.
PairwiseParams fused_params(Precision precision, itercl::Metric metric = itercl::Metric::sqeuclidean) {
  PairwiseParams p;
  p.metric = metric;
  p.precision = precision;
  p.kernel = {.variant = "auto",
              .knn = "fused",
              .tile_rows = 4,
              .tile_cols = 4,
              .subtiles = 2,
              .cols_per_item = 2,
              .slice = 4,
              .knn_tile_rows = 2,
              .knn_tile_cols = 8,
              .knn_subtiles = 4,
              .knn_cols_per_item = 4,
              .knn_slice = 4};
  return p;
}

// Form rows with 8 work-items of 2 rows, 2 columns a step: 16 rows a group, the 64 columns staged at a time
// cut by the rectangle's edge.
PairwiseParams rows_params(Precision precision, itercl::Metric metric = itercl::Metric::sqeuclidean) {
  PairwiseParams p = fused_params(precision, metric);
  p.kernel.knn = "rows";
  p.kernel.knn_tile_rows = 8, p.kernel.knn_tile_cols = 1, p.kernel.knn_subtiles = 2, p.kernel.knn_cols_per_item = 2;
  return p;
}

TEST_CASE(
    "pairwise knn, every form of the library's table: the reference's neighbours, one and two inputs, "
    "k = 1 and 64, rectangles") {
  // n not a multiple of the tiles' rows or columns; d not a multiple of the slice or of 4.
  const Matrix X = test::random_matrix(77, 9, 38, 1.0, 5.0);
  const Matrix Y = test::random_matrix(70, 9, 39, 1.0, 5.0);
  for (const itercl::pairwise::KnnForm& f : itercl::pairwise::kKnnTable)
    for (Precision prec : test::kPrecisions) {
      const std::string knn(f.name);
      for (const Matrix* second : {static_cast<const Matrix*>(nullptr), &Y}) {
        CAPTURE(knn);
        CAPTURE(itercl::precision_name(prec));
        CAPTURE(second != nullptr);
        const Expected e = expected(X, second, prec);
        for (const bool cut : {false, true}) {
          CAPTURE(cut);
          PairwiseParams params = f.rows_in_registers ? rows_params(prec) : fused_params(prec);
          params.kernel.knn = knn;
          // Rectangles of 16 x 24 (one input: 16 x 16): rows merged on the host from several of them, each
          // with fewer candidates than k = 64 (padded with INFINITY and -1 as reduce_knn pads).
          if (cut) params.block_rows = 16, params.block_cols = 24;
          PairwiseDistances pairs({test::device()}, X, second, params);
          REQUIRE(pairs.kernel().knn == knn);
          // Each k is a build of its own (slow on PoCL): k = 64; in the full tier k = 1 too, in float.
          for (int k : prec == Precision::f32 && test::full_tier() ? std::vector<int>{1, 64} : std::vector<int>{64}) {
            CAPTURE(k);
            itercl::PairwiseRun run;
            check_reduced(form("knn", k), pairs.reduce(form("knn", k), &run), e);
            if (!f.entry) continue;  // tiles: the distances' rectangles and build, reduced (tests below)
            // The fused search's own rectangles (one input: all 25, each a search of its own) and build.
            CHECK(run.shares.at(0).rectangles == (cut ? (second ? 15 : 25) : 1));
            CHECK(run.build_options.find("-D K=" + std::to_string(k)) != std::string::npos);
            if (f.rows_in_registers) {  // 2 rows a work-item where 8 x 2 rows a group give 2 groups a unit, else 1
              const std::size_t groups = ((cut ? 16 : 77) + 15) / 16;
              const bool two = groups >= 2 * std::size_t{test::device().info().compute_units};
              CHECK(run.build_options.find(two ? "-D RPI=2" : "-D RPI=1") != std::string::npos);
            }
          }
        }
      }
    }
}

TEST_CASE("pairwise knn rows: few rows against many columns split the columns, merged to the same lists") {
  // 10 rows make 2 groups of 8 work-items at 1 row each, fewer than 2 a compute unit on any device: the 700
  // columns are cut into splits (PoCL's 2 units: 2; a GPU: up to 16), each split's lists merged on the device.
  const Matrix X = test::random_matrix(10, 9, 41, 1.0, 5.0);
  const Matrix Y = test::random_matrix(700, 9, 42, 1.0, 5.0);
  const Expected e = expected(X, &Y, Precision::f32);
  PairwiseDistances squared({test::device()}, X, &Y, rows_params(Precision::f32));
  PairwiseDistances rooted({test::device()}, X, &Y, rows_params(Precision::f32, itercl::Metric::euclidean));
  for (int k : {1, 64}) {
    CAPTURE(k);
    itercl::PairwiseRun run;
    const ReducedDistances got = squared.reduce(form("knn", k), &run);
    check_reduced(form("knn", k), got, e);
    const std::size_t at = run.build_options.find("-D SPLITS=");
    REQUIRE(at != std::string::npos);
    CHECK(std::stoi(run.build_options.substr(at + 10)) > 1);
    CHECK(run.build_options.find("-D RPI=1") != std::string::npos);
    // The root is taken after the merge, on the same ranking.
    const ReducedDistances root = rooted.reduce(form("knn", k));
    CHECK(root.indices == got.indices);
    for (std::size_t q = 0; q < got.values.size(); ++q)
      CHECK(root.values[q] == doctest::Approx(std::sqrt(got.values[q])));
  }
}

TEST_CASE("pairwise knn fused and rows: euclidean, the tiles' result among ties, every candidate when k = n - 1") {
  // Small integer coordinates and their negations (the mean the library subtracts is 0): squared norms
  // and inner products are exact, so both forms give the same distances and ties go to the lower column.
  Matrix X(41, 3);
  X.topRows(20) = test::random_matrix(20, 3, 40, 2.0).array().round();
  X.middleRows(20, 20) = -X.topRows(20);
  X.row(40).setZero();
  PairwiseParams fused = fused_params(Precision::f32, itercl::Metric::euclidean);
  PairwiseParams tiles = fused;
  tiles.kernel.knn = "tiles";
  PairwiseDistances a({test::device()}, X, nullptr, fused), b({test::device()}, X, nullptr, tiles);
  PairwiseDistances c({test::device()}, X, nullptr, rows_params(Precision::f32, itercl::Metric::euclidean));
  const Expected e = expected(X, nullptr, Precision::f32);
  for (int k : {1, 40}) {
    CAPTURE(k);
    const ReducedDistances got = a.reduce(form("knn", k)), want = b.reduce(form("knn", k));
    CHECK(got.values == want.values);
    CHECK(got.indices == want.indices);
    const ReducedDistances by_rows = c.reduce(form("knn", k));
    CHECK(by_rows.values == want.values);
    CHECK(by_rows.indices == want.indices);
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const auto ranks = ranked(e.D, i, true);
      for (Eigen::Index q = 0; q < k; ++q) {
        const std::size_t at = static_cast<std::size_t>(i * k + q);
        CHECK(got.indices[at] == ranks[static_cast<std::size_t>(q)].second);
        CHECK(got.values[at] == doctest::Approx(std::sqrt(ranks[static_cast<std::size_t>(q)].first)).epsilon(1e-6));
      }
    }
  }
  // Two workers and rows cut in blocks: the same lists.
  fused.block_rows = 9;
  PairwiseDistances two({test::device(), test::device()}, X, nullptr, fused);
  CHECK(two.reduce(form("knn", 40)).indices == a.reduce(form("knn", 40)).indices);
}

TEST_CASE("pairwise knn fused: which kernel form knn runs, and what fused refuses") {
  const Matrix X = test::random_matrix(12, 4, 41);
  auto make = [&](PairwiseParams p) { return PairwiseDistances({test::device()}, X, nullptr, p); };
  PairwiseParams direct = fused_params(Precision::f32);
  direct.kernel.knn = "auto";
  direct.kernel.variant = "tiled";  // direct sums asked for by name: only the tiles compute them
  CHECK(make(direct).kernel().knn == "tiles");
  PairwiseParams l1 = fused_params(Precision::f32, itercl::Metric::cityblock);
  CHECK_THROWS_WITH_AS(make(l1), doctest::Contains("kernel.knn: fused computes euclidean and sqeuclidean"),
                       itercl::ParamError);
  l1.kernel.knn = "auto";
  CHECK(make(l1).kernel().knn == "tiles");
  PairwiseParams odd = fused_params(Precision::f32);
  odd.kernel.knn_subtiles = 2;
  CHECK_THROWS_WITH_AS(make(odd), doctest::Contains("multiples of 4, got 2 and 4"), itercl::ParamError);
  odd.kernel.knn = "auto";  // the tiles, where fused cannot run
  CHECK(make(odd).kernel().knn == "tiles");
  // A knn tile field left unset takes the database's where the database names this form (a GPU's entry may),
  // else the form's own default (fused 32 x 8 of 4 x 8, slice 8; rows 128 work-items of 2 rows, 4 a step).
  const nlohmann::json tuned = itercl::tuned_parameters("pairwise", test::device().info()).values;
  const auto database = [&](const std::string& knn, const char* field, int otherwise) {
    return tuned.value("knn", "") == knn ? tuned.value(field, otherwise) : otherwise;
  };
  PairwiseParams inherit = fused_params(Precision::f32);
  inherit.kernel.knn_tile_rows = inherit.kernel.knn_subtiles = inherit.kernel.knn_slice = 0;
  const itercl::PairwiseKernel inherited = make(inherit).kernel();
  CHECK(inherited.knn_tile_rows == database("fused", "knn_tile_rows", 32));
  CHECK(inherited.knn_tile_cols == 8);  // as given
  CHECK(inherited.knn_subtiles == database("fused", "knn_subtiles", 4));
  CHECK(inherited.knn_slice == database("fused", "knn_slice", 8));
  PairwiseParams wide = fused_params(Precision::f32);
  wide.kernel.knn_tile_rows = 4096;
  CHECK_THROWS_WITH_AS(make(wide), doctest::Contains("kernel.knn_tile_rows"), itercl::ParamError);
  // rows: its own default shape where nothing sets one; one work-item a row set; few dimensions.
  PairwiseParams rows;
  rows.kernel.knn = "rows";
  const itercl::PairwiseKernel own = make(rows).kernel();
  CHECK(std::tuple(own.knn_tile_rows, own.knn_tile_cols, own.knn_subtiles, own.knn_cols_per_item) ==
        std::tuple(database("rows", "knn_tile_rows", 128), database("rows", "knn_tile_cols", 1),
                   database("rows", "knn_subtiles", 2), database("rows", "knn_cols_per_item", 4)));
  PairwiseParams two_cols = rows_params(Precision::f32);
  two_cols.kernel.knn_tile_cols = 2;
  CHECK_THROWS_WITH_AS(make(two_cols), doctest::Contains("knn_tile_cols must be 1"), itercl::ParamError);
  two_cols.kernel.knn_tile_cols = 1, two_cols.kernel.knn_cols_per_item = 3;
  CHECK_THROWS_WITH_AS(make(two_cols), doctest::Contains("a power of two, got 3"), itercl::ParamError);
  const Matrix many = test::random_matrix(12, 97, 42);  // 2 rows x 100 padded dimensions: 200 registers
  CHECK_THROWS_WITH_AS(PairwiseDistances({test::device()}, many, nullptr, rows_params(Precision::f32)),
                       doctest::Contains("2 x 100 is 200 registers, more than 192"), itercl::ParamError);
  odd.kernel.knn = "nearest";
  CHECK_THROWS_WITH_AS(make(odd), doctest::Contains("kernel.knn"), itercl::ParamError);
}

}  // namespace pairwise_tests
