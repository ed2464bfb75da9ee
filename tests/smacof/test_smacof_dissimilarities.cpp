// SmacofDissimilarities: one upload, runs from several starts, one step at a time, and the progress
// callback's cancel; against the double-precision reference and Smacof::fit.
#include <doctest/doctest.h>

#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "reference/smacof_reference.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_test_data.hpp"
#include "test_support.hpp"

namespace smacof_resident_tests {

using smacof_test_data::noisy_delta;

using itercl::Matrix;
using itercl::Precision;
using itercl::SmacofParams;

SmacofParams double_params() {
  SmacofParams p;
  p.precision = Precision::f64;
  return p;
}

TEST_SUITE_BEGIN("smacof");

TEST_CASE("SmacofDissimilarities: runs from several starts on one upload follow the reference from each") {
  const Matrix delta = noisy_delta(50, 3);
  const Matrix w = (test::random_matrix(50, 50, 4).cwiseAbs().array() + 0.5).matrix();
  for (const Matrix& weights : {Matrix(), Matrix((w + w.transpose()) / 2)}) {
    CAPTURE(weights.size());
    itercl::SmacofDissimilarities resident(test::device(), delta, weights, double_params());
    for (std::uint64_t start = 0; start < 3; ++start) {
      CAPTURE(start);
      const Matrix x0 = test::random_matrix(50, 2, 20 + start);
      const auto expected = reference::smacof(delta, weights, x0, 300, 1e-6);
      const auto r = resident.fit(x0);
      CHECK(r.n_iter == expected.n_iter);
      CHECK(r.stress == doctest::Approx(expected.stress.back()).epsilon(1e-9));
      CHECK(itercl::smacof::relative_error(r.embedding, expected.embeddings.back()) <= 1e-9);
    }
  }
}

TEST_CASE("SmacofDissimilarities: n_init on the resident object is Smacof::fit's, the best of its runs") {
  const Matrix delta = noisy_delta(40, 5);
  SmacofParams p;
  p.n_init = 3;
  p.random_state = 42;
  p.max_iter = 50;
  itercl::SmacofDissimilarities resident(test::device(), delta, {}, p);
  const auto a = resident.fit();
  const auto b = itercl::Smacof(test::device(), p).fit(delta);
  REQUIRE(a.init_stress.size() == 3);
  CHECK(a.init_stress == b.init_stress);
  CHECK(a.stress == *std::min_element(a.init_stress.begin(), a.init_stress.end()));
  CHECK(a.embedding == b.embedding);
}

TEST_CASE("SmacofDissimilarities: steps driven by the caller equal the full run") {
  const Matrix points = test::random_matrix(45, 4, 6);
  const Matrix x0 = test::random_matrix(45, 2, 7);
  for (Precision precision : test::kPrecisions) {
    CAPTURE(itercl::precision_name(precision));
    SmacofParams p;
    p.precision = precision;
    auto resident =
        itercl::SmacofDissimilarities::from_vectors(test::device(), points, itercl::Metric::euclidean, {}, p);
    const auto full = resident.fit(x0);
    resident.start(x0);
    for (const itercl::SmacofIteration& expected : full.iterations) {
      const itercl::SmacofIteration step = resident.step();
      CHECK(step.stress == expected.stress);
      CHECK(step.squared_distances == expected.squared_distances);
    }
    CHECK(resident.embedding() == full.embedding);
    CHECK_THROWS_WITH_AS(resident.start(Matrix::Zero(45, 3)), "init: has 3 columns for n_components = 2",
                         itercl::ParamError);
  }
}

TEST_CASE("SMACOF: a progress callback that throws Cancelled stops the fit at that iteration of that run") {
  SmacofParams p;
  p.n_init = 3;
  p.eps = 0;
  p.max_iter = 20;
  int calls = 0;
  p.progress = [&](const itercl::ProgressEvent& e) {
    ++calls;
    if (e.run == 2 && e.iteration == 5) throw itercl::Cancelled();
  };
  CHECK_THROWS_AS(itercl::Smacof(test::device(), p).fit(noisy_delta(30, 9)), itercl::Cancelled);
  CHECK(calls == 20 + 5);
}

TEST_SUITE_END();

}  // namespace smacof_resident_tests
