// K-Means with points in chunks (kmeans_stream.hpp), kept on the device or streamed through it: the same
// answer, bit for bit, as with the points in one buffer. ITERCL_MAX_ALLOCATION (chunks kept) and
// ITERCL_DEVICE_MEMORY (chunks streamed) make the PoCL device look small, so that a few thousand points
// take 3 or more chunks.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_stream.hpp"
#include "reference/kmeans_reference.hpp"
#include "test_support.hpp"

using itercl::Device;
using itercl::KMeans;
using itercl::KMeansInit;
using itercl::KMeansParams;
using itercl::Matrix;
using itercl::Precision;

namespace kmeans_stream_tests {

// The test device as it would look with `variable` set to `bytes`: a second handle on the same context
// and queue, with the lowered memory in its description.
Device limited_device(const char* variable, std::uint64_t bytes) {
  const Device& d = test::device();
  setenv(variable, std::to_string(bytes).c_str(), 1);
  Device limited = Device::from_opencl(d.context(), d.device(), d.queue());
  unsetenv(variable);
  return limited;
}

// The resident run's results, every value identical; `streamed` says how the chunks were held.
void check_identical(const itercl::KMeansResult& streamed, const itercl::KMeansResult& resident,
                     bool expect_streamed = true) {
  CHECK(resident.streaming.chunks == 0);
  CHECK(streamed.streaming.streamed == expect_streamed);
  CHECK(streamed.streaming.chunks >= 3);
  CHECK(streamed.labels.size() % static_cast<std::size_t>(streamed.streaming.chunk_rows) != 0);
  CHECK(streamed.labels == resident.labels);
  CHECK(streamed.centroids == resident.centroids);
  CHECK(streamed.inertia == resident.inertia);
  CHECK(streamed.n_iter == resident.n_iter);
  CHECK(streamed.n_relocated == resident.n_relocated);
  CHECK(streamed.init_inertia == resident.init_inertia);
  REQUIRE(streamed.iterations.size() == resident.iterations.size());
  for (std::size_t it = 0; it < streamed.iterations.size(); ++it)
    CHECK(streamed.iterations[it].inertia == resident.iterations[it].inertia);
}

TEST_CASE("streamed points give the resident run's labels, centroids, inertia and iterations, bit for bit") {
  constexpr Eigen::Index kN = 3001, kD = 5;  // N a multiple of no chunk; D odd, unpadded
  const Matrix X =
      itercl::make_blobs({.n_samples = kN, .n_features = kD, .centers = 6, .cluster_std = 1.5, .random_state = 21});
  std::vector<double> w(kN);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.25 + static_cast<double>(i % 5) / 3;
  const Eigen::MatrixXf Xf = X.cast<float>();
  const itercl::RowsView floats(Xf.data(), kN, kD);  // float rows, streamed as stored
  // Streamed: the device holds the labels and weights (12 bytes a point, 36,012), the centroids and sums,
  // and beside them two chunks of a granule (a work-group's 192 points, rounded up to the device's
  // base-address alignment: 384 on an H200) in double, not all the points (20 bytes each in float).
  const Eigen::Index granule = itercl::kmeans::chunk_granule(test::device(), 192);
  const Device small = limited_device("ITERCL_DEVICE_MEMORY", 38000 + 2 * granule * kD * sizeof(double));
  // Kept: points above one allocation, labels and weights within it: 3 chunks in float, 6 in double.
  const Device split = limited_device("ITERCL_MAX_ALLOCATION", kN * sizeof(double) + 64);
  for (Precision p : test::kPrecisions) {
    for (const char* update : {"host", "device"}) {
      for (KMeansInit init : {KMeansInit::kmeans_plus_plus, KMeansInit::random}) {
        CAPTURE(itercl::precision_name(p));
        CAPTURE(update);
        CAPTURE(static_cast<int>(init));
        KMeansParams params;
        params.n_clusters = 7;
        params.init = init;
        params.n_init = init == KMeansInit::random ? 2 : 1;
        params.random_state = 5;
        params.precision = p;
        params.kernel.update = update;
        params.kernel.variant = "expanded";
        // A chunk is whole work-groups: the same 192 points on every device, whatever its tuning.
        params.kernel.work_group_size = 64;
        params.kernel.points_per_item = 3;
        const auto resident = KMeans(test::device(), params).fit(floats, w);
        check_identical(KMeans(small, params).fit(floats, w), resident);
        check_identical(KMeans(split, params).fit(floats, w), resident, false);
        check_identical(KMeans(small, params).fit(X), KMeans(test::device(), params).fit(X));
      }
    }
  }
}

TEST_CASE("streamed: an empty cluster is relocated as in the resident run, on either update") {
  constexpr Eigen::Index kN = 2500, kD = 3;
  const Matrix X =
      itercl::make_blobs({.n_samples = kN, .n_features = kD, .centers = 4, .cluster_std = 1.0, .random_state = 8});
  Matrix init(4, kD);
  for (Eigen::Index j = 0; j < 4; ++j) init.row(j) = X.row(j);
  init.row(3).setConstant(1e4);  // nearest to no point: relocated on the first iteration
  // The whole memory limited this time: the labels (4 bytes a point) stay, with the centroids and sums, and
  // beside them two chunks of a granule (a work-group's 320 points, rounded up to the device's base-address
  // alignment: 640 on an H200), not all the points.
  const Eigen::Index granule = itercl::kmeans::chunk_granule(test::device(), 320);
  for (Precision p : test::kPrecisions) {
    const Device small = limited_device("ITERCL_DEVICE_MEMORY", kN * 4 + 500 + 2 * granule * kD * itercl::real_size(p));
    for (const char* update : {"host", "device"}) {
      CAPTURE(itercl::precision_name(p));
      CAPTURE(update);
      KMeansParams params;
      params.n_clusters = 4;
      params.init = KMeansInit::given;
      params.init_centroids = init;
      params.precision = p;
      params.kernel.update = update;
      params.kernel.variant = "expanded";
      params.kernel.work_group_size = 64;  // work-groups of 320 points on every device
      params.kernel.points_per_item = 5;
      const auto resident = KMeans(test::device(), params).fit(X);
      CHECK(resident.n_relocated >= 1);
      check_identical(KMeans(small, params).fit(X), resident);
      CHECK(resident.labels == reference::nearest(X, resident.centroids));
    }
  }
}

TEST_CASE("the assignment in chunks, kept or streamed: every variant's labels, for K = 5 and then more") {
  const Matrix X = test::random_matrix(2049, 4, 17, 2.0, 30.0);
  // A third of the float points per allocation (kept); 20,000 bytes: the 8,196 of the labels and two
  // chunks of at most 368 points (streamed).
  const Device split = limited_device("ITERCL_MAX_ALLOCATION", 2049 * 4 * sizeof(float) / 3);
  const Device small = limited_device("ITERCL_DEVICE_MEMORY", 20000);
  for (const std::string& variant : test::kVariants) {
    if (!test::runs(variant, Precision::f32)) continue;
    CAPTURE(variant);
    // A chunk is whole work-groups: 32 points each on every device, whatever its tuning.
    itercl::KMeansKernel k{.variant = variant};
    switch (itercl::kmeans::variant(variant).shape) {
      case itercl::kmeans::Shape::gemm_tiles:
        k.work_group_size = 128, k.points_per_item = 4, k.centroids_per_item = 4;
        break;
      case itercl::kmeans::Shape::warp_tiles:
        k.work_group_size = 32, k.points_per_item = 2;  // one warp of 2 tiles of 16 points
        break;
      case itercl::kmeans::Shape::one_point:
        k.work_group_size = 16;
        break;
      case itercl::kmeans::Shape::staged:
        k.work_group_size = 16, k.points_per_item = 2;
        break;
    }
    itercl::KMeansAssignment resident(test::device(), X, Precision::f32, k);
    for (const Device* device : {&split, &small}) {
      itercl::KMeansAssignment chunked(*device, X, Precision::f32, k);
      for (Eigen::Index clusters : {5, 40, 40}) {  // the second 40: kept chunks are not uploaded again
        const Matrix C = test::random_matrix(clusters, 4, 3 + clusters, 2.0, 30.0);
        itercl::Timings t;
        const auto a = chunked.assign(C, &t);
        const std::vector<std::int32_t> got(a.begin(), a.end());
        const auto b = resident.assign(C);
        CHECK(got == std::vector<std::int32_t>(b.begin(), b.end()));
        const itercl::KMeansStreaming how = chunked.streaming();
        CHECK(how.chunks >= 3);
        CHECK(how.streamed == (device == &small));
        CHECK(how.bytes_per_call == (how.streamed ? 2049 * 4 * sizeof(float) : 0));
      }
    }
  }
}

TEST_CASE("streamed chunks of about 10,000 points, each packed by several threads: the resident labels") {
  const Matrix X = test::random_matrix(40000, 4, 23, 1.0, -7.0);
  const Eigen::MatrixXf Xf = X.cast<float>();
  const itercl::RowsView floats(Xf.data(), X.rows(), X.cols());
  // The labels' 160,000 bytes and two chunks of 9,984 float points: 5 chunks, each packed by 2 threads on
  // 2 cores (and 8 chunks of 4,864 points in double).
  const Device small = limited_device("ITERCL_DEVICE_MEMORY", 480000);
  for (Precision p : test::kPrecisions) {
    CAPTURE(itercl::precision_name(p));
    // Work-groups of 256 points on every device (a chunk is whole work-groups).
    const itercl::KMeansKernel k{.variant = "expanded", .work_group_size = 64, .points_per_item = 4};
    itercl::KMeansAssignment streamed(small, floats, p, k), resident(test::device(), floats, p, k);
    const Matrix C = test::random_matrix(40, 4, 5, 1.0, -7.0);
    const auto a = streamed.assign(C);
    const std::vector<std::int32_t> got(a.begin(), a.end());
    const auto b = resident.assign(C);
    CHECK(got == std::vector<std::int32_t>(b.begin(), b.end()));
    CHECK(streamed.streaming().streamed);
    CHECK(streamed.streaming().chunks >= 3);
  }
}

TEST_CASE("a device too small for the labels and centroids, or for two chunks, is refused with the sizes") {
  const Matrix X = test::random_matrix(3000, 4, 2);
  KMeansParams params;
  params.n_clusters = 3;
  params.kernel.variant = "expanded";
  // 3000 labels take 12,000 bytes: with 12,500 nothing is left for the centroids and the chunks.
  const Device tiny = limited_device("ITERCL_DEVICE_MEMORY", 12500);
  CHECK_THROWS_WITH_AS(KMeans(tiny, params).fit(X), doctest::Contains("cannot hold two chunks"), itercl::InputError);
  params.n_clusters = 2000;
  const Matrix many = test::random_matrix(3000, 40, 2);
  const Device small = limited_device("ITERCL_DEVICE_MEMORY", 3000 * 4 * 20);
  params.init = KMeansInit::random;
  CHECK_THROWS_WITH_AS(KMeans(small, params).fit(many), doctest::Contains("the centroids and their sums need"),
                       itercl::InputError);
}

}  // namespace kmeans_stream_tests
