// k-means++ and random starts over the ranks of mpirun against one process's, bit for bit: every rank
// takes its rows of the same data (core::first_row, the split `itercl run` makes), draws the initial
// centroids over the ranks, and compares them with the centroids it draws alone from all the rows. UEF S1
// with random_state 0 at 3 ranks had a k-means++ draw within rounding of a rank's boundary when the
// running sums were doubles (kmeans_init.cpp); the weighted blobs have zero weights and a rank's
// boundary inside a blob. Run under mpirun -np 1, 2 and 3 (tests/CMakeLists.txt: mpi_kmeans_init).
// Usage: itercl_mpi_kmeans_init S1_DATA_PATH
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/random.hpp"
#include "itercl/datagen.hpp"
#include "itercl/io.hpp"
#include "itercl/mpi.hpp"
#include "kmeans/kmeans_ranks.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace {

using itercl::Matrix;

int compare(itercl::core::Comm& comm, const std::string& name, const Matrix& X, const std::vector<double>& w, int k,
            std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(X.rows());
  const auto first = static_cast<Eigen::Index>(itercl::core::first_row(n, comm.rank(), comm.size()));
  const auto end = static_cast<Eigen::Index>(itercl::core::first_row(n, comm.rank() + 1, comm.size()));
  const Matrix rows = X.middleRows(first, end - first);
  const std::span<const double> mine =
      w.empty() ? std::span<const double>()
                : std::span<const double>(w.data() + first, static_cast<std::size_t>(end - first));
  const itercl::kmeans::LocalRows local{rows, mine, first, X.rows(), {}};
  int failures = 0;
  for (const bool plus_plus : {true, false}) {
    itercl::Rng over(seed), alone(seed);
    const Matrix ranks = plus_plus ? itercl::kmeans::init_kmeans_plus_plus(comm, local, k, over)
                                   : itercl::kmeans::init_random(comm, local, k, over);
    const Matrix one =
        plus_plus ? itercl::kmeans::init_kmeans_plus_plus(X, w, k, alone) : itercl::kmeans::init_random(X, w, k, alone);
    if (ranks != one) {
      ++failures;
      for (Eigen::Index c = 0; c < k; ++c)
        if (ranks.row(c) != one.row(c)) {
          std::printf(
              "FAIL: %s, %s, random_state %llu, rank %d of %d: centroid %ld is another point than one "
              "process's\n",
              name.c_str(), plus_plus ? "k-means++" : "random", static_cast<unsigned long long>(seed), comm.rank(),
              comm.size(), static_cast<long>(c));
          break;
        }
    }
  }
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  itercl::mpi_start(&argc, &argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s S1_DATA_PATH\n", argv[0]);
    itercl::mpi_abort(2);
  }
  itercl::core::Comm& comm = itercl::core::world();
  std::int64_t failures = 0;
  const Matrix s1 = itercl::load_matrix(argv[1]);
  for (std::uint64_t seed = 0; seed < 8; ++seed) failures += compare(comm, "UEF S1", s1, {}, 15, seed);

  const Matrix blobs =
      itercl::make_blobs({.n_samples = 3001, .n_features = 3, .centers = 5, .cluster_std = 0.5, .random_state = 1});
  std::vector<double> w(static_cast<std::size_t>(blobs.rows()));
  itercl::Rng weights(3);
  for (double& wi : w) wi = itercl::uniform01(weights) < 0.1 ? 0.0 : 0.25 + 2 * itercl::uniform01(weights);
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    failures += compare(comm, "blobs", blobs, {}, 12, seed);
    failures += compare(comm, "weighted blobs", blobs, w, 12, seed);
  }
  comm.allreduce_sum(std::span<std::int64_t>(&failures, 1));
  if (comm.rank() == 0 && failures == 0)
    std::printf("initial centroids over %d ranks: all as one process's\n", comm.size());
  itercl::mpi_finish();
  return failures == 0 ? 0 : 1;
}
