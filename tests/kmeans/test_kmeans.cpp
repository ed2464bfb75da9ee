// KMeans::fit on the device: known results, the reference Lloyd loop, scikit-learn's semantics.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"
#include "itercl/kmeans.hpp"
#include "reference/kmeans_reference.hpp"
#include "test_support.hpp"

using itercl::KMeans;
using itercl::KMeansInit;
using itercl::KMeansParams;
using itercl::Matrix;
using itercl::Precision;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace kmeans_tests {

KMeansParams kmeans_given(const Matrix& init, Precision p, const std::string& variant = "auto") {
  KMeansParams params;
  params.n_clusters = static_cast<int>(init.rows());
  params.init = KMeansInit::given;
  params.init_centroids = init;
  params.precision = p;
  params.kernel.variant = variant;
  return params;
}

void check_close(const Matrix& got, const Matrix& expected, double relative) {
  REQUIRE(got.rows() == expected.rows());
  REQUIRE(got.cols() == expected.cols());
  CHECK((got - expected).norm() <= relative * expected.norm());
}

TEST_CASE("scikit-learn's relocation example: the empty cluster moves and inertia ends at 0.25") {
  Matrix X(4, 2), init(2, 2), expected(2, 2);
  X << 0, 0, .5, 0, .5, 1, 1, 1;
  init << .5, .5, 3, 3;
  expected << .25, 0, .75, 1;
  for (Precision p : test::kPrecisions) {
    for (const std::string& variant : test::kVariants) {
      if (!test::runs(variant, p)) continue;
      CAPTURE(variant);
      CAPTURE(itercl::precision_name(p));
      const auto r = KMeans(test::device(), kmeans_given(init, p, variant)).fit(X);
      CHECK(r.n_relocated == 1);
      CHECK(r.inertia == doctest::Approx(0.25).epsilon(1e-12));
      check_close(r.centroids, expected, 1e-12);
      CHECK(r.labels == std::vector<std::int32_t>{0, 0, 1, 1});
      CHECK(r.converged);
      CHECK(r.centroids.allFinite());
    }
  }
}

TEST_CASE("UEF s1 from its published centroids keeps 15 clusters and converges as the reference does") {
  const Matrix X = itercl::load_matrix(test::source_dir() / "datasets/uef/s1.data.gz");
  const Matrix init = itercl::load_matrix(test::source_dir() / "datasets/uef/s1-cb.txt");
  REQUIRE(X.rows() == 5000);
  REQUIRE(init.rows() == 15);
  const double tol = itercl::kmeans_scaled_tol(X, 1e-4);
  const auto expected = reference::lloyd(X, {}, init, 300, tol);
  for (Precision p : test::kPrecisions) {
    CAPTURE(itercl::precision_name(p));
    const auto r = KMeans(test::device(), kmeans_given(init, p)).fit(X);
    CHECK(r.converged);
    CHECK(r.n_relocated == 0);
    std::set<std::int32_t> used(r.labels.begin(), r.labels.end());
    CHECK(used.size() == 15);
    CHECK(r.n_iter == expected.n_iter);
    CHECK(r.inertia == doctest::Approx(expected.inertia).epsilon(tolerance::objective(p)));
    check_close(r.centroids, expected.centroids, tolerance::objective(p));
  }
}

TEST_CASE("every variant follows the reference Lloyd loop iteration by iteration") {
  const Matrix X =
      itercl::make_blobs({.n_samples = 3001, .n_features = 3, .centers = 8, .cluster_std = 1.5, .random_state = 3});
  Matrix init(8, 3);
  for (Eigen::Index j = 0; j < 8; ++j) init.row(j) = X.row(j * 17);  // spread over the blobs (i % 8)
  const auto expected = reference::lloyd(X, {}, init, 300, itercl::kmeans_scaled_tol(X, 1e-4));
  for (Precision p : test::kPrecisions) {
    for (const std::string& variant : test::kVariants) {
      if (!test::runs(variant, p)) continue;
      CAPTURE(variant);
      CAPTURE(itercl::precision_name(p));
      const auto r = KMeans(test::device(), kmeans_given(init, p, variant)).fit(X);
      REQUIRE(r.n_iter == expected.n_iter);
      for (int it = 0; it < r.n_iter; ++it)
        CHECK(r.iterations[it].inertia == doctest::Approx(expected.inertia_trace[it]).epsilon(tolerance::objective(p)));
      CHECK(r.inertia == doctest::Approx(expected.inertia).epsilon(tolerance::objective(p)));
      check_close(r.centroids, expected.centroids, tolerance::objective(p));
      CHECK(r.kernel.variant == variant);
    }
  }
}

TEST_CASE("stopping: tol 0 runs until the centroids stop moving; max_iter stops early and says so") {
  const Matrix X = itercl::make_uniform({.n_samples = 2000, .n_features = 2, .random_state = 6});
  Matrix init = X.topRows(12);

  auto exact = kmeans_given(init, Precision::f64);
  exact.tol = 0;
  const auto r = KMeans(test::device(), exact).fit(X);
  CHECK(r.converged);
  CHECK(r.n_iter > 5);  // uniform data: Lloyd takes many steps
  // One more reference step from the result moves nothing.
  const auto again = reference::lloyd(X, {}, r.centroids, 1, 0);
  check_close(again.centroids, r.centroids, 1e-12);

  auto short_run = kmeans_given(init, Precision::f32);
  short_run.max_iter = 2;
  const auto s = KMeans(test::device(), short_run).fit(X);
  CHECK(s.n_iter == 2);
  CHECK_FALSE(s.converged);
  // Labels and inertia describe the centroids returned, not the ones before the last update.
  CHECK(s.labels == reference::nearest(X, s.centroids));
  CHECK(s.inertia == doctest::Approx(reference::inertia(X, {}, s.labels, s.centroids)).epsilon(1e-12));
}

TEST_CASE("n_init keeps the run of lowest inertia; a random_state reproduces a fit") {
  const Matrix X = itercl::make_blobs({.n_samples = 1500, .n_features = 2, .centers = 10, .random_state = 8});
  KMeansParams p;
  p.n_clusters = 10;
  p.init = KMeansInit::random;
  p.n_init = 6;
  p.random_state = 42;
  const auto r = KMeans(test::device(), p).fit(X);
  REQUIRE(r.init_inertia.size() == 6);
  const auto best = std::min_element(r.init_inertia.begin(), r.init_inertia.end());
  CHECK(r.inertia == *best);
  CHECK(r.best_init == best - r.init_inertia.begin());
  CHECK(KMeans(test::device(), p).fit(X).centroids == r.centroids);

  p.init = KMeansInit::kmeans_plus_plus;
  p.n_init = 0;  // "auto": one run for k-means++
  const auto pp = KMeans(test::device(), p).fit(X);
  CHECK(pp.init_inertia.size() == 1);
  CHECK(KMeans(test::device(), p).fit(X).centroids == pp.centroids);
}

TEST_CASE("sample weights: integer weights equal repeated points; uniform weights change nothing but scale") {
  const Matrix X = itercl::make_blobs({.n_samples = 600, .n_features = 2, .centers = 4, .random_state = 9});
  Matrix init(4, 2);
  for (Eigen::Index j = 0; j < 4; ++j) init.row(j) = X.row(j);
  std::vector<double> w(600);
  Eigen::Index total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) total += static_cast<Eigen::Index>(w[i] = 1 + i % 3);
  Matrix repeated(total, 2);
  for (Eigen::Index i = 0, r = 0; i < 600; ++i)
    for (int c = 0; c < w[i]; ++c) repeated.row(r++) = X.row(i);

  auto params = kmeans_given(init, Precision::f64);
  params.tol = 0;
  const auto weighted = KMeans(test::device(), params).fit(X, w);
  const auto expected = reference::lloyd(repeated, {}, init, 300, 0);
  CHECK(weighted.n_iter == expected.n_iter);
  CHECK(weighted.inertia == doctest::Approx(expected.inertia).epsilon(1e-9));
  check_close(weighted.centroids, expected.centroids, 1e-9);

  const auto plain = KMeans(test::device(), params).fit(X);
  const auto doubled = KMeans(test::device(), params).fit(X, std::vector<double>(600, 2.0));
  check_close(doubled.centroids, plain.centroids, 1e-12);
  CHECK(doubled.inertia == doctest::Approx(2 * plain.inertia).epsilon(1e-12));
}

TEST_CASE("the device update and the host update follow the weighted reference, relocations included") {
  const Matrix X =
      itercl::make_blobs({.n_samples = 2003, .n_features = 5, .centers = 6, .cluster_std = 1.0, .random_state = 13});
  std::vector<double> w(2003);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5 + static_cast<double>(i % 7) / 4;
  Matrix init(6, 5);
  for (Eigen::Index j = 0; j < 6; ++j) init.row(j) = X.row(j);  // one per blob (i % 6)
  const auto expected = reference::lloyd(X, w, init, 300, itercl::kmeans_scaled_tol(X, 1e-4));
  Matrix far = init;
  far.row(5).setConstant(1e4);  // empty from the start: relocated on the first iteration
  for (Precision p : test::kPrecisions) {
    for (const char* update : {"host", "device"}) {
      CAPTURE(update);
      CAPTURE(itercl::precision_name(p));
      auto params = kmeans_given(init, p, "expanded");
      params.kernel.update = update;
      const auto r = KMeans(test::device(), params).fit(X, w);
      CHECK(r.kernel.update == update);
      REQUIRE(r.n_iter == expected.n_iter);
      for (int it = 0; it < r.n_iter; ++it)
        CHECK(r.iterations[it].inertia == doctest::Approx(expected.inertia_trace[it]).epsilon(tolerance::objective(p)));
      CHECK(r.inertia == doctest::Approx(expected.inertia).epsilon(tolerance::objective(p)));
      check_close(r.centroids, expected.centroids, tolerance::objective(p));
      CHECK(r.labels == expected.labels);

      params.init_centroids = far;
      const auto moved = KMeans(test::device(), params).fit(X, w);
      CHECK(moved.n_relocated >= 1);
      CHECK(moved.centroids.allFinite());
      CHECK(std::set<std::int32_t>(moved.labels.begin(), moved.labels.end()).size() == 6);
      CHECK(moved.labels == reference::nearest(X, moved.centroids));
    }
  }
  // The two updates relocate alike: the same points, so the same run.
  auto host = kmeans_given(far, Precision::f64, "expanded"), device = host;
  host.kernel.update = "host";
  device.kernel.update = "device";
  const auto a = KMeans(test::device(), host).fit(X, w), b = KMeans(test::device(), device).fit(X, w);
  CHECK(a.n_iter == b.n_iter);
  CHECK(a.labels == b.labels);
  check_close(b.centroids, a.centroids, 1e-12);
}

TEST_CASE("K = N gives inertia 0; bad data and parameters are rejected by name") {
  const Matrix X = test::random_matrix(50, 2, 10);
  KMeansParams p;
  p.n_clusters = 50;
  for (const char* update : {"host", "device"}) {
    CAPTURE(update);
    p.kernel.update = update;
    const auto r = KMeans(test::device(), p).fit(X);
    // The host update averages the double points: each centroid is its point. The device's averages the
    // points as rounded to float, eps/2 of |x - mean| per coordinate off: at most eps^2 / 4 of the spread.
    const double spread = (X.rowwise() - X.colwise().mean()).squaredNorm();
    const double eps = itercl::tolerance::epsilon(Precision::f32);
    CHECK(r.inertia <= (update == std::string("host") ? 0.0 : eps * eps / 4 * spread));
    CHECK(std::set<std::int32_t>(r.labels.begin(), r.labels.end()).size() == 50);
  }
  p.kernel.update = "auto";

  p.n_clusters = 51;
  CHECK_THROWS_WITH_AS(KMeans(test::device(), p).fit(X), "n_clusters: 51 is more than the 50 samples in the data",
                       itercl::ParamError);
  p.n_clusters = 3;
  CHECK_THROWS_WITH_AS(KMeans(test::device(), p).fit(X, std::vector<double>(49, 1.0)),
                       "sample_weight: has 49 weights for 50 samples", itercl::ParamError);
  Matrix bad = X;
  bad(3, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(KMeans(test::device(), p).fit(bad), itercl::InputError);
}

TEST_CASE("progress is reported after every iteration of every run") {
  const Matrix X = itercl::make_blobs({.n_samples = 800, .n_features = 2, .centers = 4, .random_state = 12});
  KMeansParams p;
  p.n_clusters = 4;
  p.init = KMeansInit::random;
  p.n_init = 3;
  std::vector<itercl::ProgressEvent> events;
  p.progress = [&](const itercl::ProgressEvent& e) { events.push_back(e); };
  const auto r = KMeans(test::device(), p).fit(X);
  REQUIRE_FALSE(events.empty());
  CHECK(events.back().run == 3);
  CHECK(events.front().iteration == 1);
  CHECK(events.front().max_iterations == 300);
  CHECK(events.front().objective_name == "inertia");
  // The returned run's events carry its inertia trace, in order.
  std::vector<double> trace;
  for (const auto& e : events)
    if (e.run == r.best_init + 1) trace.push_back(e.objective);
  REQUIRE(trace.size() == r.iterations.size());
  for (std::size_t i = 0; i < trace.size(); ++i) CHECK(trace[i] == r.iterations[i].inertia);
  for (std::size_t i = 1; i < events.size(); ++i) CHECK(events[i].elapsed_s >= events[i - 1].elapsed_s);
}

}  // namespace kmeans_tests
