#include "core/comm.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <thread>

#include "itercl/error.hpp"
#include "itercl/mpi.hpp"
#include "itercl/timing.hpp"

#ifdef ITERCL_HAVE_MPI
#include <mpi.h>
#endif

namespace itercl {
namespace core {

Comm& world() {
  static Comm comm;
  return comm;
}

namespace {

// Times a collective into the communicator's total.
struct CommClock {
  Comm& comm;
  Stopwatch clock;
  ~CommClock() { comm.seconds_ += clock.seconds(); }
};

#ifdef ITERCL_HAVE_MPI
void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw RuntimeError(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// MPI counts are ints: larger pieces go in chunks of this many bytes (broadcast, scatter) or are refused.
constexpr std::size_t kMaxCount = std::size_t{1} << 30;

int as_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw RuntimeError(std::string(what) + ": " + std::to_string(n) +
                       " bytes for one rank, more than one MPI call moves (2^31 - 1)");
  return static_cast<int>(n);
}
#endif

}  // namespace

void Comm::allreduce_sum([[maybe_unused]] std::span<double> values) {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size(), "allreduce"), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
#endif
}

void Comm::allreduce_sum([[maybe_unused]] std::span<std::int64_t> values) {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), as_count(values.size(), "allreduce"), MPI_INT64_T, MPI_SUM,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
#endif
}

std::vector<std::string> Comm::allgather_bytes(const std::string& mine) {
  if (!mpi_ || size_ == 1) return {mine};
  std::vector<std::string> parts(static_cast<std::size_t>(size_));
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  const int count = as_count(mine.size(), "allgatherv");
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = as_count(total, "allgatherv");
    total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  }
  as_count(total, "allgatherv");
  std::string all(total, '\0');
  check(
      MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, MPI_COMM_WORLD),
      "MPI_Allgatherv");
  for (int r = 0; r < size_; ++r)
    parts[static_cast<std::size_t>(r)] = all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                                    static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
#endif
  return parts;
}

std::vector<std::string> Comm::gather_bytes(const std::string& mine, [[maybe_unused]] int root) {
  if (!mpi_ || size_ == 1) return {mine};
  std::vector<std::string> parts;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  const int count = as_count(mine.size(), "gatherv");
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
  std::size_t total = 0;
  if (rank_ == root) {
    for (int r = 0; r < size_; ++r) {
      offsets[static_cast<std::size_t>(r)] = as_count(total, "gatherv");
      total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
    }
    as_count(total, "gatherv");
  }
  std::string all(total, '\0');
  check(MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, root,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  if (rank_ == root)
    for (int r = 0; r < size_; ++r)
      parts.push_back(all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                 static_cast<std::size_t>(counts[static_cast<std::size_t>(r)])));
#endif
  return parts;
}

void Comm::broadcast_bytes(void* bytes, std::size_t size, int root) {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  auto* p = static_cast<char*>(bytes);
  for (std::size_t at = 0; at < size; at += kMaxCount)
    check(MPI_Bcast(p + at, static_cast<int>(std::min(kMaxCount, size - at)), MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Bcast");
#else
  (void)bytes, (void)size, (void)root;
#endif
}

std::vector<char> Comm::scatter_bytes(const char* all, const std::vector<std::size_t>& counts, int root) {
  if (!mpi_ || size_ == 1) return std::vector<char>(all, all + (counts.empty() ? 0 : counts[0]));
  const auto me = static_cast<std::size_t>(rank_);
  std::vector<char> mine(counts.at(me));
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  std::vector<int> sizes(counts.size()), offsets(counts.size());
  std::size_t total = 0, largest = 0;
  for (const std::size_t c : counts) total += c, largest = std::max(largest, c);
  if (total <= kMaxCount) {
    for (std::size_t r = 0, at = 0; r < counts.size(); at += counts[r], ++r)
      sizes[r] = static_cast<int>(counts[r]), offsets[r] = static_cast<int>(at);
    check(MPI_Scatterv(all, sizes.data(), offsets.data(), MPI_BYTE, mine.data(), sizes[me], MPI_BYTE, root,
                       MPI_COMM_WORLD),
          "MPI_Scatterv");
    return mine;
  }
  // MPI counts and offsets are ints: more in all goes in rounds of at most kMaxCount bytes, each
  // carrying the next slice of every rank's piece, packed together on root.
  const std::size_t slice = std::max<std::size_t>(kMaxCount / counts.size(), 1);
  std::vector<std::size_t> starts(counts.size());
  for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
  std::vector<char> packed(rank_ == root ? kMaxCount : 0);
  for (std::size_t at = 0; at < largest; at += slice) {
    std::size_t offset = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      const std::size_t n = at < counts[r] ? std::min(slice, counts[r] - at) : 0;
      if (rank_ == root && n) std::memcpy(packed.data() + offset, all + starts[r] + at, n);
      sizes[r] = static_cast<int>(n), offsets[r] = static_cast<int>(offset);
      offset += n;
    }
    check(MPI_Scatterv(packed.data(), sizes.data(), offsets.data(), MPI_BYTE, mine.data() + std::min(at, mine.size()),
                       sizes[me], MPI_BYTE, root, MPI_COMM_WORLD),
          "MPI_Scatterv");
  }
#else
  (void)all, (void)root;
#endif
  return mine;
}

void Comm::barrier() {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
#endif
}

void Comm::abort(int exit_code) {
#ifdef ITERCL_HAVE_MPI
  if (mpi_) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
  std::exit(exit_code);
}

}  // namespace core

namespace {
[[maybe_unused]] bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}
}  // namespace

void mpi_start(int* argc, char*** argv) {
#ifdef ITERCL_HAVE_MPI
  core::Comm& comm = core::world();
  if (comm.mpi_ || !launched_by_mpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::cerr << "failed: MPI_Init_thread\n";
    std::exit(1);
  }
  comm.mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &comm.size_);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm.rank_, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &comm.local_rank_);
  MPI_Comm_size(host, &comm.local_size_);
  MPI_Comm_free(&host);
  // PoCL starts one thread per core for each process at its platform's first use (after this): ranks
  // sharing a host share its cores instead of each taking them all (cores / ranks each, at least one).
  // PoCL 3 reads POCL_MAX_PTHREAD_COUNT, PoCL 4 and later POCL_CPU_MAX_CU_COUNT; a value the user set
  // for either is kept.
  if (comm.local_size_ > 1 && !std::getenv("POCL_CPU_MAX_CU_COUNT") && !std::getenv("POCL_MAX_PTHREAD_COUNT")) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::string share = std::to_string(std::max(1u, cores / static_cast<unsigned>(comm.local_size_)));
    setenv("POCL_CPU_MAX_CU_COUNT", share.c_str(), 1);
    setenv("POCL_MAX_PTHREAD_COUNT", share.c_str(), 1);
  }
#else
  (void)argc, (void)argv;
#endif
}

void mpi_finish() {
#ifdef ITERCL_HAVE_MPI
  core::Comm& comm = core::world();
  if (!comm.mpi_) return;
  MPI_Finalize();
  comm.mpi_ = false;
#endif
}

int mpi_rank() { return core::world().rank(); }
int mpi_size() { return core::world().size(); }
void mpi_abort(int exit_code) { core::world().abort(exit_code); }

std::string mpi_library_version() {
#ifdef ITERCL_HAVE_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const auto end = version.find_first_of("\r\n");
  return end == std::string::npos ? version : version.substr(0, end);
#else
  return "none";
#endif
}

}  // namespace itercl
