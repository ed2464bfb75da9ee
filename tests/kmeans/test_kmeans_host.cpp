// The host half of K-Means (update, relocation, inertia, initialisation, parameters), no device needed.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "core/random.hpp"
#include "io/datagen_rows.hpp"
#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_steps.hpp"
#include "reference/kmeans_reference.hpp"
#include "test_support.hpp"

using itercl::Matrix;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace kmeans_tests {

std::vector<std::int32_t> random_labels(Eigen::Index n, int k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % k);  // none empty
  std::shuffle(labels.begin(), labels.end(), rng);
  return labels;
}

std::set<std::vector<double>> rows_of(const Matrix& m) {
  std::set<std::vector<double>> rows;
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.insert(std::vector<double>(m.row(i).begin(), m.row(i).end()));
  return rows;
}

TEST_CASE("update: weighted means, inertia, changed labels and shift, on 100,000 points over several threads") {
  const Eigen::Index n = 100000, d = 3;
  const int k = 17;
  const Matrix X = test::random_matrix(n, d, 1, 2.0, 5.0);
  const Matrix C = test::random_matrix(k, d, 2, 2.0, 5.0);
  std::vector<double> w(static_cast<std::size_t>(n));
  std::mt19937_64 rng(3);
  for (double& v : w) v = std::uniform_real_distribution<double>(0.5, 2.0)(rng);
  const auto labels = random_labels(n, k, 4);

  std::vector<std::int32_t> previous = labels;
  previous[10] = (previous[10] + 1) % k;
  previous[99999] = (previous[99999] + 1) % k;
  Matrix next;
  const auto u = itercl::kmeans::update_centroids(X, w, labels, previous, C, next);

  Matrix sums = Matrix::Zero(k, d);
  std::vector<double> weight(k, 0.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    sums.row(labels[i]) += w[i] * X.row(i);
    weight[labels[i]] += w[i];
  }
  double shift = 0;
  for (int j = 0; j < k; ++j) {
    const Eigen::RowVectorXd mean = sums.row(j) / weight[j];
    CHECK((next.row(j) - mean).norm() <= 1e-12 * mean.norm());
    shift += (mean - C.row(j)).squaredNorm();
  }
  const double inertia = reference::inertia(X, w, labels, C);
  CHECK(u.inertia == doctest::Approx(inertia).epsilon(1e-12));
  CHECK(u.shift_sq == doctest::Approx(shift).epsilon(1e-12));
  CHECK(u.n_changed == 2);
  CHECK(u.n_relocated == 0);
  CHECK(previous == labels);  // overwritten for the next iteration
  CHECK(itercl::kmeans::kmeans_inertia(X, w, labels, C) == doctest::Approx(inertia).epsilon(1e-12));
}

TEST_CASE("update relocates an empty cluster to the farthest point (scikit-learn's example)") {
  Matrix X(4, 2);
  X << 0, 0, .5, 0, .5, 1, 1, 1;
  Matrix C(2, 2);
  C << .5, .5, 3, 3;
  const std::vector<std::int32_t> labels(4, 0);  // every point nearer (.5, .5)
  std::vector<std::int32_t> previous(4, -1);
  Matrix next;
  const auto u = itercl::kmeans::update_centroids(X, {}, labels, previous, C, next);
  CHECK(u.n_relocated == 1);
  // (0, 0) and (1, 1) are equally far; the later point moves, as in scikit-learn.
  CHECK(next(1, 0) == 1.0);
  CHECK(next(1, 1) == 1.0);
  CHECK(next(0, 0) == doctest::Approx(1.0 / 3));
  CHECK(next(0, 1) == doctest::Approx(1.0 / 3));
  CHECK(next.allFinite());
}

TEST_CASE("update relocates several empty clusters, farthest first, never to zero-weight points") {
  Matrix X(6, 1);
  X << 0, 1, 2, 10, 20, 30;
  Matrix C(4, 1);
  C << 1, 100, 200, 300;
  const std::vector<std::int32_t> labels(6, 0);
  const std::vector<double> w = {1, 1, 1, 1, 1, 0};  // 30 is farthest but weighs nothing
  std::vector<std::int32_t> previous(6, -1);
  Matrix next;
  const auto u = itercl::kmeans::update_centroids(X, w, labels, previous, C, next);
  CHECK(u.n_relocated == 3);
  CHECK(next(1, 0) == 20.0);  // the farthest point to the lowest empty cluster
  CHECK(next(2, 0) == 10.0);
  CHECK(next(3, 0) == 2.0);  // 0 and 2 are equally far from 1: the later point moves
  CHECK(next(0, 0) == 0.5);  // what remains: 0 and 1 (30 weighs nothing)
}

TEST_CASE("scaled tolerance is tol times the mean per-feature variance") {
  Matrix X(4, 2);
  X << 0, 0, 2, 10, 4, 20, 6, 30;  // variances 5 and 125 (population)
  CHECK(itercl::kmeans_scaled_tol(X, 1e-4) == doctest::Approx(1e-4 * 65));
  CHECK(itercl::kmeans_scaled_tol(X, 0) == 0);
}

TEST_CASE("k-means++ picks distinct data points, one per blob, reproducibly") {
  const Matrix X =
      itercl::make_blobs({.n_samples = 3000, .n_features = 2, .centers = 6, .cluster_std = 0.2, .random_state = 5});
  itercl::Rng a(7), b(7), c(8);
  const Matrix first = itercl::kmeans::init_kmeans_plus_plus(X, {}, 6, a);
  CHECK(first == itercl::kmeans::init_kmeans_plus_plus(X, {}, 6, b));
  CHECK(first != itercl::kmeans::init_kmeans_plus_plus(X, {}, 6, c));
  const auto data_rows = rows_of(X);
  for (const auto& row : rows_of(first)) CHECK(data_rows.count(row) == 1);
  // Blobs far apart with tight spread: greedy k-means++ seeds each blob once.
  std::set<int> blobs;
  for (Eigen::Index j = 0; j < 6; ++j) {
    const auto nearest = reference::nearest(first.row(j), X);  // index of the data row it is
    blobs.insert(nearest[0] % 6);                              // make_blobs: sample i is in blob i % centers
  }
  CHECK(blobs.size() == 6);
}

TEST_CASE("initialisation never picks zero-weight samples") {
  const Matrix X = test::random_matrix(500, 2, 9);
  std::vector<double> w(500, 0.0);
  for (std::size_t i = 0; i < w.size(); i += 5) w[i] = 1.0;
  const auto allowed = [&] {
    Matrix m(100, 2);
    for (Eigen::Index i = 0; i < 100; ++i) m.row(i) = X.row(i * 5);
    return rows_of(m);
  }();
  itercl::Rng rng(1);
  for (const auto& row : rows_of(itercl::kmeans::init_kmeans_plus_plus(X, w, 30, rng))) CHECK(allowed.count(row) == 1);
  const Matrix random = itercl::kmeans::init_random(X, w, 100, rng);
  CHECK(rows_of(random) == allowed);  // all 100 positive-weight samples, each once
}

TEST_CASE("random initialisation: the k samples of the smallest draws, whatever the threads' split") {
  // 100,000 points split over every core; unweighted, point i's key is its own draw of the stream that one
  // draw of the run's generator keys, so the chosen rows are those of the k smallest draws, in index order.
  const Eigen::Index n = 100000;
  const int k = 37;
  Matrix X(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) X(i, 0) = static_cast<double>(i);
  itercl::Rng rng(5), copy(5);
  const Matrix chosen = itercl::kmeans::init_random(X, {}, k, rng);
  const std::uint64_t stream = copy();
  std::vector<std::pair<double, Eigen::Index>> draws;
  for (Eigen::Index i = 0; i < n; ++i)
    draws.emplace_back(itercl::uniform01_at(stream, static_cast<std::uint64_t>(i)), i);
  std::partial_sort(draws.begin(), draws.begin() + k, draws.end());
  std::vector<double> expected;
  for (int c = 0; c < k; ++c) expected.push_back(static_cast<double>(draws[static_cast<std::size_t>(c)].second));
  std::sort(expected.begin(), expected.end());
  REQUIRE(chosen.rows() == k);
  for (int c = 0; c < k; ++c) CHECK(chosen(c, 0) == expected[static_cast<std::size_t>(c)]);
  CHECK(rng() == copy());  // the run's generator moved on by that one draw
}

TEST_CASE("parameters are validated with scikit-learn's names") {
  itercl::KMeansParams p;
  p.n_clusters = 0;
  CHECK_THROWS_WITH_AS(p.validate(), "n_clusters: expected an integer >= 1, got 0", itercl::ParamError);
  p = {};
  p.max_iter = 0;
  CHECK_THROWS_WITH_AS(p.validate(), "max_iter: expected an integer >= 1, got 0", itercl::ParamError);
  p = {};
  p.tol = -1;
  CHECK_THROWS_AS(p.validate(), itercl::ParamError);
  p = {};
  p.init = itercl::KMeansInit::given;
  p.n_clusters = 2;
  p.init_centroids = Matrix::Zero(3, 2);
  CHECK_THROWS_WITH_AS(p.validate(), "init: has 3 centroids for n_clusters = 2", itercl::ParamError);
  p.init_centroids = Matrix::Zero(2, 2);
  p.n_init = 3;
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("n_init: 3 runs from the same given centroids"),
                       itercl::ParamError);
}

TEST_CASE("generators are reproducible and shaped as asked") {
  const itercl::UniformParams up{.n_samples = 1000, .n_features = 3, .low = -2, .high = 5, .random_state = 4};
  const Matrix U = itercl::make_uniform(up);
  CHECK(U.rows() == 1000);
  CHECK(U.cols() == 3);
  CHECK(U.minCoeff() >= -2);
  CHECK(U.maxCoeff() < 5);
  CHECK(std::abs(U.mean() - 1.5) < 0.2);
  CHECK(U == itercl::make_uniform(up));
  const Matrix B = itercl::make_blobs({.n_samples = 900, .n_features = 2, .centers = 3, .cluster_std = 0.5});
  CHECK(B.rows() == 900);
  CHECK_THROWS_AS(itercl::make_uniform({.n_samples = 0}), itercl::ParamError);
}

TEST_CASE("a generator's rows are the same values as those rows of the whole data (an MPI rank's part)") {
  const itercl::UniformParams up{.n_samples = 1001, .n_features = 3, .random_state = 8};
  const itercl::BlobsParams bp{.n_samples = 1001, .n_features = 5, .centers = 7, .random_state = 9};
  const Matrix U = itercl::make_uniform(up), B = itercl::make_blobs(bp);
  for (const auto& [first, rows] :
       {std::pair<Eigen::Index, Eigen::Index>{0, 1001}, {0, 333}, {333, 334}, {667, 334}, {1000, 1}, {500, 0}}) {
    CAPTURE(first);
    CHECK(itercl::make_uniform(up, first, rows) == U.middleRows(first, rows));
    CHECK(itercl::make_blobs(bp, first, rows) == B.middleRows(first, rows));
  }
  CHECK_THROWS_WITH_AS(itercl::make_blobs(bp, 1000, 2), doctest::Contains("rows [1000, 1002) lie outside the 1001"),
                       itercl::ParamError);
  CHECK_THROWS_AS(itercl::make_uniform(up, -1, 2), itercl::ParamError);
}

// A generator's rows as double, whatever precision they are held in.
Matrix held(const itercl::core::HostRows& rows) {
  return rows.view().visit([](const auto& r) -> Matrix { return r.template cast<double>(); });
}

TEST_CASE("generated rows on several threads and in parts are the whole draw on one thread; float rounds it") {
  using itercl::Precision;
  namespace io = itercl::io;
  // Three streams of 65,536 rows and part of a fourth.
  const Eigen::Index n = 3 * io::kStreamRows + 12345;
  const itercl::BlobsParams bp{.n_samples = n, .n_features = 3, .centers = 5, .cluster_std = 2, .random_state = 17};
  const itercl::UniformParams up{.n_samples = n, .n_features = 2, .low = -3, .high = 4, .random_state = 23};
  const Matrix B = held(io::blobs_rows(bp, 0, n, Precision::f64, 1)),
               U = held(io::uniform_rows(up, 0, n, Precision::f64, 1));
  CHECK(B == itercl::make_blobs(bp));
  CHECK(U == itercl::make_uniform(up));

  // The definition, drawn here on its own: stream 0 is std::mt19937_64(random_state), stream s the seed
  // sequence (random_state, s); a uniform value is low + (high - low) times 53 random bits.
  for (Eigen::Index s = 0; s * io::kStreamRows < n; ++s) {
    CAPTURE(s);
    std::seed_seq sequence{23u, 0u, static_cast<std::uint32_t>(s), 0u};
    std::mt19937_64 rng = s == 0 ? std::mt19937_64(23) : std::mt19937_64(sequence);
    bool same = true;
    for (Eigen::Index i = s * io::kStreamRows; i < std::min(n, (s + 1) * io::kStreamRows); ++i)
      for (Eigen::Index j = 0; j < 2; ++j)
        same = same && U(i, j) == -3 + 7 * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
    CHECK(same);
  }

  for (const int workers : {2, 3, 8}) {
    CAPTURE(workers);
    CHECK(held(io::blobs_rows(bp, 0, n, Precision::f64, workers)) == B);
    CHECK(held(io::uniform_rows(up, 0, n, Precision::f64, workers)) == U);
  }
  // Parts that start and end inside streams, across their boundaries, and at them; float is the double
  // values rounded once.
  for (const auto& [first, rows] : {std::pair<Eigen::Index, Eigen::Index>{65530, 20},
                                    {1, 2 * io::kStreamRows},
                                    {70000, n - 70000},
                                    {2 * io::kStreamRows, 5},
                                    {0, io::kStreamRows},
                                    {n - 1, 1}}) {
    for (const int workers : {0, 1, 3}) {
      CAPTURE(first);
      CAPTURE(workers);
      CHECK(held(io::blobs_rows(bp, first, rows, Precision::f64, workers)) == B.middleRows(first, rows));
      CHECK(held(io::uniform_rows(up, first, rows, Precision::f64, workers)) == U.middleRows(first, rows));
      const itercl::core::HostRows bf = io::blobs_rows(bp, first, rows, Precision::f32, workers);
      const itercl::core::HostRows uf = io::uniform_rows(up, first, rows, Precision::f32, workers);
      REQUIRE(bf.precision() == Precision::f32);
      CHECK(held(bf) == B.middleRows(first, rows).cast<float>().cast<double>());
      CHECK(held(uf) == U.middleRows(first, rows).cast<float>().cast<double>());
    }
  }
  // Values beyond float's range are refused in float, not rounded to infinity.
  const itercl::UniformParams wide{.n_samples = 10, .n_features = 1, .low = -1e300, .high = 1e300};
  CHECK(held(io::uniform_rows(wide, 0, 10, Precision::f64)).allFinite());
  CHECK_THROWS_WITH_AS(io::uniform_rows(wide, 0, 10, Precision::f32), doctest::Contains("beyond float's range"),
                       itercl::ParamError);
}

TEST_CASE("the scaled tolerance: the variance about an origin near the mean, exact far from zero too") {
  // A shifted copy: the variance is the same, the origin moves with the data; 1,024 sampled rows.
  const Matrix X = itercl::make_uniform({.n_samples = 5000, .n_features = 3, .random_state = 3});
  const Matrix shifted = X.array() + 1e6;
  CHECK(itercl::kmeans_scaled_tol(shifted, 1e-4) == doctest::Approx(itercl::kmeans_scaled_tol(X, 1e-4)).epsilon(1e-9));
  const Eigen::RowVectorXd mean = X.colwise().mean();
  const double variance = (X.rowwise() - mean).array().square().sum() / 5000.0 / 3.0;
  CHECK(itercl::kmeans_scaled_tol(X, 1e-4) == doctest::Approx(1e-4 * variance).epsilon(1e-12));
}

TEST_CASE("auto: the device's tiled variant up to tiled_up_to_dim features, expanded above") {
  itercl::DeviceInfo h200;
  h200.name = "NVIDIA H200", h200.type = "gpu", h200.vendor = "NVIDIA Corporation";
  h200.compute_units = 132, h200.max_work_group_size = 1024, h200.local_memory = 228 * 1024;
  std::vector<std::string> sources;
  auto variant = [&](itercl::KMeansKernel k, Eigen::Index dim) {
    return itercl::kmeans::resolve(std::move(k), h200, {.dim = dim, .precision = itercl::Precision::f32}, sources)
        .variant;
  };
  // The H200's entry: tiled measured faster at D = 4, slower at D = 32 (tuning/kmeans.json).
  CHECK(variant({}, 4) == "tiled");
  CHECK(variant({}, 5) == "expanded");
  CHECK(variant({}, 32) == "expanded");
  CHECK(variant({.tiled_up_to_dim = 64}, 32) == "tiled");  // a config's threshold replaces the device's
  CHECK(variant({.variant = "tiled"}, 32) == "tiled");     // a variant asked for is kept
  // register_values / D points per work-item: at most 16 in the GPU-shaped variants (the H200's 128
  // register values at D = 4), up to 64 in point_blocks.
  const auto resolved = [&](itercl::KMeansKernel k, Eigen::Index dim) {
    return itercl::kmeans::resolve(std::move(k), h200, {.dim = dim, .precision = itercl::Precision::f32}, sources);
  };
  // The entry's points_per_item is its variant's (tiled at D = 4); expanded above takes register_values / D.
  CHECK(resolved({}, 4).points_per_item == 10);
  CHECK(resolved({}, 32).points_per_item == 4);
  CHECK(resolved({.variant = "tiled"}, 32).points_per_item == 10);
  CHECK(resolved({.variant = "tiled", .points_per_item = 6}, 4).points_per_item == 6);
  CHECK(resolved({.variant = "tiled", .register_values = 32}, 4).points_per_item == 8);  // a config's budget
  // A tile of 4 centroids at D = 4 stages 4 x 5 values (-2c and the norms); 16,384 bytes hold 204 tiles.
  CHECK(itercl::kmeans::staged_tile_values(resolved({}, 4), 4) == 20);
  CHECK(resolved({}, 4).centroids_per_chunk == 204 * 4);
  // Padded to whole vectors where D is a multiple of 4 (3 x 5 to 16), not otherwise (4 x 6 at D = 5).
  CHECK(itercl::kmeans::staged_tile_values({.variant = "tiled", .centroids_per_item = 3}, 4) == 16);
  CHECK(itercl::kmeans::staged_tile_values({.variant = "tiled", .centroids_per_item = 4}, 5) == 24);
  CHECK(itercl::kmeans::staged_tile_values({.variant = "expanded", .centroids_per_item = 1}, 8) == 12);
  CHECK(resolved({.variant = "expanded", .register_values = 256}, 4).points_per_item == 16);
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 4).points_per_item == 64);
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 32).points_per_item == 8);
  // ... rounded to whole vectors: a multiple of 16, or below 16 a power of two (51 at D = 5 would be scalar).
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 3).points_per_item == 64);
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 5).points_per_item == 48);
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 20).points_per_item == 8);
  CHECK(resolved({.variant = "point_blocks", .register_values = 256}, 300).points_per_item == 1);
  // A CPU's point_blocks cannot fuse the device update: asked for, auto takes expanded there.
  itercl::DeviceInfo cpu = h200;
  cpu.name = "Some CPU", cpu.type = "cpu", cpu.fp64 = true;
  const itercl::kmeans::Problem on_cpu{.dim = 4, .precision = itercl::Precision::f32, .int64_atomics = true};
  CHECK(itercl::kmeans::resolve({}, cpu, on_cpu, sources).variant == "point_blocks");
  const itercl::KMeansKernel fused = itercl::kmeans::resolve({.update = "device"}, cpu, on_cpu, sources);
  CHECK(fused.variant == "expanded");
  CHECK(fused.update == "device");
  CHECK_THROWS_WITH_AS(itercl::KMeansKernel{.tiled_up_to_dim = -1}.validate(),
                       doctest::Contains("kernel.tiled_up_to_dim"), itercl::ParamError);

  // gemm from gemm_from_dim on, where its default tiles fit in local memory; a config's threshold replaces
  // the device's, and a config's tuning of the staged variants keeps them.
  CHECK(variant({.gemm_from_dim = 16}, 8) == "expanded");
  CHECK(variant({.gemm_from_dim = 16}, 16) == "gemm");
  CHECK(variant({.tiled_up_to_dim = 4, .gemm_from_dim = 16}, 4) == "tiled");
  CHECK(variant({.register_values = 64, .gemm_from_dim = 16}, 32) == "expanded");
  // What NVIDIA's OpenCL reports: the default tiles of 64 features need 66 KB, 4 x 4 points by centroids fit.
  h200.local_memory = 48 * 1024;
  CHECK(variant({.gemm_from_dim = 16}, 40) == "gemm");
  const itercl::KMeansKernel shrunk =
      itercl::kmeans::resolve({.gemm_from_dim = 16}, h200, {.dim = 64, .precision = itercl::Precision::f32}, sources);
  CHECK(shrunk.variant == "gemm");
  CHECK(shrunk.points_per_item == 4);
  CHECK(shrunk.centroids_per_item == 4);
  CHECK(shrunk.work_group_size == 256);
  CHECK(shrunk.local_memory_bytes <= 48 * 1024);
  CHECK(variant({.gemm_from_dim = 16}, 128) == "expanded");  // not even the smallest tiles fit
  CHECK_THROWS_WITH_AS(itercl::KMeansKernel{.gemm_from_dim = -1}.validate(), doctest::Contains("kernel.gemm_from_dim"),
                       itercl::ParamError);
}

TEST_CASE("auto: mma from mma_from_dim on, only on NVIDIA's tensor cores and in float; its default shape") {
  itercl::DeviceInfo h200;
  h200.name = "NVIDIA H200", h200.type = "gpu", h200.vendor = "NVIDIA Corporation";
  h200.compute_units = 132, h200.max_work_group_size = 1024, h200.local_memory = 48 * 1024, h200.fp64 = true;
  h200.nvidia_compute_capability = 90;
  using itercl::Precision;
  std::vector<std::string> sources;
  auto resolved = [&](itercl::KMeansKernel k, Eigen::Index dim, Precision p = Precision::f32) {
    return itercl::kmeans::resolve(std::move(k), h200, {.dim = dim, .precision = p, .int64_atomics = true}, sources);
  };
  // NVIDIA's GPUs' entry: from D = 8 on (tuning/kmeans.json); the H200's tiled below. A config's threshold
  // replaces it.
  CHECK(resolved({}, 4).variant == "tiled");
  CHECK(resolved({}, 8).variant == "mma");
  CHECK(resolved({.mma_from_dim = 16}, 8).variant == "expanded");
  CHECK(resolved({.mma_from_dim = 16}, 16).variant == "mma");
  CHECK(resolved({.gemm_from_dim = 16, .mma_from_dim = 16}, 32).variant == "mma");  // ahead of gemm
  CHECK(resolved({.mma_from_dim = 16}, 32, Precision::f64).variant != "mma");       // TF32 cannot carry double
  CHECK(resolved({.mma_from_dim = 16}, 129).variant != "mma");  // one tile of 129 features: 136 registers
  // It fuses the device update, which auto keeps.
  CHECK(resolved({.mma_from_dim = 16}, 32).update == "device");
  // The default shape: 256 work-items, fragments in 64 registers a lane (2 tiles of 16 points at D = 32, 8 at
  // D <= 8, 1 from D = 57), 44 KiB of staged centroids in blocks of 8: 160 of 272 bytes at D = 32.
  const itercl::KMeansKernel d32 = resolved({.variant = "mma"}, 32);
  CHECK(d32.work_group_size == 256);
  CHECK(d32.points_per_item == 2);
  CHECK(itercl::kmeans::points_per_group(d32) == 256);
  CHECK(itercl::kmeans::mma_prepared_values(32) == 68);
  CHECK(d32.centroids_per_chunk == 160);
  CHECK(d32.local_memory_bytes == 160 * 68 * 4);
  CHECK(resolved({.variant = "mma"}, 3).points_per_item == 8);
  CHECK(resolved({.variant = "mma"}, 64).points_per_item == 1);
  // The fused kernel's fixed local memory (the inertia's tree, the group's labels) leaves room for the chunk.
  CHECK(d32.local_memory_bytes + itercl::kmeans::lloyd_fixed_local_bytes(d32) <= h200.local_memory);
  CHECK(resolved({.variant = "mma", .local_memory_bytes = 1 << 20}, 32).local_memory_bytes +
            itercl::kmeans::lloyd_fixed_local_bytes(d32) <=
        h200.local_memory);
  CHECK(resolved({.variant = "mma", .centroids_per_chunk = 16}, 32).centroids_per_chunk == 16);

  // Refused by name where it cannot run.
  auto refused = [&](itercl::KMeansKernel k, Eigen::Index dim, Precision p, const char* why) {
    CAPTURE(why);
    CHECK_THROWS_WITH_AS(resolved(std::move(k), dim, p), doctest::Contains(why), itercl::ParamError);
  };
  refused({.variant = "mma"}, 32, Precision::f64, "kernel.variant: mma computes in pairs of TF32 values");
  refused({.variant = "mma", .work_group_size = 48}, 32, Precision::f32, "kernel.work_group_size");
  refused({.variant = "mma", .points_per_item = 2}, 128, Precision::f32, "kernel.points_per_item");
  refused({.variant = "mma", .register_values = 32}, 32, Precision::f32, "leave register_values");
  refused({.variant = "mma", .centroids_per_chunk = 4}, 32, Precision::f32, "kernel.centroids_per_chunk");
  refused({.variant = "mma", .centroids_per_chunk = 20}, 32, Precision::f32, "whole blocks of 8 centroids");
  refused({.variant = "mma", .local_memory_bytes = 1000}, 32, Precision::f32, "kernel.local_memory_bytes");
  h200.nvidia_compute_capability = 75;  // Turing: no TF32
  refused({.variant = "mma"}, 32, Precision::f32, "compute capability 8.0");
  CHECK(resolved({.mma_from_dim = 16}, 32).variant == "expanded");
  CHECK_THROWS_WITH_AS(itercl::KMeansKernel{.mma_from_dim = -1}.validate(), doctest::Contains("kernel.mma_from_dim"),
                       itercl::ParamError);
}

}  // namespace kmeans_tests
