// Inputs as callers hold them: float or double rows read in place (itercl::RowsView) by K-Means and SMACOF
// from vectors. Float rows must give exactly what the same values give as a double Matrix: every host step
// widens a float exactly, and the device's copy is rounded from the same double.
#include <doctest/doctest.h>

#include <vector>

#include "itercl/kmeans.hpp"
#include "itercl/smacof.hpp"
#include "test_support.hpp"

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

}  // namespace input_tests
