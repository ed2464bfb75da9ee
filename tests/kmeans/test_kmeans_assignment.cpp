// Every assignment kernel variant against the double-precision reference, on awkward shapes.
#include <doctest/doctest.h>

#include <functional>
#include <numeric>
#include <span>
#include <utility>

#include "itercl/error.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "itercl/tune.hpp"
#include "kmeans/kmeans_description.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "reference/kmeans_reference.hpp"
#include "test_support.hpp"

using itercl::KMeansAssignment;
using itercl::KMeansKernel;
using itercl::Matrix;
using itercl::Precision;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace kmeans_tests {

// Labels must equal the reference's except where the two centroids are equally near within the
// rounding of `p` (the tuner's check); the inertia of the labels must match within the objective tolerance.
void check_labels(const Matrix& X, const Matrix& C, std::span<const std::int32_t> got, Precision p) {
  const auto expected = reference::nearest(X, C);
  REQUIRE(got.size() == expected.size());
  const std::string wrong = itercl::kmeans::labels_mismatch(X, C, got, expected, p);
  INFO(wrong);
  CHECK(wrong.empty());
  const auto moved = std::inner_product(got.begin(), got.end(), expected.begin(), std::size_t{0}, std::plus<>(),
                                        std::not_equal_to<>());
  CHECK(moved <= got.size() / 100);  // near-ties are rare on continuous data
  const std::vector<std::int32_t> labels(got.begin(), got.end());
  if (wrong.empty()) {
    const double ref = reference::inertia(X, {}, expected, C);
    CHECK(std::abs(reference::inertia(X, {}, labels, C) - ref) <= tolerance::objective(p) * ref);
  }
}

struct Shape {
  Eigen::Index n, d, k;
};

TEST_CASE("every variant matches the reference on awkward shapes, in float and double") {
  // N not a multiple of any work-group size; K = 1; K = N; D = 1; D = 33; K > work-group size. Four
  // values of D, since each is a build of its own (PoCL takes a second or two for each).
  const Shape shapes[] = {{1237, 2, 15}, {1000, 1, 7}, {513, 33, 40}, {300, 2, 1}, {200, 1, 200}, {777, 4, 300}};
  std::uint64_t seed = 1;
  for (const Shape& s : test::sweep(shapes)) {
    const Matrix X = test::random_matrix(s.n, s.d, seed++, 3.0, 10.0);
    const Matrix C = test::random_matrix(s.k, s.d, seed++, 3.0, 10.0);
    for (Precision p : test::kPrecisions) {
      for (const std::string& variant : test::kVariants) {
        if (!test::runs(variant, p)) continue;
        CAPTURE(s.n);
        CAPTURE(s.d);
        CAPTURE(s.k);
        CAPTURE(variant);
        CAPTURE(itercl::precision_name(p));
        KMeansAssignment a(test::device(), X, p, KMeansKernel{.variant = variant});
        CHECK(a.kernel().variant == variant);
        // Loops over features unrolled fully up to D = 128 on GPUs (registers), 32 on other devices.
        const bool gpu = test::device().info().type == "gpu";
        CHECK(a.build_options().find(gpu ? "-D UNROLL_DIM_UP_TO=128" : "-D UNROLL_DIM_UP_TO=32") != std::string::npos);
        check_labels(X, C, a.assign(C), p);
      }
    }
  }
}

// The variants that stage the centroids in chunks, and those of them that compare one centroid at a time.
bool staged(const itercl::kmeans::Variant& v) { return v.shape == itercl::kmeans::Shape::staged; }
bool staged_one_centroid(const itercl::kmeans::Variant& v) { return staged(v) && !v.centroid_tiles; }

TEST_CASE("centroids staged in chunks: a given chunk size and K * D larger than local memory") {
  const Matrix X = test::random_matrix(501, 3, 11, 1.0, 2.0);
  const Matrix C = test::random_matrix(50, 3, 12, 1.0, 2.0);
  for (const std::string& variant : test::variants_where(staged_one_centroid)) {
    CAPTURE(variant);
    KMeansAssignment a(test::device(), X, Precision::f64, KMeansKernel{.variant = variant, .centroids_per_chunk = 7});
    CHECK(a.kernel().centroids_per_chunk == 7);
    check_labels(X, C, a.assign(C), Precision::f64);
  }
  // Tiles of centroids are staged whole: 50 centroids in chunks of 8, tiles of 4, the last chunk's last tile
  // padded.
  for (const std::string& variant : test::variants_where([](const auto& v) { return staged(v) && v.centroid_tiles; })) {
    CAPTURE(variant);
    KMeansAssignment tiled(test::device(), X, Precision::f64,
                           KMeansKernel{.variant = variant, .centroids_per_chunk = 8, .centroids_per_item = 4});
    CHECK(tiled.kernel().centroids_per_chunk == 8);
    check_labels(X, C, tiled.assign(C), Precision::f64);
  }

  // More centroids than the device's whole local memory holds: the default budget stages them in chunks.
  const Eigen::Index d = 33;
  const auto k = static_cast<Eigen::Index>(test::device().info().local_memory / (d * sizeof(double))) + 100;
  const Matrix Xs = test::random_matrix(300, d, 13);
  const Matrix Cs = test::random_matrix(k, d, 14);
  for (const std::string& variant : test::variants_where(staged)) {
    CAPTURE(variant);
    KMeansAssignment a(test::device(), Xs, Precision::f64, KMeansKernel{.variant = variant});
    CHECK(a.kernel().centroids_per_chunk < k);
    check_labels(Xs, Cs, a.assign(Cs), Precision::f64);
  }
}

TEST_CASE("work-group sizes and points per work-item that divide nothing") {
  const Matrix X = test::random_matrix(1001, 2, 21, 1.0, -5.0);
  const Matrix C = test::random_matrix(23, 2, 22, 1.0, -5.0);
  for (int wg : test::sweep({100, 1, 8})) {
    for (int ppi : test::sweep({3, 1})) {
      for (const std::string& variant : test::variants_where(staged_one_centroid)) {
        CAPTURE(wg);
        CAPTURE(ppi);
        CAPTURE(variant);
        KMeansAssignment a(test::device(), X, Precision::f32,
                           KMeansKernel{.variant = variant, .work_group_size = wg, .points_per_item = ppi});
        CHECK(a.kernel().work_group_size == wg);
        CHECK(a.kernel().points_per_item == ppi);
        check_labels(X, C, a.assign(C), Precision::f32);
      }
    }
  }
}

TEST_CASE("points stay resident: repeated calls with new and more centroids") {
  const Matrix X = test::random_matrix(2000, 4, 31);
  KMeansAssignment a(test::device(), X, Precision::f32);
  std::uint64_t seed = 32;
  for (Eigen::Index k : {5, 20, 3, 64}) {
    const Matrix C = test::random_matrix(k, 4, seed++);
    itercl::Timings t;
    const auto labels = a.assign(C, &t);
    check_labels(X, C, labels, Precision::f32);
    CHECK(t.kernel_s > 0);
    CHECK(t.transfer_s > 0);
    CHECK(t.wall_s >= t.kernel_s);
  }
  CHECK(a.upload_timings().transfer_s > 0);
}

TEST_CASE("points and labels larger than a staging chunk cross in chunks, in place and in order") {
  // 4.5 M points of one feature: 18 MB each way, more than one 16 MB staging chunk; each point's nearest of
  // three centroids is known without a distance (thirds of [0, 3)).
  const Eigen::Index n = 4500000;
  Matrix X(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) X(i, 0) = static_cast<double>(i % 3) + 0.25;
  KMeansAssignment a(test::device(), X, Precision::f32);
  Matrix C(3, 1);
  C << 0.25, 1.25, 2.25;
  const auto labels = a.assign(C);
  const std::vector<std::int32_t> copied = a.copy_labels();
  REQUIRE(copied.size() == static_cast<std::size_t>(n));
  bool all = true;
  for (Eigen::Index i = 0; i < n; ++i)
    all = all && labels[static_cast<std::size_t>(i)] == i % 3 && copied[static_cast<std::size_t>(i)] == i % 3;
  CHECK(all);
}

// assign_and_sum against double sums of the original points under the labels the device chose (so
// near-ties cannot matter): sums, weights, inertia and changed labels, first call and repeated.
void check_sums(KMeansAssignment& a, const Matrix& X, const std::vector<double>& w, const Matrix& C, Precision p,
                std::int64_t expected_changed) {
  const itercl::KMeansSums got = a.assign_and_sum(C);
  const auto labels = a.labels();
  check_labels(X, C, labels, p);
  const Eigen::Index k = C.rows(), d = X.cols();
  const Eigen::RowVectorXd mean = X.colwise().mean();
  Matrix sums = Matrix::Zero(k, d), magnitude = Matrix::Zero(k, d);
  Eigen::VectorXd weights = Eigen::VectorXd::Zero(k), count = Eigen::VectorXd::Zero(k);
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    const double wi = w.empty() ? 1.0 : w[static_cast<std::size_t>(i)];
    const auto j = labels[static_cast<std::size_t>(i)];
    sums.row(j) += wi * X.row(i);
    magnitude.row(j) += wi * ((X.row(i) - mean).cwiseAbs() + mean.cwiseAbs());
    weights[j] += wi;
    count[j] += 1;
  }
  const double total = weights.sum();
  const Eigen::RowVectorXd largest = (X.rowwise() - mean).cwiseAbs().colwise().maxCoeff();
  CHECK(got.n_changed == expected_changed);
  for (Eigen::Index j = 0; j < k; ++j) {
    CHECK(got.weights[j] == doctest::Approx(weights[j]).epsilon(1e-15));  // exact for integer weights
    if (weights[j] == 0) CHECK(got.sums.row(j).isZero(0));                // an empty cluster sums to exactly 0
    for (Eigen::Index c = 0; c < d; ++c)
      CHECK(std::abs(got.sums(j, c) - sums(j, c)) <=
            tolerance::kmeans_sums(p, magnitude(j, c), count[j], total * largest[c]));
  }
  const std::vector<std::int32_t> copy(labels.begin(), labels.end());
  CHECK(a.copy_labels() == copy);  // through the staging chunks, as a fit's end reads them
  const double inertia = reference::inertia(X, w, copy, C);
  CHECK(std::abs(got.inertia - inertia) <= tolerance::objective(p) * inertia + 1e-300);
}

TEST_CASE("the device update's sums equal the double sums: K = 1, K = N, empty clusters, weights, any D") {
  // D = 1, 3, 5 and 17 (no vector width divides them); K = 2000 x 18 longs do not fit in local memory,
  // so that shape sums with global atomics; the far centroids stay empty.
  const Shape shapes[] = {{1237, 3, 15}, {300, 1, 1}, {200, 5, 200}, {2500, 17, 2000}};
  std::uint64_t seed = 51;
  for (const Shape& s : test::sweep(shapes)) {
    const Matrix X = test::random_matrix(s.n, s.d, seed++, 3.0, 10.0);
    Matrix C = test::random_matrix(s.k, s.d, seed++, 3.0, 10.0);
    if (s.k > 1) C.row(s.k - 1).setConstant(1e3);  // nearest to no point: an empty cluster
    if (s.k == s.n) C = X;                         // K = N: every point its own cluster, inertia 0
    std::vector<double> w(static_cast<std::size_t>(s.n));
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i % 4);  // zero weights too
    for (Precision p : test::kPrecisions) {
      for (bool weighted : {false, true}) {
        CAPTURE(s.n);
        CAPTURE(s.d);
        CAPTURE(s.k);
        CAPTURE(weighted);
        CAPTURE(itercl::precision_name(p));
        KMeansAssignment a(test::device(), X, p, KMeansKernel{.variant = "expanded", .update = "device"});
        const std::vector<double> weights = weighted ? w : std::vector<double>{};
        a.set_sample_weight(weights);
        check_sums(a, X, weights, C, p, s.n);  // every label is new
        check_sums(a, X, weights, C, p, 0);    // the same centroids: none changed
        a.forget_labels();
        check_sums(a, X, weights, C, p, s.n);
      }
    }
  }
}

// Where each label's centroid has an identical row of lower index: the lowest index must win exact ties.
std::string later_duplicate(const Matrix& C, std::span<const std::int32_t> labels) {
  for (std::size_t i = 0; i < labels.size(); ++i)
    for (Eigen::Index j = 0; j < labels[i]; ++j)
      if (C.row(j) == C.row(labels[i]))
        return "point " + std::to_string(i) + " labelled " + std::to_string(labels[i]) + ", equal to centroid " +
               std::to_string(j);
  return {};
}

// Points and centroids of shape s with exact ties: copies of centroid 0 at every third index from 2 (in its
// own tile or work-item's columns and in later ones), a copy of 1 at 5.
std::pair<Matrix, Matrix> with_ties(const Shape& s, std::uint64_t seed) {
  Matrix X = test::random_matrix(s.n, s.d, seed, 2.0, -3.0);
  Matrix C = test::random_matrix(s.k, s.d, seed + 1, 2.0, -3.0);
  for (Eigen::Index j = 2; j < s.k; j += 3) C.row(j) = C.row(0);
  if (s.k > 5) C.row(5) = C.row(1);
  return {std::move(X), std::move(C)};
}

// Points and centroids of shape s around `offset` for the device update's sums: where K < N the last
// centroid is far from every point (an empty cluster), where K = N the centroids are the points; and
// weights 0, 1, 2, 3 in turn.
struct SumsCase {
  Matrix X, C;
  std::vector<double> w;
};
SumsCase sums_case(const Shape& s, std::uint64_t& seed, double offset) {
  SumsCase c{test::random_matrix(s.n, s.d, seed++, 3.0, offset), Matrix(), std::vector<double>(s.n)};
  c.C = s.k == s.n ? c.X : test::random_matrix(s.k, s.d, seed++, 3.0, offset);
  if (s.k < s.n) c.C.row(s.k - 1).setConstant(100 * offset);
  for (std::size_t i = 0; i < c.w.size(); ++i) c.w[i] = static_cast<double>(i % 4);
  return c;
}

// The labels against the reference, and exact ties to the lowest index.
void check_tied_labels(KMeansAssignment& a, const Matrix& X, const Matrix& C, Precision p) {
  const auto labels = a.assign(C);
  check_labels(X, C, labels, p);
  CHECK(later_duplicate(C, labels).empty());
}

TEST_CASE("tiled: N not a multiple of the tile, K below and past a tile, odd D, exact ties to the lowest index") {
  // {n, d, k}: K = 3 below every tile, K = 301 leaving a partial tile, D odd (1, 5) and a multiple of 4.
  const Shape shapes[] = {{1001, 5, 3}, {777, 4, 301}, {999, 1, 7}, {515, 8, 64}};
  std::uint64_t seed = 71;
  for (const Shape& s : test::sweep(shapes)) {
    const auto [X, C] = with_ties(s, seed);
    seed += 2;
    for (Precision p : test::kPrecisions) {
      for (const int tile : test::sweep({4, 3, 8})) {
        // A row of one point; the H200's tile of 10 x 4 (the norms read as a vector where D is a multiple of
        // 4); a tile of 3 x 8 (two vectors of norms).
        const int ppi = tile == 3 ? 1 : tile == 4 ? 10 : 3;
        CAPTURE(s.n);
        CAPTURE(s.d);
        CAPTURE(s.k);
        CAPTURE(tile);
        CAPTURE(ppi);
        CAPTURE(itercl::precision_name(p));
        KMeansAssignment a(
            test::device(), X, p,
            KMeansKernel{
                .variant = "tiled", .work_group_size = 32, .points_per_item = ppi, .centroids_per_item = tile});
        CHECK(a.kernel().centroids_per_item == tile);
        CHECK(a.kernel().centroids_per_chunk % tile == 0);
        check_tied_labels(a, X, C, p);
      }
    }
  }
  // The device update with tiles: the same sums as expanded's, on a partial last tile.
  const Matrix X = test::random_matrix(1237, 3, 81, 3.0, 10.0);
  const Matrix C = test::random_matrix(15, 3, 82, 3.0, 10.0);
  KMeansAssignment a(test::device(), X, Precision::f32,
                     KMeansKernel{.variant = "tiled", .update = "device", .centroids_per_item = 4});
  check_sums(a, X, {}, C, Precision::f32, X.rows());
}

TEST_CASE("point_blocks: blocks past N, centroids in chunks, exact ties to the lowest index; no device update") {
  // {n, d, k} and points per work-item: N below one block and past several, D odd and a multiple of 4,
  // K past a chunk (7 centroids each, the last one partial). Each case is a build of its own (PoCL takes
  // seconds for 64 unrolled points), so each shape runs in one precision but every shape's kernel differs.
  struct Case {
    Shape shape;
    int ppi;
    Precision precision;
  };
  // The default tier: the first two (one per precision); the full tier all four.
  const Case cases[] = {{{1001, 4, 301}, 64, Precision::f32},
                        {{1001, 4, 301}, 64, Precision::f64},
                        {{50, 3, 9}, 1, Precision::f64},
                        {{999, 1, 7}, 64, Precision::f32}};
  std::uint64_t seed = 91;
  for (const Case& c : test::full_tier() ? std::span(cases) : std::span(cases).first(2)) {
    const Shape& s = c.shape;
    const auto [X, C] = with_ties(s, seed);
    seed += 2;
    CAPTURE(s.n);
    CAPTURE(s.d);
    CAPTURE(s.k);
    CAPTURE(c.ppi);
    CAPTURE(itercl::precision_name(c.precision));
    KMeansAssignment a(
        test::device(), X, c.precision,
        KMeansKernel{
            .variant = "point_blocks", .work_group_size = 4, .points_per_item = c.ppi, .centroids_per_chunk = 7});
    CHECK(a.kernel().points_per_item == c.ppi);
    CHECK(a.kernel().update == "host");
    check_tied_labels(a, X, C, c.precision);
  }
  const Matrix X = test::random_matrix(100, 2, 99, 1.0, 0.0);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "point_blocks", .update = "device"}),
      doctest::Contains("kernel.update"), itercl::ParamError);
}

TEST_CASE("gemm: N not a multiple of the tile, K below and past a tile, D odd and 1, exact ties to the lowest index") {
  // {n, d, k}: K = 3 below every tile, K = 301 leaving a partial tile, D = 1 and odd, 32 as in issue 13.
  const Shape shapes[] = {{1001, 5, 3}, {777, 4, 301}, {999, 1, 7}, {515, 32, 200}};
  std::uint64_t seed = 91;
  for (const Shape& s : test::sweep(shapes)) {
    const auto [X, C] = with_ties(s, seed);
    seed += 2;
    for (Precision p : test::kPrecisions) {
      // The default tiles (256 work-items of 8 x 8: 128 points by 128 centroids; 4 points each where those
      // take more local memory than the device has, as D = 32 in double on a GPU's 48 KiB) and the smallest
      // (128 of 4 x 4).
      const KMeansKernel eight{
          .variant = "gemm", .work_group_size = 256, .points_per_item = 8, .centroids_per_item = 8};
      const bool eight_fit =
          static_cast<std::size_t>(itercl::kmeans::gemm_local_values(eight, s.d)) * itercl::real_size(p) <=
          test::device().info().local_memory;
      for (const int per_item : test::sweep({0, 4})) {
        CAPTURE(s.n);
        CAPTURE(s.d);
        CAPTURE(s.k);
        CAPTURE(per_item);
        CAPTURE(itercl::precision_name(p));
        KMeansAssignment a(test::device(), X, p,
                           KMeansKernel{.variant = "gemm",
                                        .work_group_size = per_item ? 128 : 0,
                                        .points_per_item = per_item,
                                        .centroids_per_item = per_item});
        CHECK(a.kernel().points_per_item == (per_item || !eight_fit ? 4 : 8));
        CHECK(a.kernel().centroids_per_chunk == 16 * a.kernel().centroids_per_item);
        check_tied_labels(a, X, C, p);
      }
    }
  }
  // The device update with gemm: the same sums as the double reference, weighted, with an empty cluster,
  // and with K = N (every point its own cluster) over a partial tile of points.
  const Shape sums_shapes[] = {{1237, 3, 15}, {200, 5, 200}};
  for (const Shape& s : test::sweep(sums_shapes)) {
    const auto [X, C, w] = sums_case(s, seed, 10.0);
    for (Precision p : test::kPrecisions) {
      CAPTURE(s.k);
      CAPTURE(itercl::precision_name(p));
      KMeansAssignment a(test::device(), X, p, KMeansKernel{.variant = "gemm", .update = "device"});
      check_sums(a, X, {}, C, p, s.n);
      a.set_sample_weight(w);
      check_sums(a, X, w, C, p, 0);
    }
  }
}

TEST_CASE("gemm: shapes it cannot take are refused with the field named") {
  const Matrix X = test::random_matrix(100, 3, 101);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "gemm", .work_group_size = 64}),
      doctest::Contains("kernel.work_group_size: variant gemm takes a multiple of 128 work-items"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "gemm", .points_per_item = 6}),
      doctest::Contains("multiples of 4"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "gemm", .register_values = 32}),
      doctest::Contains("gemm stages tiles of its own shape"), itercl::ParamError);
  // Tiles larger than local memory, even shrunk to 4 x 4 per work-item: 32 points and 64 centroids of
  // local_memory / 400 features.
  const auto features = static_cast<Eigen::Index>(test::device().info().local_memory / (100 * sizeof(float))) + 1;
  const Matrix wide = test::random_matrix(10, features, 102);
  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), wide, Precision::f32, KMeansKernel{.variant = "gemm"}),
                       doctest::Contains("bytes of local memory"), itercl::ParamError);
}

TEST_CASE("mma: N past the warps' tiles, K below and past a block and a chunk, D odd to 64, exact ties; sums") {
  if (!test::runs("mma", Precision::f32)) {
    MESSAGE("skipped: mma needs NVIDIA's tensor cores; \"mma: refused ...\" checks the refusal on this device");
    return;
  }
  // {n, d, k}: K = 3 below a block of 8, K = 301 past chunks of 160 with a partial block, D = 1, odd, 32 as
  // in issue 13 (4 k-steps) and 64 (8 k-steps, one tile a warp).
  const Shape shapes[] = {{1001, 5, 3}, {777, 4, 301}, {999, 1, 7}, {515, 32, 200}, {333, 64, 41}, {1500, 13, 1024}};
  std::uint64_t seed = 111;
  for (const Shape& s : shapes) {
    const auto [X, C] = with_ties(s, seed);
    seed += 2;
    // The default shape; one warp of one tile with chunks of 8 centroids (every chunk boundary a block's).
    for (const KMeansKernel& k :
         {KMeansKernel{.variant = "mma"},
          KMeansKernel{.variant = "mma", .work_group_size = 32, .points_per_item = 1, .centroids_per_chunk = 8}}) {
      CAPTURE(s.n);
      CAPTURE(s.d);
      CAPTURE(s.k);
      CAPTURE(k.work_group_size);
      KMeansAssignment a(test::device(), X, Precision::f32, k);
      CHECK(a.kernel().variant == "mma");
      check_tied_labels(a, X, C, Precision::f32);
    }
  }
  // The device update: the same sums as the double reference, weighted, an empty cluster, K = N, and
  // points far from the origin (the host centres them; 3xTF32 keeps float's accuracy on what remains).
  const Shape sums_shapes[] = {{1237, 3, 15}, {200, 5, 200}, {4099, 32, 100}};
  for (const Shape& s : sums_shapes) {
    const auto [X, C, w] = sums_case(s, seed, 1e3);
    CAPTURE(s.n);
    CAPTURE(s.d);
    CAPTURE(s.k);
    KMeansAssignment a(test::device(), X, Precision::f32, KMeansKernel{.variant = "mma", .update = "device"});
    check_sums(a, X, {}, C, Precision::f32, s.n);
    a.set_sample_weight(w);
    check_sums(a, X, w, C, Precision::f32, 0);
  }
}

TEST_CASE("mma: refused by name where it cannot run") {
  const Matrix X = test::random_matrix(100, 8, 121);
  if (test::device().info().nvidia_compute_capability < 80) {
    CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "mma"}),
                         doctest::Contains("kernel.variant: mma runs on the tensor cores of NVIDIA GPUs"),
                         itercl::ParamError);
    // auto never takes it here, whatever a config's threshold.
    CHECK(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.mma_from_dim = 1}).kernel().variant !=
          "mma");
    return;
  }
  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), X, Precision::f64, KMeansKernel{.variant = "mma"}),
                       doctest::Contains("TF32"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "mma", .work_group_size = 48}),
      doctest::Contains("kernel.work_group_size: variant mma takes whole warps"), itercl::ParamError);
  CHECK(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.mma_from_dim = 1}).kernel().variant == "mma");
}

TEST_CASE("the device update is refused where it cannot run, and assign_and_sum without it") {
  const Matrix X = test::random_matrix(100, 3, 61);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "naive", .update = "device"}),
      doctest::Contains("kernel.update"), itercl::ParamError);
  KMeansAssignment host(test::device(), X, Precision::f32, KMeansKernel{.update = "host"});
  CHECK_THROWS_WITH_AS(host.assign_and_sum(X.topRows(2)), doctest::Contains("kernel.update"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.update = "gpu"}),
                       doctest::Contains("kernel.update"), itercl::ParamError);
  KMeansAssignment device(test::device(), X, Precision::f32, KMeansKernel{.variant = "expanded", .update = "device"});
  CHECK_THROWS_WITH_AS(device.set_sample_weight(std::vector<double>(99, 1.0)),
                       doctest::Contains("sample_weight: has 99 weights for 100 samples"), itercl::ParamError);
}

TEST_CASE("invalid centroids, data and tuning are rejected with the field named") {
  const Matrix X = test::random_matrix(100, 3, 41);
  KMeansAssignment a(test::device(), X, Precision::f32);
  CHECK_THROWS_WITH_AS(a.assign(Matrix(2, 4)), doctest::Contains("centroids: have 4 features, the points 3"),
                       itercl::ParamError);
  CHECK_THROWS_AS(a.assign(Matrix(0, 3)), itercl::ParamError);

  Matrix huge = X;
  huge(5, 1) = 1e30;  // its squared distances overflow float
  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), huge, Precision::f32),
                       doctest::Contains("overflow squared distances in float"), itercl::InputError);
  CHECK_NOTHROW(KMeansAssignment(test::device(), huge, Precision::f64));

  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "fast"}),
                       doctest::Contains("kernel.variant"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "naive", .points_per_item = 4}),
      doctest::Contains("naive takes one point per work-item"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "expanded", .centroids_per_item = 4}),
      doctest::Contains("kernel.centroids_per_item: applies to variants tiled and gemm only"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.variant = "tiled", .centroids_per_item = 17}),
      doctest::Contains("kernel.centroids_per_item"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(
      KMeansAssignment(test::device(), X, Precision::f32,
                       KMeansKernel{.variant = "tiled", .centroids_per_chunk = 6, .centroids_per_item = 4}),
      doctest::Contains("kernel.centroids_per_chunk: 6 is not a multiple of centroids_per_item (4)"),
      itercl::ParamError);
  const auto too_big = static_cast<int>(test::device().info().max_work_group_size) * 2;
  CHECK_THROWS_WITH_AS(KMeansAssignment(test::device(), X, Precision::f32, KMeansKernel{.work_group_size = too_big}),
                       doctest::Contains("kernel.work_group_size"), itercl::ParamError);
}

TEST_CASE("tuning sweeps the declared space, checks every candidate and proposes the fastest correct one") {
  itercl::TuneOptions options;
  // 64 features: every register budget of the space means one point per work-item, as the naive kernel
  // (point_blocks' larger ones 1, 2 and 4), and tiled's points clip to 3 (a 256-value register tile), so
  // the sweep builds few programs per work-group size (the builds dominate the test's time on PoCL).
  options.problem = {{"n_samples", 3000}, {"n_features", 64}, {"n_clusters", 20}};
  options.repeats = 1;
  const itercl::TuneReport r = itercl::tune("kmeans", test::device(), options);
  CHECK(r.problem["n_samples"] == 3000);
  REQUIRE(r.candidates.size() > 10);
  for (const auto& c : r.candidates) {
    CAPTURE(c.parameters.dump());
    if (c.rejected.empty()) CHECK(c.median_ms > 0);
    CHECK(c.rejected.find("label") == std::string::npos);  // every variant is correct on this device
    if (c.parameters["variant"] == "tiled") CHECK(c.parameters["points_per_item"] == 3);
    if (!test::runs("mma", Precision::f32)) CHECK(c.parameters["variant"] != "mma");  // swept only where it runs
  }
  const auto& best = r.candidates[r.best];
  for (const auto& c : r.candidates)
    if (c.rejected.empty()) CHECK(best.median_ms <= c.median_ms);
  CHECK(r.entry["variant"] == best.parameters["variant"]);
  CHECK(r.entry["tuned"]["candidates"] == r.candidates.size());

  options.problem = {{"n_samples", 10}, {"n_clusters", 20}};
  CHECK_THROWS_WITH_AS(itercl::tune("kmeans", test::device(), options), doctest::Contains("n_clusters"),
                       itercl::InputError);
  options.problem = {{"n_sample", 10}};
  CHECK_THROWS_WITH_AS(itercl::tune("kmeans", test::device(), options), doctest::Contains("n_sample: unknown field"),
                       itercl::InputError);
  CHECK_THROWS_AS(itercl::tune("bogus", test::device(), options), itercl::InputError);
}

}  // namespace kmeans_tests
