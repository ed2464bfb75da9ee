// SMACOF's symmetric variant (each unordered pair once, delta in tile storage) on the device: against the
// double-precision reference iteration by iteration and against the fused variant's run on full storage,
// at sizes around the tile's edge, with coincident points; its tile storage built from vectors; its
// parameter checks and when `auto` picks it.
#include <doctest/doctest.h>

#include "core/comm.hpp"
#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "reference/smacof_reference.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_steps.hpp"
#include "smacof/smacof_test_data.hpp"
#include "test_support.hpp"

using itercl::Matrix;
using itercl::Precision;
using itercl::SmacofKernel;
namespace smacof = itercl::smacof;
using smacof::relative_error;
using smacof_test_data::noisy_delta;

TEST_CASE("SMACOF symmetric: each pair once follows the reference iteration by iteration, around the tile's edge") {
  // Tiles of 8: n = 7, 8, 9 (B - 1, B, B + 1) and 21 (not a multiple: an edge tile, 6 tiles, 3 diagonal)
  // with 16 work-items (a 4 x 4 grid, 2 x 2 pairs each) and 8 (a 2 x 4 grid, 4 x 2 pairs each); n = 2 and
  // 3 in a single diagonal tile. From n = 3 on, points 0 and 1 of the start coincide (d = 0: no r_ij,
  // their stress term delta^2); at n = 2 that would leave nothing to embed.
  for (Eigen::Index n : {2, 3, 7, 8, 9, 21}) {
    const Matrix delta = noisy_delta(n, 700 + n);
    Matrix x0 = test::random_matrix(n, 2, 800 + n, 1.0, 4.0);
    if (n >= 3) x0.row(1) = x0.row(0);
    const Matrix half_weights = test::random_matrix(n, n, 900 + n, 0.5, 2.0).cwiseAbs();
    const Matrix w = smacof::checked_weights(half_weights + half_weights.transpose(), n);
    for (bool weighted : {false, true}) {
      const Matrix weights = weighted ? w : Matrix();
      const auto expected = reference::smacof(delta, weights, x0, 6, 0);
      for (Precision p : test::kPrecisions)
        for (int wg : {16, 8}) {
          CAPTURE(n);
          CAPTURE(weighted);
          CAPTURE(itercl::precision_name(p));
          CAPTURE(wg);
          const SmacofKernel k{.variant = "symmetric", .work_group_size = wg, .tile = 8};
          smacof::SmacofDevice device(test::device(), k, {.n = n, .dim = 2, .precision = p, .weighted = weighted});
          CHECK(device.kernel().tile == 8);
          CHECK(device.kernel().packed == false);
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
  // n = 1: one diagonal tile with no pair: the sums are 0 and the point stays at the origin.
  smacof::SmacofDevice device(test::device(), {.variant = "symmetric", .work_group_size = 16, .tile = 8},
                              {.n = 1, .dim = 2, .precision = Precision::f32});
  device.upload_dissimilarities(Matrix::Zero(1, 1));
  device.start(Matrix::Constant(1, 2, 3.0), nullptr);
  for (bool ahead : {true, false}) {
    const auto sums = device.iterate(nullptr, ahead);
    CHECK(sums.stress == 0);
    CHECK(sums.squared_distances == 0);
    CHECK(device.embedding().isZero());
  }
}

TEST_CASE("SMACOF symmetric: the fit equals the fused variant's on full storage, in 3-D and with the database's tile") {
  // 150 points, 3 components: the database's tile on this device (several tiles, the last one partial)
  // and one of 16 with 64 work-items; 12 iterations from the same start.
  const Eigen::Index n = 150;
  const Matrix delta = noisy_delta(n, 1001);
  const Matrix x0 = test::random_matrix(n, 3, 1002);
  for (Precision p : test::kPrecisions)
    for (const SmacofKernel& k : {SmacofKernel{.variant = "symmetric"},
                                  SmacofKernel{.variant = "symmetric", .work_group_size = 64, .tile = 16}}) {
      CAPTURE(itercl::precision_name(p));
      CAPTURE(k);
      itercl::SmacofParams params;
      params.n_components = 3;
      params.init = itercl::SmacofInit::given;
      params.init_embedding = x0;
      params.precision = p;
      params.eps = 0;
      params.max_iter = 12;
      params.kernel = k;
      const auto tiles = itercl::Smacof(test::device(), params).fit(delta);
      params.kernel = {.variant = "fused", .packed = false};
      const auto full = itercl::Smacof(test::device(), params).fit(delta);
      CHECK(tiles.kernel.variant == "symmetric");
      CHECK(tiles.kernel.tile > 0);
      CHECK(tiles.n_iter == full.n_iter);
      // Each is within tolerance::smacof of the exact iterates, so within twice that of each other.
      CHECK(relative_error(tiles.embedding, full.embedding) <= smacof::reference_tolerance(p));
      CHECK(tiles.stress == doctest::Approx(full.stress).epsilon(smacof::reference_tolerance(p)));
      const auto exact = reference::smacof(delta, {}, x0, 12, 0);
      CHECK(relative_error(tiles.embedding, exact.embeddings.back()) <= tolerance::smacof(p));
    }
}

TEST_CASE("SMACOF symmetric: dissimilarities built from vectors into tiles are full storage's, value for value") {
  const Matrix v = test::random_matrix(45, 4, 1101, 2.0, 10.0);
  for (const std::string metric : {"euclidean", "sqeuclidean", "cityblock"})
    for (Precision p : test::kPrecisions) {
      CAPTURE(metric);
      CAPTURE(itercl::precision_name(p));
      const smacof::Problem problem{
          .n = 45, .dim = 2, .precision = p, .features = 4, .metric = itercl::parse_metric(metric)};
      smacof::SmacofDevice tiles(test::device(), {.variant = "symmetric", .work_group_size = 8, .tile = 16}, problem);
      smacof::SmacofDevice full(test::device(), {.variant = "fused", .packed = false}, problem);
      tiles.build_dissimilarities(v);
      full.build_dissimilarities(v);
      const Matrix got = tiles.read_dissimilarities();
      CHECK(got == full.read_dissimilarities());
      CHECK(relative_error(got, reference::pairwise(v, metric)) <= tolerance::smacof(p));
    }
}

TEST_CASE("SMACOF symmetric: parameter errors name the field, and auto picks it from symmetric_from in 2-D") {
  const smacof::Problem problem{.n = 100, .dim = 2, .precision = Precision::f32};
  std::vector<std::string> sources;
  const itercl::DeviceInfo& info = test::device().info();
  auto resolved = [&](SmacofKernel k, Eigen::Index n, int dim = 2) {
    return smacof::resolve(std::move(k), info, {.n = n, .dim = dim, .precision = Precision::f32}, sources);
  };
  CHECK_THROWS_WITH_AS(resolved({.variant = "symmetric", .packed = true}, 100),
                       doctest::Contains("kernel.packed: variant symmetric keeps each pair once"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(resolved({.variant = "fused", .tile = 64}, 100), doctest::Contains("kernel.tile: only"),
                       itercl::ParamError);
  CHECK_THROWS_WITH_AS(resolved({.variant = "symmetric", .work_group_size = 12, .tile = 12}, 100),
                       doctest::Contains("kernel.work_group_size: variant symmetric"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(resolved({.variant = "symmetric", .work_group_size = 16, .tile = 6}, 100),
                       doctest::Contains("kernel.tile: with 16 work-items (a 4 x 4 grid)"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(resolved({.variant = "symmetric", .work_group_size = 16, .tile = 128}, 100),
                       doctest::Contains("up to 64; got 128"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(resolved({.variant = "symmetric", .rows_per_item = 2}, 100),
                       doctest::Contains("kernel.rows_per_item"), itercl::ParamError);
  // Over ranks: refused, naming the variant.
  const smacof::RowBlock block{.comm = &itercl::core::world(), .first = 0, .rows = 100};
  CHECK_THROWS_WITH_AS(smacof::SmacofDevice(test::device(), {.variant = "symmetric"}, problem, block),
                       doctest::Contains("kernel.variant: over several MPI ranks"), itercl::ParamError);
  // auto: symmetric from symmetric_from points on, with storage left open and 2 components; else the
  // device's variant, which takes no tile.
  CHECK(resolved({.symmetric_from = 100}, 100).variant == "symmetric");
  CHECK(resolved({.symmetric_from = 100}, 100).tile > 0);
  CHECK(resolved({.symmetric_from = 100}, 99).variant != "symmetric");
  CHECK(resolved({.symmetric_from = 100}, 99).tile == 0);
  CHECK(resolved({.symmetric_from = 100}, 100, 3).variant != "symmetric");
  CHECK(resolved({.packed = false, .symmetric_from = 100}, 100).variant != "symmetric");
  CHECK(resolved({.tile = 32, .symmetric_from = 100}, 100).tile == 32);
  // Over ranks storage is full, so auto never picks it there.
  smacof::SmacofDevice ranks(test::device(), {.symmetric_from = 2}, problem, block);
  CHECK(ranks.kernel().variant != "symmetric");
  // Too large: the message names the tile storage.
  CHECK_THROWS_WITH_AS(smacof::SmacofDevice(test::device(), {.variant = "symmetric"}, {.n = 1 << 20, .dim = 2}),
                       doctest::Contains("tile storage"), itercl::InputError);
}
