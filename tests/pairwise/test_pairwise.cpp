// All-pairs distances on the device against scipy's definitions in double: every metric, both kernels,
// one and two inputs, awkward shapes and tunings, rectangles, several workers.
#include <doctest/doctest.h>

#include <set>

#include "itercl/error.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "reference/pairwise_reference.hpp"
#include "test_support.hpp"
#include "tune_checks.hpp"

using itercl::Matrix;
using itercl::Metric;
using itercl::PairwiseDistances;
using itercl::PairwiseKernel;
using itercl::PairwiseParams;
using itercl::Precision;

// Helpers and cases in a namespace of their own: no name here meets another test file's.
namespace pairwise_tests {

const char* const kMetrics[] = {"euclidean", "sqeuclidean", "cityblock", "minkowski", "chebyshev", "cosine", "dot"};

PairwiseParams params_for(const std::string& metric, Precision precision, const char* variant = "auto", double p = 2) {
  PairwiseParams params;
  params.metric = itercl::parse_metric(metric);
  params.p = p;
  params.precision = precision;
  params.kernel.variant = variant;
  return params;
}

// The same with a small tiling (4 x 4 work-items, 2 subtiles and 2 columns each, slices of 4): it runs
// every loop of the tiled kernel with a fraction of the default's unrolled code, so builds stay quick on
// PoCL (a default tiled build takes it about 10 s). The default tuning is tested where noted.
PairwiseParams quick(PairwiseParams params) {
  const std::string variant = params.kernel.variant == "auto" ? "tiled" : params.kernel.variant;
  if (variant != "naive")
    params.kernel = {.variant = variant, .tile_rows = 4, .tile_cols = 4, .subtiles = 2, .cols_per_item = 2, .slice = 4};
  return params;
}

// Compares D with the reference entry by entry in the accumulated domain (tolerances.hpp). `shift` is
// what the library subtracts before rounding (X's mean for translation-invariant metrics).
void check_matrix(const std::string& metric, const Matrix& X, const Matrix& Y, const Matrix& D, Precision prec,
                  double p = 2) {
  REQUIRE(D.rows() == X.rows());
  REQUIRE(D.cols() == Y.rows());
  const bool invariant = metric != "cosine" && metric != "dot";
  const Eigen::RowVectorXd shift =
      invariant ? Eigen::RowVectorXd(X.colwise().mean()) : Eigen::RowVectorXd::Zero(X.cols());
  const Matrix Xs = X.rowwise() - shift, Ys = Y.rowwise() - shift;
  int wrong = 0;
  std::string first;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < Y.rows(); ++j) {
      const double ref = reference::distance(metric, X, i, Y, j, p), got = D(i, j);
      double a = got, b = ref, power = 2, bound = 0;
      const Eigen::ArrayXd mag = Xs.row(i).cwiseAbs().array() + Ys.row(j).cwiseAbs().array();
      if (metric == "euclidean") a = got * got, b = ref * ref;
      if (metric == "minkowski") a = std::pow(got, p), b = std::pow(ref, p), power = p;
      if (metric == "cityblock" || metric == "chebyshev") power = 1;
      if (metric == "chebyshev")
        bound = mag.maxCoeff() / static_cast<double>(X.cols());
      else if (metric == "cosine")
        bound = 1;  // of the normalised inner product
      else if (metric == "dot")
        bound = (X.row(i).cwiseAbs().array() * Y.row(j).cwiseAbs().array()).sum();
      else
        bound = mag.pow(power).sum();
      const double tol = tolerance::pair_sum(prec, X.cols(), power, bound, metric == "minkowski");
      if (!(std::abs(a - b) <= tol) && !wrong++)
        first = "D(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + std::to_string(got) + ", reference " +
                std::to_string(ref) + ", tolerance " + std::to_string(tol);
    }
  INFO(first);
  CHECK(wrong == 0);
}

TEST_CASE("pairwise: every metric, tiled and naive, one and two inputs, float and double") {
  // n not a multiple of any tile; d past one slice and not a multiple of it; a quick() tiling.
  const Matrix X = test::random_matrix(77, 45, 1, 2.0, 5.0);
  const Matrix Y = test::random_matrix(50, 45, 2, 2.0, 5.0);
  for (const char* metric : kMetrics) {
    const double p = std::string(metric) == "minkowski" ? 3.5 : 2;
    for (Precision prec : test::kPrecisions) {
      for (const char* variant : {"tiled", "naive"}) {
        if (std::string(variant) == "naive" && prec == Precision::f64) continue;  // one precision is enough for it
        CAPTURE(metric);
        CAPTURE(variant);
        CAPTURE(itercl::precision_name(prec));
        const PairwiseParams params = quick(params_for(metric, prec, variant, p));
        PairwiseDistances one({test::device()}, X, nullptr, params);
        CHECK(one.kernel().variant == variant);
        const Matrix D = one.matrix();
        check_matrix(metric, X, X, D, prec, p);
        CHECK(D == D.transpose());  // mirrored exactly
        if (std::string(metric) != "dot") CHECK(D.diagonal().isZero(0));
        PairwiseDistances two({test::device()}, X, &Y, params);
        check_matrix(metric, X, Y, two.matrix(), prec, p);
      }
    }
  }
}

TEST_CASE("pairwise: every variant of the library's table, sqeuclidean in float") {
  // A variant added to the table (pairwise_kernel.hpp) runs here the day it is added; sqeuclidean, which
  // every variant computes, in the quick tiling the tests above build.
  const Matrix X = test::random_matrix(37, 11, 7, 2.0, 5.0);
  for (const itercl::pairwise::DistanceVariant& v : itercl::pairwise::kDistanceTable) {
    const std::string name(v.name);
    CAPTURE(name);
    PairwiseDistances d({test::device()}, X, nullptr, quick(params_for("sqeuclidean", Precision::f32, name.c_str())));
    CHECK(d.kernel().variant == name);
    check_matrix("sqeuclidean", X, X, d.matrix(), Precision::f32);
  }
}

TEST_CASE("pairwise: the expanded form, minkowski orders, d = 1, one vector") {
  const Matrix X = test::random_matrix(130, 9, 3, 1.0, 100.0);  // far from the origin: centring matters
  for (const char* metric : {"euclidean", "sqeuclidean"})
    for (Precision prec : test::kPrecisions) {
      CAPTURE(metric);
      CAPTURE(itercl::precision_name(prec));
      // The default tuning once; the quick tiling for the others.
      const PairwiseParams params = params_for(metric, prec, "expanded");
      PairwiseDistances e({test::device()}, X, nullptr,
                          std::string(metric) == "euclidean" && prec == Precision::f32 ? params : quick(params));
      const Matrix D = e.matrix();
      check_matrix(metric, X, X, D, prec);
      CHECK(D.diagonal().isZero(0));
    }
  for (double p : test::sweep({0.5, 1.0, 2.0, 7.0})) {
    CAPTURE(p);
    PairwiseDistances m({test::device()}, X, nullptr, quick(params_for("minkowski", Precision::f64, "auto", p)));
    check_matrix("minkowski", X, X, m.matrix(), Precision::f64, p);
  }
  const Matrix line = test::random_matrix(33, 1, 4);
  check_matrix(
      "cityblock", line, line,
      PairwiseDistances({test::device()}, line, nullptr, quick(params_for("cityblock", Precision::f64))).matrix(),
      Precision::f64);
  const Matrix single = test::random_matrix(1, 5, 5), others = test::random_matrix(3, 5, 6);
  PairwiseDistances s({test::device()}, single, &others, quick(params_for("chebyshev", Precision::f64)));
  check_matrix("chebyshev", single, others, s.matrix(), Precision::f64);
  CHECK(PairwiseDistances({test::device()}, single, nullptr, params_for("euclidean", Precision::f32)).matrix() ==
        Matrix::Zero(1, 1));
}

TEST_CASE("pairwise: tunings that divide nothing give the reference too") {
  const Matrix X = test::random_matrix(101, 19, 7, 1.0, -3.0);
  const PairwiseKernel tunings[] = {
      {.variant = "tiled", .tile_rows = 3, .tile_cols = 5, .subtiles = 3, .cols_per_item = 2, .slice = 7},
      {.variant = "tiled", .tile_rows = 16, .tile_cols = 8, .subtiles = 1, .cols_per_item = 1, .slice = 50},
      {.variant = "naive", .tile_rows = 7, .tile_cols = 3}};
  for (const PairwiseKernel& k : test::sweep(tunings)) {
    CAPTURE(k);
    PairwiseParams params = params_for("sqeuclidean", Precision::f32);
    params.kernel = k;
    PairwiseDistances d({test::device()}, X, nullptr, params);
    CHECK(d.kernel().tile_rows == k.tile_rows);
    check_matrix("sqeuclidean", X, X, d.matrix(), Precision::f32);
  }
}

TEST_CASE("pairwise: float rows read in place (RowsView) give the reference distances, one input and two") {
  // float values, so that the reference sees exactly the values the view holds
  const Matrix X = test::random_matrix(97, 5, 21, 2.0, 40.0).cast<float>().cast<double>();
  const Matrix Y = test::random_matrix(60, 5, 22, 2.0, 40.0).cast<float>().cast<double>();
  using RowsF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowsF xf = X.cast<float>(), yf = Y.cast<float>();
  const itercl::RowsView xv(xf.data(), xf.rows(), xf.cols()), yv(yf.data(), yf.rows(), yf.cols());
  for (const char* metric : {"euclidean", "cityblock", "cosine"}) {
    for (Precision prec : test::kPrecisions) {
      CAPTURE(metric);
      CAPTURE(itercl::precision_name(prec));
      const PairwiseParams params = params_for(metric, prec);
      check_matrix(metric, X, X, PairwiseDistances({test::device()}, xv, nullptr, params).matrix(), prec);
      check_matrix(metric, X, Y, PairwiseDistances({test::device()}, xv, &yv, params).matrix(), prec);
    }
  }
}

TEST_CASE("pairwise: rectangles and several workers give the one-rectangle result exactly") {
  const Matrix X = test::random_matrix(203, 12, 8), Y = test::random_matrix(150, 12, 9);
  const PairwiseParams base = params_for("cityblock", Precision::f32);
  const Matrix whole = PairwiseDistances({test::device()}, X, nullptr, base).matrix();
  const Matrix whole2 = PairwiseDistances({test::device()}, X, &Y, base).matrix();

  PairwiseParams cut = base;
  cut.block_rows = 40;
  cut.block_cols = 33;
  itercl::PairwiseRun run;
  CHECK(PairwiseDistances({test::device()}, X, nullptr, cut).matrix(&run) == whole);
  CHECK(run.block_cols == 40);  // one input: square rectangles
  CHECK(run.shares.at(0).rectangles == 6 * 7 / 2);
  CHECK(run.pairs == 203.0 * 202 / 2 + 203);
  CHECK(PairwiseDistances({test::device()}, X, &Y, cut).matrix(&run) == whole2);
  CHECK(run.shares.at(0).rectangles == 6 * 5);
  CHECK(run.pairs == 203.0 * 150);

  // Seed 003's dynamic hand-out, tested with two workers (two queues, threads and buffer sets) on the
  // device under test: shares add up, both take rectangles, the matrix is the same.
  cut.block_rows = 8;
  PairwiseDistances two({test::device(), test::device()}, X, nullptr, cut);
  CHECK(two.matrix(&run) == whole);
  REQUIRE(run.shares.size() == 2);
  CHECK(run.shares[0].device != run.shares[1].device);
  CHECK(run.shares[0].rectangles + run.shares[1].rectangles == 26 * 27 / 2);
  CHECK(run.shares[0].pairs + run.shares[1].pairs == run.pairs);
  CHECK(run.shares[0].rectangles > 0);
  CHECK(run.shares[1].rectangles > 0);
  for (const auto& share : run.shares) CHECK(share.timings.kernel_s > 0);
}

TEST_CASE("pairwise: rectangles reach the sink once each, the condensed order is scipy's") {
  const Matrix X = test::random_matrix(57, 3, 10);
  PairwiseParams params = params_for("euclidean", Precision::f64);
  params.block_rows = 16;
  PairwiseDistances d({test::device()}, X, nullptr, params);
  std::vector<double> condensed(57 * 56 / 2, -1);
  std::mutex mutex;
  std::set<std::pair<Eigen::Index, Eigen::Index>> seen;
  d.run([&](const itercl::PairTile& t) {
    {
      std::lock_guard lock(mutex);
      CHECK(seen.insert({t.row0, t.col0}).second);
    }
    CHECK(t.row0 <= t.col0);
    for (Eigen::Index i = 0; i < t.rows; ++i)
      for (Eigen::Index j = 0; j < t.cols; ++j)
        if (t.row0 + i < t.col0 + j)
          condensed[itercl::condensed_index(57, static_cast<std::size_t>(t.row0 + i),
                                            static_cast<std::size_t>(t.col0 + j))] = t(i, j);
  });
  CHECK(seen.size() == 4 * 5 / 2);
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < 57; ++i)
    for (Eigen::Index j = i + 1; j < 57; ++j, ++k)
      CHECK(condensed[k] == doctest::Approx(reference::distance("euclidean", X, i, X, j)).epsilon(1e-12));
}

TEST_CASE("pairwise: bad inputs and parameters are errors that say what is wrong") {
  const Matrix X = test::random_matrix(20, 4, 11);
  auto make = [&](const Matrix& data, PairwiseParams p) {
    return PairwiseDistances({test::device()}, data, nullptr, p);
  };
  Matrix zero_row = X;
  zero_row.row(7).setZero();
  CHECK_THROWS_WITH_AS(make(zero_row, params_for("cosine", Precision::f32)), doctest::Contains("row 7 is all zeros"),
                       itercl::InputError);
  CHECK_THROWS_WITH_AS(make(X, params_for("minkowski", Precision::f32, "auto", -1)), doctest::Contains("p: expected"),
                       itercl::ParamError);
  CHECK_THROWS_WITH_AS(make(X, params_for("cityblock", Precision::f32, "expanded")),
                       doctest::Contains("expanded computes euclidean and sqeuclidean only"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(make(X, params_for("cityblock", Precision::f32, "fast")), doctest::Contains("kernel.variant"),
                       itercl::ParamError);
  CHECK_THROWS_WITH_AS(itercl::parse_metric("manhattan"), doctest::Contains("expected one of euclidean"),
                       itercl::ParamError);
  Matrix huge = X;
  huge(3, 2) = 1e30;
  CHECK_THROWS_WITH_AS(make(huge, params_for("sqeuclidean", Precision::f32)), doctest::Contains("overflow"),
                       itercl::InputError);
  CHECK_NOTHROW(make(huge, quick(params_for("sqeuclidean", Precision::f64))));
  const Matrix other = test::random_matrix(5, 3, 12);
  CHECK_THROWS_WITH_AS(PairwiseDistances({test::device()}, X, &other, params_for("euclidean", Precision::f32)),
                       doctest::Contains("second input"), itercl::InputError);
  PairwiseParams big_tile = params_for("euclidean", Precision::f32);
  big_tile.kernel = {
      .variant = "tiled", .tile_rows = 1024, .tile_cols = 1024, .subtiles = 1, .cols_per_item = 1, .slice = 1};
  CHECK_THROWS_WITH_AS(make(X, big_tile), doctest::Contains("kernel.tile_rows"), itercl::ParamError);
}

TEST_CASE("pairwise: tuning checks every tiling against naive and proposes the fastest correct one") {
  // 8 vectors of 4 dimensions: only the smallest tiling fits, so few programs are built.
  const auto r = test::check_tune("pairwise", {{"n_samples", 8}, {"n_features", 4}}, "naive's");
  CHECK(r.candidates.size() == 2);       // the database's choice and the one tiling that fits
  CHECK(r.entry["variant"] == "tiled");  // expanded is an accuracy choice, left to the user
  CHECK(r.entry.contains("tile_rows"));
  CHECK(!r.entry.contains("knn"));  // timed on the distances: form knn's choice is left to its measurements
  test::check_tune_problem_error("pairwise", {{"metric", "cosine"}}, "metric");
  test::check_tune_problem_error("pairwise", {{"n_samples", 0}}, "n_samples");
}

}  // namespace pairwise_tests
