// SMACOF on the device: every variant and storage against the double-precision reference iteration by
// iteration, Borg & Groenen's worked example, scikit-learn's semantics, weights, vectors, experiments.
#include <doctest/doctest.h>

#include <vector>

#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/io.hpp"
#include "itercl/smacof.hpp"
#include "reference/smacof_reference.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_ranks.hpp"
#include "smacof/smacof_steps.hpp"
#include "smacof/smacof_test_data.hpp"
#include "test_support.hpp"
#include "tune_checks.hpp"
#include "tuning/tolerances.hpp"

using itercl::Matrix;
using itercl::Precision;
using itercl::Smacof;
using itercl::SmacofInit;
using itercl::SmacofKernel;
using itercl::SmacofParams;
using itercl::yes_no;
using itercl::YesNo;
namespace smacof = itercl::smacof;

namespace smacof_tests {

SmacofParams smacof_given(const Matrix& init, Precision p, SmacofKernel kernel = {}) {
  SmacofParams params;
  params.n_components = static_cast<int>(init.cols());
  params.init = SmacofInit::given;
  params.init_embedding = init;
  params.precision = p;
  params.kernel = std::move(kernel);
  return params;
}

}  // namespace smacof_tests

using smacof::relative_error;
using smacof_test_data::noisy_delta;
using smacof_tests::smacof_given;

TEST_CASE("SMACOF: every variant and storage follows the reference iteration by iteration, with and without weights") {
  // n odd and even (packed storage keeps the pairs at k = n/2 twice for even n); 16 work-items, so
  // several groups and a partial one; 3 slices that do not divide the columns.
  for (Eigen::Index n : {67, 50}) {
    const Matrix delta = noisy_delta(n, 100 + n);
    const Matrix x0 = test::random_matrix(n, 2, 200 + n, 1.0, 4.0);
    Matrix w = test::random_matrix(n, n, 300 + n).cwiseAbs();
    w = (w + w.transpose()).eval();
    w(1, 5) = w(5, 1) = w(7, 2) = w(2, 7) = 0;  // missing dissimilarities
    for (bool weighted : {false, true}) {
      const Matrix weights = weighted ? smacof::checked_weights(w, n) : Matrix();
      const auto expected = reference::smacof(delta, weights, x0, 8, 0);
      for (Precision p : test::kPrecisions)
        for (bool packed : {false, true})
          for (const smacof::Variant& entry : smacof::kVariantTable)
            for (bool symmetric : {false, true}) {
              const std::string variant(entry.name);
              CAPTURE(n);
              CAPTURE(weighted);
              CAPTURE(itercl::precision_name(p));
              CAPTURE(packed);
              CAPTURE(variant);
              CAPTURE(symmetric);
              if (packed && entry.along_rows) continue;                 // full storage only (a ParamError)
              if (symmetric && !(packed && entry.symmetric)) continue;  // packed, its pass only (a ParamError)
              SmacofKernel k{
                  .variant = variant, .packed = yes_no(packed), .symmetric = yes_no(symmetric), .work_group_size = 16};
              if (entry.fused) k.slices = 3;
              smacof::SmacofDevice device(test::device(), k, {.n = n, .dim = 2, .precision = p, .weighted = weighted});
              device.upload_dissimilarities(delta);
              if (weighted) device.upload_weights(weights, smacof::v_pinv(weights));
              device.start(x0, nullptr);
              for (std::size_t it = 0; it < expected.stress.size(); ++it) {
                CAPTURE(it);
                const auto sums = device.iterate(nullptr);
                CHECK(sums.stress == doctest::Approx(expected.stress[it]).epsilon(tolerance::smacof(p)));
                CHECK(sums.squared_distances ==
                      doctest::Approx(reference::squared_distances(weights, expected.embeddings[it]))
                          .epsilon(tolerance::smacof(p)));
                CHECK(relative_error(device.embedding(), expected.embeddings[it]) <= tolerance::smacof(p));
              }
            }
    }
  }
}

TEST_CASE("SMACOF: several rows per work-item, and a pass enqueued one iteration ahead, follow the reference") {
  // 4 work-items with 2 or 3 rows each take 8 or 12 rows a group: n = 19 and 50 end in a partial group
  // (its missing rows read as the block's last and weighted 0). Packed storage at n = 2 has only
  // k = n/2 (taken forwards alone), at n = 3 one k both ways; 2 slices that do not divide the columns.
  for (Eigen::Index n : {2, 3, 19, 50}) {
    const Matrix delta = noisy_delta(n, 400 + n);
    const Matrix x0 = test::random_matrix(n, 2, 500 + n, 1.0, 4.0);
    const Matrix half_weights = test::random_matrix(n, n, 600 + n, 0.5, 2.0).cwiseAbs();
    const Matrix w = smacof::checked_weights(half_weights + half_weights.transpose(), n);
    for (bool weighted : {false, true}) {
      const Matrix weights = weighted ? w : Matrix();
      const auto expected = reference::smacof(delta, weights, x0, 6, 0);
      for (Precision p : test::kPrecisions)
        for (const smacof::Variant& entry : smacof::kVariantTable)
          for (bool packed : {false, true})
            // 3 rows a work-item and the symmetric pass (1) in the default tier; 2 too in the full one.
            for (int rows : test::full_tier() ? std::vector{2, 3, 1} : std::vector{3, 1}) {
              if (!entry.fused) continue;  // one row per work-item
              const std::string variant(entry.name);
              if (packed && entry.along_rows) continue;  // full storage only
              // One row: the symmetric pass, whose work-groups of 4 end in a partial one too.
              if (rows == 1 && !(packed && entry.symmetric)) continue;
              CAPTURE(n);
              CAPTURE(weighted);
              CAPTURE(itercl::precision_name(p));
              CAPTURE(variant);
              CAPTURE(packed);
              CAPTURE(rows);
              const SmacofKernel k{.variant = variant,
                                   .packed = yes_no(packed),
                                   .symmetric = yes_no(rows == 1),
                                   .work_group_size = 4,
                                   .slices = 2,
                                   .rows_per_item = rows};
              smacof::SmacofDevice device(test::device(), k, {.n = n, .dim = 2, .precision = p, .weighted = weighted});
              device.upload_dissimilarities(delta);
              if (weighted) device.upload_weights(weights, smacof::v_pinv(weights));
              device.start(x0, nullptr);
              const std::size_t iterations = expected.stress.size();
              for (std::size_t it = 0; it < iterations; ++it) {
                CAPTURE(it);
                // Every other iteration enqueues the next pass ahead, so both ways are followed.
                const auto sums = device.iterate(nullptr, it % 2 == 0 && it + 1 < iterations);
                CHECK(sums.stress == doctest::Approx(expected.stress[it]).epsilon(tolerance::smacof(p)));
                CHECK(sums.squared_distances ==
                      doctest::Approx(reference::squared_distances(weights, expected.embeddings[it]))
                          .epsilon(tolerance::smacof(p)));
                CHECK(relative_error(device.embedding(), expected.embeddings[it]) <= tolerance::smacof(p));
              }
            }
    }
  }
  // n = 1 (the device level: a fit refuses it): no pair at all, the sums are 0 and the point stays at the
  // origin, where the centred start puts it.
  for (bool packed : {false, true}) {
    CAPTURE(packed);
    const SmacofKernel k{.variant = "fused", .packed = yes_no(packed), .work_group_size = 4, .rows_per_item = 2};
    smacof::SmacofDevice device(test::device(), k, {.n = 1, .dim = 2, .precision = Precision::f32});
    device.upload_dissimilarities(Matrix::Zero(1, 1));
    device.start(Matrix::Constant(1, 2, 3.0), nullptr);
    for (bool ahead : {true, false}) {
      const auto sums = device.iterate(nullptr, ahead);
      CHECK(sums.stress == 0);
      CHECK(sums.squared_distances == 0);
      CHECK(device.embedding().isZero());
    }
  }
}

TEST_CASE("SMACOF: the symmetric pass follows the reference in 1, 3 and 4 dimensions") {
  // 2-D takes its own ring of real2 (above); other dimensions a ring of DIM reals. 8 work-items: n = 45
  // ends in a partial group, and rows wrap past n both in untested batches and in tested ones.
  const Eigen::Index n = 45;
  const Matrix delta = noisy_delta(n, 61);
  for (int dim : test::sweep({3, 1, 4}))
    for (Precision p : test::kPrecisions) {
      CAPTURE(dim);
      CAPTURE(itercl::precision_name(p));
      const Matrix x0 = test::random_matrix(n, dim, 62 + dim, 1.0, 4.0);
      const auto expected = reference::smacof(delta, Matrix(), x0, 6, 0);
      const SmacofKernel k{
          .variant = "fused", .packed = YesNo::yes, .symmetric = YesNo::yes, .work_group_size = 8, .slices = 2};
      smacof::SmacofDevice device(test::device(), k, {.n = n, .dim = dim, .precision = p});
      REQUIRE(device.kernel().symmetric == YesNo::yes);
      device.upload_dissimilarities(delta);
      device.start(x0, nullptr);
      for (std::size_t it = 0; it < expected.stress.size(); ++it) {
        CAPTURE(it);
        const auto sums = device.iterate(nullptr);
        CHECK(sums.stress == doctest::Approx(expected.stress[it]).epsilon(tolerance::smacof(p)));
        CHECK(relative_error(device.embedding(), expected.embeddings[it]) <= tolerance::smacof(p));
      }
    }
}

TEST_CASE("SMACOF over ranks: a rank's pass answers as one device, packed or full; a file is not packed") {
  // One process's world: a single rank of mpirun, whose range of the slices is all of them. Packed, its
  // pass adds them on the device, then (the allreduce) scales their sum on the host: within ranks_packed
  // of one device's iterates, which the storage rule packs alike. Full, every slice is the block's own:
  // after the first pass each runs on the second queue during the exchange, and the finish waits for it.
  itercl::core::Comm& comm = itercl::core::world();
  const Eigen::Index n = 37;
  const Matrix delta = smacof_test_data::noisy_delta(n, 41);
  const Matrix x0 = test::random_matrix(n, 2, 42);
  for (Precision p : test::kPrecisions)
    for (const int storage : {0, 1, 2}) {  // packed, packed each pair once, full
      const bool packed = storage < 2;
      CAPTURE(p);
      CAPTURE(storage);
      const SmacofKernel kernel =
          packed ? SmacofKernel{.variant = "fused", .symmetric = yes_no(storage == 1), .packed_from = 2, .slices = 3}
                 : SmacofKernel{.variant = "fused", .packed = YesNo::no, .work_group_size = 8, .slices = 3};
      const smacof::Problem problem{.n = n, .dim = 2, .precision = p};
      smacof::SmacofDevice one(test::device(), kernel, problem);
      smacof::SmacofDevice rank(test::device(), kernel, problem, {.comm = &comm, .first = 0, .rows = n});
      REQUIRE(one.kernel().packed == yes_no(packed));
      REQUIRE(rank.kernel().packed == yes_no(packed));
      one.upload_dissimilarities(delta);
      rank.upload_dissimilarities(delta);
      one.start(x0, nullptr);
      rank.start(x0, nullptr);
      const double bound = itercl::tolerance::ranks_packed(p, n);
      for (int it = 0; it < 5; ++it) {
        const smacof::StressSums a = one.iterate(nullptr), b = rank.iterate(nullptr);
        CHECK(std::abs(b.stress - a.stress) <= (itercl::tolerance::ranks_stress(p, n) + 2 * bound) * a.stress);
        const Matrix ea = one.embedding(), eb = rank.embedding();
        CHECK((ea - eb).norm() <= bound * ea.norm());
      }
    }
  // A file is read as each rank's rows, in full storage: packed asked for is refused, naming the field.
  SmacofParams params;
  params.kernel.packed = YesNo::yes;
  const smacof::Rectangle read = [&](Eigen::Index r0, Eigen::Index rows, Eigen::Index c0, Eigen::Index columns) {
    return Matrix(delta.block(r0, c0, rows, columns));
  };
  CHECK_THROWS_WITH_AS(smacof::fit_rows_over_ranks(comm, test::device(), params, read, 0, n, n),
                       doctest::Contains("kernel.packed: over several MPI ranks packed storage is built"),
                       itercl::ParamError);
}

TEST_CASE("SMACOF: Borg & Groenen's example (scikit-learn's test_smacof): one iteration to 3 decimals") {
  Matrix delta(4, 4), init(4, 2), expected(4, 2);
  delta << 0, 5, 3, 4, 5, 0, 2, 2, 3, 2, 0, 1, 4, 2, 1, 0;
  init << -.266, -.539, .451, .252, .016, -.238, -.200, .524;
  expected << -1.415, -2.471, 1.633, 1.107, 0.249, -0.067, -0.468, 1.431;
  for (Precision p : test::kPrecisions)
    for (const std::string variant : {"naive", "fused"}) {
      CAPTURE(variant);
      SmacofParams params = smacof_given(init, p, {.variant = variant});
      params.max_iter = 1;
      const auto r = Smacof(test::device(), params).fit(delta);
      CHECK(r.n_iter == 1);
      CHECK(!r.converged);
      CHECK((r.embedding - expected).cwiseAbs().maxCoeff() < 1.5e-3);  // numpy's decimal=3: below 1.5e-3
      CHECK(r.stress == doctest::Approx(reference::stress(delta, {}, r.embedding)).epsilon(tolerance::smacof(p)));
    }
}

TEST_CASE("SMACOF: the fit stops where scikit-learn 1.7's rule stops the reference, and reports Stress-1") {
  const Matrix delta = noisy_delta(60, 7);
  const Matrix x0 = test::random_matrix(60, 2, 8);
  const auto expected = reference::smacof(delta, {}, x0, 300, 1e-6);
  REQUIRE(expected.converged);
  for (bool packed : {false, true}) {
    CAPTURE(packed);
    const auto r = Smacof(test::device(), smacof_given(x0, Precision::f64, {.packed = yes_no(packed)})).fit(delta);
    CHECK(r.n_iter == expected.n_iter);
    CHECK(r.converged);
    CHECK(r.stress == doctest::Approx(expected.stress.back()).epsilon(1e-9));
    CHECK(relative_error(r.embedding, expected.embeddings.back()) <= 1e-9);
    const double normalized = std::sqrt(expected.stress.back() / reference::squared_distances({}, r.embedding));
    CHECK(r.normalized_stress == doctest::Approx(normalized).epsilon(1e-9));
    REQUIRE(r.iterations.size() == static_cast<std::size_t>(r.n_iter));
    CHECK(r.iterations.back().stress == r.stress);
    CHECK(r.iterations.front().timings.kernel_s > 0);
  }
  // eps 0: exactly max_iter iterations.
  SmacofParams params = smacof_given(x0, Precision::f32);
  params.eps = 0;
  params.max_iter = 37;
  const auto r = Smacof(test::device(), params).fit(delta);
  CHECK(r.n_iter == 37);
  CHECK(!r.converged);
}

TEST_CASE("SMACOF: distances of 2-D points are embedded with stress near 0, and scaling delta by 100 keeps n_iter") {
  const Matrix points = test::random_matrix(40, 2, 11, 3.0);
  const Matrix delta = reference::distances(points);
  SmacofParams params;
  params.precision = Precision::f64;
  params.random_state = 3;
  params.n_init = 4;
  params.eps = 0;
  params.max_iter = 600;
  const auto r = Smacof(test::device(), params).fit(delta);
  CHECK(r.init_stress.size() == 4);
  CHECK(r.stress == *std::min_element(r.init_stress.begin(), r.init_stress.end()));
  CHECK(r.normalized_stress < 1e-4);
  CHECK(relative_error(reference::distances(r.embedding), delta) < 1e-3);

  // From the second iterate on the whole run scales (B(X) depends on delta / d), so the stop rule's
  // ratio, and n_iter, do not change.
  params.n_init = 1;
  params.eps = 1e-6;
  params.max_iter = 300;
  const auto once = Smacof(test::device(), params).fit(noisy_delta(40, 12));
  const auto scaled = Smacof(test::device(), params).fit(noisy_delta(40, 12) * 100);
  CHECK(once.converged);
  CHECK(scaled.n_iter == once.n_iter);
  CHECK(relative_error(scaled.embedding, once.embedding * 100) < 1e-9);
}

TEST_CASE("SMACOF: weights of 1 give the unweighted run") {
  const Matrix delta = noisy_delta(45, 21);
  const Matrix x0 = test::random_matrix(45, 3, 22);
  for (const std::string variant : {"colmajor", "fused"}) {
    CAPTURE(variant);
    const auto params = smacof_given(x0, Precision::f64, {.variant = variant});
    const auto plain = Smacof(test::device(), params).fit(delta);
    const auto weighted = Smacof(test::device(), params).fit(delta, Matrix::Ones(45, 45));
    CHECK(weighted.n_iter == plain.n_iter);
    CHECK(weighted.stress == doctest::Approx(plain.stress).epsilon(1e-9));
    CHECK(relative_error(weighted.embedding, plain.embedding) < 1e-9);
  }
}

TEST_CASE("SMACOF: dissimilarities built on the device from vectors equal the CPU's, in both storages") {
  const Matrix v = test::random_matrix(37, 5, 31, 2.0, 10.0);
  for (const std::string metric : {"euclidean", "sqeuclidean", "cityblock"})
    for (Precision p : test::kPrecisions)
      for (bool packed : {false, true}) {
        CAPTURE(metric);
        CAPTURE(itercl::precision_name(p));
        CAPTURE(packed);
        smacof::SmacofDevice device(
            test::device(), {.variant = "fused", .packed = yes_no(packed)},
            {.n = 37, .dim = 2, .precision = p, .features = 5, .metric = itercl::parse_metric(metric)});
        device.build_dissimilarities(v);
        const Matrix got = device.read_dissimilarities();
        const Matrix expected = reference::pairwise(v, metric);
        CHECK(relative_error(got, expected) <= tolerance::smacof(p));
        CHECK(got == got.transpose());
        CHECK(got.diagonal().isZero());
      }
  // The whole fit from vectors, with classical starts, equals the fit of the CPU's distances.
  SmacofParams params;
  params.init = SmacofInit::classical;
  params.precision = Precision::f64;
  for (const std::string metric : {"euclidean", "cityblock"}) {
    CAPTURE(metric);
    const auto from_vectors = Smacof(test::device(), params).fit_vectors(v, itercl::parse_metric(metric));
    const auto from_matrix = Smacof(test::device(), params).fit(reference::pairwise(v, metric));
    CHECK(from_vectors.n_iter == from_matrix.n_iter);
    CHECK(from_vectors.stress == doctest::Approx(from_matrix.stress).epsilon(1e-9));
  }
}

TEST_CASE("SMACOF: input errors: too large for the device, overflow in float, bad init") {
  SmacofParams params;
  // 2^20 points: 4 TiB of float dissimilarities, more than any device: refused before any upload.
  const Matrix many = Eigen::VectorXd::LinSpaced(1 << 20, 0, 1);
  CHECK_THROWS_WITH_AS(Smacof(test::device(), params).fit_vectors(many, itercl::Metric::euclidean),
                       doctest::Contains("with packed storage"), itercl::InputError);
  Matrix huge = noisy_delta(10, 41) * 1e18;
  CHECK_THROWS_WITH_AS(Smacof(test::device(), params).fit(huge), doctest::Contains("overflow the stress in float"),
                       itercl::InputError);
  CHECK_THROWS_WITH_AS(
      Smacof(test::device(), smacof_given(Matrix::Random(9, 2), Precision::f32)).fit(noisy_delta(10, 42)),
      doctest::Contains("init: has 9 rows for 10 points"), itercl::ParamError);
}

TEST_CASE("SMACOF: a config on eurodist writes the embedding with the cities' names") {
  test::TempDir tmp;
  const nlohmann::json config = {
      {"algorithm", "smacof"},
      {"precision", "double"},
      {"data",
       {{"kind", "dissimilarities"},
        {"path", (test::source_dir() / "datasets/dissimilarities/eurodist_21x21.csv").string()}}},
      {"params", {{"init", "classical"}}},
      {"output", {{"path", (tmp / "r.json").string()}, {"embedding", "map.csv"}}}};
  const auto outcome = itercl::run_experiment(config, "eurodist.json", tmp.path);
  const auto& r = outcome.results;
  const Matrix delta =
      itercl::load_labelled_matrix(test::source_dir() / "datasets/dissimilarities/eurodist_21x21.csv").values;
  SmacofParams params;
  params.init = SmacofInit::classical;
  params.precision = Precision::f64;
  const auto direct = Smacof(test::device(), params).fit(delta);
  CHECK(r["result"]["stress"].get<double>() == direct.stress);
  CHECK(r["result"]["n_iter"] == direct.n_iter);
  CHECK(r["result"]["names"][0] == "Athens");
  CHECK(r["result"]["stress_trace"].size() == static_cast<std::size_t>(direct.n_iter));
  CHECK(r["gflops"]["kernel"].get<double>() > 0);
  const auto map = itercl::load_labelled_matrix(tmp / "map.csv");
  CHECK(map.names.size() == 21);
  CHECK(map.names[20] == "Vienna");
  CHECK(relative_error(map.values, direct.embedding) < 1e-15);
  // Stress-1 of the SMACOF map improves on the classical start's.
  const Matrix start = smacof::classical_scaling(delta, 2);
  CHECK(direct.normalized_stress <
        std::sqrt(reference::stress(delta, {}, start) / reference::squared_distances({}, start)));
}

TEST_CASE("SMACOF: tuning checks every variant against naive and proposes the fastest correct one") {
  const auto r = test::check_tune("smacof", {{"n_samples", 64}, {"n_features", 3}}, "differs");
  CHECK(r.problem["n_samples"] == 64);
  // The database's choice and the 21 of 64 work-items: 3 seed variants, 2 fused ones x 3 groups per unit x
  // 1, 2 or 4 rows per work-item.
  CHECK(r.candidates.size() == 22);
  CHECK(r.entry.contains("variant"));
  test::check_tune_problem_error("smacof", {{"n_components", 40}}, "n_components");
  test::check_tune_problem_error("smacof", {{"n_sample", 64}}, "n_sample: unknown field");
}
