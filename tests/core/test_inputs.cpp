// Inputs as callers hold them: float or double rows read in place (itercl::RowsView) by K-Means and SMACOF
// from vectors, and rows already in a cl::Buffer of the caller's (itercl::DeviceRows). Float rows must give
// exactly what the same values give as a double Matrix: every host step widens a float exactly, and the
// device's copy is rounded from the same double. Device rows are centred on their first row instead of
// their mean, so they agree with the host path within the rounding the tolerances bound.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "itercl/error.hpp"
#include "itercl/kmeans.hpp"
#include "itercl/pairwise.hpp"
#include "itercl/smacof.hpp"
#include "test_support.hpp"
#include "tuning/tolerances.hpp"

using itercl::Matrix;
using itercl::Precision;
using itercl::RowsView;

namespace input_tests {

// m rounded to float, as a caller's float rows, and the same values widened back into a Matrix.
struct FloatRows {
  std::vector<float> values;
  Matrix widened;
  RowsView view() const { return {values.data(), widened.rows(), widened.cols()}; }
};
FloatRows float_rows(const Matrix& m) {
  FloatRows f;
  f.widened = m.cast<float>().cast<double>();
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) f.values.push_back(static_cast<float>(m(i, j)));
  return f;
}

TEST_CASE("K-Means from float rows in place equals K-Means from the same values as doubles") {
  const FloatRows X = float_rows(test::random_matrix(3000, 5, 21, 2.0, 40.0));
  for (Precision p : test::kPrecisions) {
    for (itercl::KMeansInit init : {itercl::KMeansInit::kmeans_plus_plus, itercl::KMeansInit::random}) {
      CAPTURE(itercl::precision_name(p));
      itercl::KMeansParams params;
      params.n_clusters = 7;
      params.init = init;
      params.precision = p;
      params.random_state = 5;
      const itercl::KMeans km(test::device(), params);
      const itercl::KMeansResult a = km.fit(X.view()), b = km.fit(X.widened);
      CHECK(a.labels == b.labels);
      CHECK(a.centroids == b.centroids);
      CHECK(a.inertia == b.inertia);
      CHECK(a.n_iter == b.n_iter);
      CHECK(a.init_inertia == b.init_inertia);
    }
    itercl::KMeansAssignment from_floats(test::device(), X.view(), p), from_doubles(test::device(), X.widened, p);
    const Matrix C = X.widened.topRows(9);
    const auto la = from_floats.assign(C);
    const std::vector<std::int32_t> labels(la.begin(), la.end());
    const auto lb = from_doubles.assign(C);
    CHECK(labels == std::vector<std::int32_t>(lb.begin(), lb.end()));
  }
  CHECK(itercl::kmeans_scaled_tol(X.view(), 1e-4) == itercl::kmeans_scaled_tol(X.widened, 1e-4));
  std::vector<float> bad = X.values;
  bad[17] = std::numeric_limits<float>::quiet_NaN();
  itercl::KMeansParams params;
  CHECK_THROWS_WITH_AS(params.validate(RowsView(bad.data(), 3000, 5), {}), "data: contains NaN or infinity",
                       itercl::InputError);
}

TEST_CASE("SMACOF from float vectors in place equals SMACOF from the same values as doubles") {
  const FloatRows V = float_rows(test::random_matrix(50, 3, 22, 1.0, 10.0));
  for (Precision p : test::kPrecisions) {
    for (itercl::Metric metric : {itercl::Metric::euclidean, itercl::Metric::cityblock}) {
      CAPTURE(itercl::precision_name(p));
      itercl::SmacofParams params;
      params.precision = p;
      params.init = itercl::SmacofInit::classical;
      params.max_iter = 40;
      const itercl::Smacof smacof(test::device(), params);
      const itercl::SmacofResult a = smacof.fit_vectors(V.view(), metric), b = smacof.fit_vectors(V.widened, metric);
      CHECK(a.embedding == b.embedding);
      CHECK(a.stress == b.stress);
      CHECK(a.n_iter == b.n_iter);
    }
  }
}

// The rows of m in a buffer of the test device's context (or of `context`), float or double, row-major.
itercl::DeviceRows device_rows(const Matrix& m, Precision stored, const cl::Context* context = nullptr) {
  std::vector<unsigned char> bytes(static_cast<std::size_t>(m.size()) * itercl::real_size(stored));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const std::size_t k = static_cast<std::size_t>(i * m.cols() + j);
      if (stored == Precision::f32)
        reinterpret_cast<float*>(bytes.data())[k] = static_cast<float>(m(i, j));
      else
        reinterpret_cast<double*>(bytes.data())[k] = m(i, j);
    }
  const cl::Context& ctx = context ? *context : test::device().context();
  return {cl::Buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data()), m.rows(), m.cols(),
          stored};
}

// Well separated clusters: the labels do not depend on the last bits of any distance.
Matrix separated_blobs(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  Matrix X = test::random_matrix(n, d, seed, 0.3);
  for (Eigen::Index i = 0; i < n; ++i) X.row(i).array() += 10.0 * static_cast<double>(i % 5) + 30.0;
  return X;
}

TEST_CASE("K-Means from rows on the device equals K-Means from the same rows on the host") {
  const Matrix X = separated_blobs(2000, 4, 31);
  for (Precision p : test::kPrecisions) {
    for (Precision stored : test::kPrecisions) {
      if (stored == Precision::f64 && !test::device().info().fp64) continue;
      CAPTURE(itercl::precision_name(p));
      CAPTURE(itercl::precision_name(stored));
      const Matrix values = stored == Precision::f32 ? Matrix(X.cast<float>().cast<double>()) : X;
      const itercl::DeviceRows rows = device_rows(X, stored);
      // Both updates: the device's sums read the repacked rows (on a GPU by default), the host's the rows.
      for (const char* update : {"host", "device"}) {
        if (std::string(update) == "device" && !test::device().info().fp64) continue;
        CAPTURE(update);
        itercl::KMeansParams params;
        params.n_clusters = 5;
        params.precision = p;
        params.random_state = 2;
        params.kernel.update = update;
        const itercl::KMeans km(test::device(), params);
        const itercl::KMeansResult a = km.fit(rows), b = km.fit(values);
        CHECK(a.labels == b.labels);
        CHECK(a.n_iter == b.n_iter);
        CHECK(a.inertia == doctest::Approx(b.inertia).epsilon(itercl::tolerance::objective(p)));
        CHECK((a.centroids - b.centroids).norm() <= itercl::tolerance::objective(p) * b.centroids.norm());
      }
      itercl::KMeansAssignment on_device(test::device(), rows, p), on_host(test::device(), values, p);
      const Matrix C = values.topRows(7);
      const auto la = on_device.assign(C);
      const std::vector<std::int32_t> labels(la.begin(), la.end());
      const auto lb = on_host.assign(C);
      CHECK(labels == std::vector<std::int32_t>(lb.begin(), lb.end()));
    }
  }
}

TEST_CASE("PairwiseDistances from rows on the device equals the host path, one and two inputs") {
  const Matrix X = test::random_matrix(70, 9, 41, 2.0, 5.0), Y = test::random_matrix(45, 9, 42, 2.0, 5.0);
  for (Precision p : test::kPrecisions) {
    if (p == Precision::f64 && !test::device().info().fp64) continue;
    for (itercl::Metric metric :
         test::sweep({itercl::Metric::euclidean, itercl::Metric::cosine, itercl::Metric::cityblock})) {
      for (const char* variant : {"tiled", "expanded"}) {
        CAPTURE(itercl::precision_name(p));
        CAPTURE(itercl::metric_name(metric));
        CAPTURE(variant);
        itercl::PairwiseParams params;
        params.metric = metric;
        params.precision = p;
        params.kernel.variant = metric == itercl::Metric::euclidean ? variant : "tiled";  // cosine: inner products
        const itercl::DeviceRows x = device_rows(X, p), y = device_rows(Y, p);
        const Matrix one = itercl::PairwiseDistances(test::device(), x, nullptr, params).matrix();
        const Matrix two = itercl::PairwiseDistances(test::device(), x, &y, params).matrix();
        const Matrix one_host = itercl::PairwiseDistances({test::device()}, X, nullptr, params).matrix();
        const Matrix two_host = itercl::PairwiseDistances({test::device()}, X, &Y, params).matrix();
        // Each side is within pair_sum of the exact values; |x_k| + |y_k| <= `largest` bounds every pair's terms.
        const double largest = 2 * std::max(X.cwiseAbs().maxCoeff(), Y.cwiseAbs().maxCoeff());
        const double power = metric == itercl::Metric::cityblock ? 1 : 2;
        const double bound = metric == itercl::Metric::cosine ? 1 : 9 * std::pow(largest, power);
        const double tol = 2 * itercl::tolerance::pair_sum(p, 9, power, bound);
        auto gap = [&](const Matrix& a, const Matrix& b) {  // euclidean compared squared, as pair_sum bounds it
          return metric == itercl::Metric::euclidean ? (a.array().square() - b.array().square()).abs().maxCoeff()
                                                     : (a - b).cwiseAbs().maxCoeff();
        };
        CHECK(gap(one, one_host) <= tol);
        CHECK(gap(two, two_host) <= tol);
        CHECK(one.diagonal().cwiseAbs().maxCoeff() == 0);
      }
    }
  }
}

TEST_CASE("SMACOF from vectors on the device equals SMACOF from the same vectors on the host") {
  const Matrix V = test::random_matrix(50, 3, 61, 1.0, 10.0), x0 = test::random_matrix(50, 2, 62);
  for (Precision p : test::kPrecisions) {
    if (p == Precision::f64 && !test::device().info().fp64) continue;
    for (itercl::Metric metric : {itercl::Metric::euclidean, itercl::Metric::sqeuclidean}) {
      CAPTURE(itercl::precision_name(p));
      CAPTURE(itercl::metric_name(metric));
      itercl::SmacofParams params;
      params.precision = p;
      params.max_iter = 30;
      params.eps = 0;
      params.init = itercl::SmacofInit::classical;
      const itercl::Smacof smacof(test::device(), params);
      const itercl::SmacofResult a = smacof.fit_vectors(device_rows(V, p), metric), b = smacof.fit_vectors(V, metric);
      CHECK(a.n_iter == b.n_iter);
      CHECK(a.stress == doctest::Approx(b.stress).epsilon(itercl::tolerance::smacof(p)));
      CHECK((a.embedding - b.embedding).norm() <= itercl::tolerance::smacof(p) * b.embedding.norm());
      auto resident =
          itercl::SmacofDissimilarities::from_vectors(test::device(), device_rows(V, p), metric, {}, params);
      const itercl::SmacofResult c = resident.fit(x0),
                                 d = itercl::SmacofDissimilarities::from_vectors(test::device(), V, metric, {}, params)
                                         .fit(x0);
      CHECK(c.stress == doctest::Approx(d.stress).epsilon(itercl::tolerance::smacof(p)));
    }
  }
  CHECK_THROWS_WITH_AS(
      itercl::SmacofDissimilarities::from_vectors(
          test::device(), device_rows(Matrix::Constant(5, 2, 3.0), Precision::f32), itercl::Metric::euclidean, {}, {}),
      "data: all vectors are identical, nothing to embed", itercl::InputError);
}

TEST_CASE("rows on the device: a buffer of another context, too small or holding NaN is refused by name") {
  const Matrix X = test::random_matrix(20, 3, 51);
  itercl::KMeansParams params;
  params.n_clusters = 2;
  const itercl::KMeans km(test::device(), params);
  const cl::Context other(test::device().device());
  CHECK_THROWS_WITH_AS(km.fit(device_rows(X, Precision::f32, &other)),
                       doctest::Contains("data: the buffer belongs to another OpenCL context"), itercl::ParamError);
  itercl::DeviceRows short_rows = device_rows(X, Precision::f32);
  short_rows.rows = 21;
  CHECK_THROWS_WITH_AS(itercl::KMeansAssignment(test::device(), short_rows, Precision::f32),
                       "data: the buffer holds 240 bytes; 21 x 3 values in float need 252", itercl::ParamError);
  Matrix bad = X;
  bad(7, 1) = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(itercl::KMeansAssignment(test::device(), device_rows(bad, Precision::f32), Precision::f32),
                       doctest::Contains("data: contains NaN or infinity"), itercl::InputError);
  const itercl::DeviceRows x = device_rows(X, Precision::f32), y = device_rows(Matrix(X.leftCols(2)), Precision::f32);
  CHECK_THROWS_WITH_AS(itercl::PairwiseDistances(test::device(), x, &y, {}),
                       "second input: is float x 2 columns; the first input is float x 3", itercl::ParamError);
  CHECK_THROWS_WITH_AS(km.fit(itercl::DeviceRows{}), "data: no buffer (a default-constructed cl::Buffer)",
                       itercl::ParamError);
}

}  // namespace input_tests
