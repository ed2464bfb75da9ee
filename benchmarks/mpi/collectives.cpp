// The time of the collectives itercl's ranks call each iteration, by message size, for the
// communication model (model.py): MPI_Allreduce of doubles (K-Means' sums, every family's scalars),
// MPI_Allgatherv (SMACOF's rows of X, PageRank's rank vector) and MPI_Bcast (the points the pairwise
// statistics share). Run it under mpirun; rank 0 prints one JSON object per line:
//   {"collective": ..., "ranks": P, "bytes": B, "seconds": median over repeats of the slowest rank}
// where B is the whole message: the summed vector, the gathered vector, the broadcast buffer.
//
//   mpirun -np P mpi_collectives [MAX_BYTES]     (default 64 MiB)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// Median over `repeats` calls of the slowest rank's time, after two unmeasured calls.
template <class Call>
double median_seconds(Call call, int repeats) {
  std::vector<double> times;
  for (int i = -2; i < repeats; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    call();
    double t = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (i >= 0) times.push_back(t);
  }
  std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
  return times[static_cast<std::size_t>(repeats / 2)];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const long long max_bytes = argc > 1 ? std::atoll(argv[1]) : 64LL << 20;
  if (max_bytes < 8) {
    if (rank == 0) std::fprintf(stderr, "mpi_collectives: MAX_BYTES must be at least 8, got %s\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (long long bytes = 8; bytes <= max_bytes; bytes *= 4) {
    const int repeats = bytes < (1 << 20) ? 51 : 11;  // small messages are noisy and cheap
    const auto doubles = static_cast<int>(bytes / 8);
    std::vector<double> sums(static_cast<std::size_t>(doubles), 1.0), gathered(sums.size());
    // Allgatherv's pieces as itercl cuts rows: rank r gets [r n / P, (r + 1) n / P).
    std::vector<int> counts(static_cast<std::size_t>(ranks)), offsets(counts.size());
    for (int r = 0; r < ranks; ++r) {
      offsets[static_cast<std::size_t>(r)] = static_cast<int>(static_cast<long long>(doubles) * r / ranks);
      counts[static_cast<std::size_t>(r)] =
          static_cast<int>(static_cast<long long>(doubles) * (r + 1) / ranks) - offsets[static_cast<std::size_t>(r)];
    }
    const std::vector<double> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(rank)]), 2.0);
    const double allreduce = median_seconds(
        [&] { MPI_Allreduce(MPI_IN_PLACE, sums.data(), doubles, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }, repeats);
    const double allgatherv = median_seconds(
        [&] {
          MPI_Allgatherv(mine.data(), counts[static_cast<std::size_t>(rank)], MPI_DOUBLE, gathered.data(),
                         counts.data(), offsets.data(), MPI_DOUBLE, MPI_COMM_WORLD);
        },
        repeats);
    const double bcast =
        median_seconds([&] { MPI_Bcast(sums.data(), doubles, MPI_DOUBLE, 0, MPI_COMM_WORLD); }, repeats);
    if (rank == 0) {
      const char* names[] = {"allreduce", "allgatherv", "bcast"};
      const double seconds[] = {allreduce, allgatherv, bcast};
      for (int c = 0; c < 3; ++c)
        std::printf("{\"collective\": \"%s\", \"ranks\": %d, \"bytes\": %lld, \"seconds\": %.9g}\n", names[c], ranks,
                    bytes, seconds[c]);
    }
  }
  MPI_Finalize();
  return 0;
}
