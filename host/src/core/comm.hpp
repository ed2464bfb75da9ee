// The communicator among the ranks of a run (internal): MPI's world when mpirun started the process,
// else one rank of its own. Algorithms talk through it only, so they compile and run the same without
// MPI. Every collective must be called by every rank, in the same order; the time spent in them adds
// up in seconds(), which algorithms report as Timings::comm_s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace itercl::core {

class Comm {
 public:
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the ranks of this host
  int local_size() const { return local_size_; }  // ranks on this host
  bool several() const { return size_ > 1; }

  // Element-wise sums over all ranks, in place; every rank gets the same values.
  void allreduce_sum(std::span<double> values);
  void allreduce_sum(std::span<std::int64_t> values);
  void allreduce_sum(std::span<std::int32_t> values);
  // Every rank's bytes, in rank order, on every rank.
  std::vector<std::string> allgather_bytes(const std::string& mine);
  // Rank r's counts[r] values of `value_bytes` each, already at their place in `all` (after the values of
  // the ranks before it), copied to every other rank's `all`: an allgather in place that allocates
  // nothing, for what moves every iteration (fresh host arrays of 100 MB cost more in page faults than
  // their copy).
  void allgather_in_place(void* all, std::size_t value_bytes, std::span<const std::size_t> counts);
  // Every rank's bytes, in rank order, on `root` (the other ranks get none); in rounds past what one MPI
  // call moves.
  std::vector<std::string> gather_bytes(const std::string& mine, int root = 0);
  // Rank `root`'s bytes to every rank (`bytes` has the same size everywhere).
  void broadcast_bytes(void* bytes, std::size_t size, int root = 0);
  // `all` (on root) cut into pieces of counts[r] bytes, piece r to rank r; returns this rank's piece.
  std::vector<char> scatter_bytes(const char* all, const std::vector<std::size_t>& counts, int root = 0);
  // All to all: `send` holds counts[q] bytes for each rank q, in rank order. alltoall_counts returns the
  // bytes each rank sends this one; alltoall_bytes writes them to `received`, in rank order.
  std::vector<std::size_t> alltoall_counts(const std::vector<std::size_t>& counts);
  void alltoall_bytes(const char* send, const std::vector<std::size_t>& counts,
                      const std::vector<std::size_t>& received_counts, char* received);
  // Point to point (a halo exchange, PETSc's VecScatter): `send` holds counts[q] bytes for each rank q and
  // `received` has room for received_counts[q] from each, both in rank order, the counts agreed beforehand
  // (the pairs with nothing to move exchange no message). start_exchange posts the receives and sends and
  // returns at once, so that the caller computes meanwhile; finish_exchange waits for them. Both buffers
  // must stay untouched in between. Messages past max_message() go in pieces. One exchange at a time.
  struct Pending {
    std::vector<int> requests;  // MPI_Request_c2f handles: this header stays free of mpi.h
  };
  Pending start_exchange(const char* send, const std::vector<std::size_t>& counts, char* received,
                         const std::vector<std::size_t>& received_counts);
  void finish_exchange(Pending& pending);
  void barrier();
  [[noreturn]] void abort(int exit_code);

  double seconds() const { return seconds_; }  // spent in collectives so far

  // Typed helpers over the byte collectives.
  template <class T>
  void broadcast(T& value, int root = 0) {
    broadcast_bytes(&value, sizeof(T), root);
  }
  template <class T>
  void broadcast(std::vector<T>& values, int root = 0) {
    std::uint64_t n = values.size();
    broadcast(n, root);
    values.resize(n);
    broadcast_bytes(values.data(), n * sizeof(T), root);
  }
  // Every rank's values, concatenated in rank order: on every rank, or (gatherv) on root only.
  template <class T>
  std::vector<T> allgatherv(std::span<const T> mine) {
    return concatenated<T>(
        allgather_bytes(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(T))));
  }
  // Where this rank's `mine` rows stand among all ranks' (given in rank order): the rows of the ranks
  // before it, and of all.
  struct RowsPlace {
    std::int64_t first = 0, total = 0;
  };
  RowsPlace place_rows(std::int64_t mine) {
    const std::vector<std::int64_t> all = allgatherv<std::int64_t>(std::span<const std::int64_t>(&mine, 1));
    RowsPlace place;
    for (std::size_t r = 0; r < all.size(); ++r) (static_cast<int>(r) < rank_ ? place.first : place.total) += all[r];
    place.total += place.first;
    return place;
  }
  // Every rank's `values` (as many on every rank) summed position by position in rank order, from 0: the
  // same bits on every rank (an allreduce may add in another order on each), one rank's values unchanged.
  std::vector<double> sum_in_rank_order(std::span<const double> values) {
    const std::vector<double> all = allgatherv(values);
    std::vector<double> sum(values.size(), 0.0);
    for (std::size_t at = 0; at < all.size(); ++at) sum[at % values.size()] += all[at];
    return sum;
  }
  // The same, taking the values: on one rank they are the result, moved rather than copied twice.
  template <class T>
  std::vector<T> gatherv(std::vector<T>&& mine, int root = 0) {
    if (!several()) return std::move(mine);
    return gatherv(std::span<const T>(mine), root);
  }
  template <class T>
  std::vector<T> gatherv(std::span<const T> mine, int root = 0) {
    return concatenated<T>(
        gather_bytes(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(T)), root));
  }
  template <class T>
  static std::vector<T> concatenated(const std::vector<std::string>& parts) {
    std::vector<T> all;
    for (const std::string& p : parts) {
      const std::size_t at = all.size();
      all.resize(at + p.size() / sizeof(T));
      if (!p.empty()) std::memcpy(static_cast<void*>(all.data() + at), p.data(), p.size());  // data() may be null
    }
    return all;
  }
  // `all` (on root) cut into pieces of counts[r] values, piece r to rank r.
  template <class T>
  std::vector<T> scatterv(std::span<const T> all, const std::vector<std::size_t>& counts, int root = 0) {
    std::vector<std::size_t> bytes(counts);
    for (auto& b : bytes) b *= sizeof(T);
    const std::vector<char> mine = scatter_bytes(reinterpret_cast<const char*>(all.data()), bytes, root);
    std::vector<T> out(mine.size() / sizeof(T));
    if (!mine.empty()) std::memcpy(static_cast<void*>(out.data()), mine.data(), mine.size());  // a rank without rows
    return out;
  }

  // `send` cut into pieces of counts[q] values, piece q to rank q; returns the pieces this rank
  // received, in rank order.
  template <class T>
  std::vector<T> alltoallv(std::span<const T> send, const std::vector<std::size_t>& counts) {
    std::vector<std::size_t> bytes(counts);
    for (auto& b : bytes) b *= sizeof(T);
    const std::vector<std::size_t> incoming = alltoall_counts(bytes);
    std::vector<T> received(std::accumulate(incoming.begin(), incoming.end(), std::size_t{0}) / sizeof(T));
    alltoall_bytes(reinterpret_cast<const char*>(send.data()), bytes, incoming,
                   reinterpret_cast<char*>(received.data()));
    return received;
  }

  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  bool mpi_ = false;    // MPI initialised: collectives go through the communicator below
  int mpi_handle_ = 0;  // its Fortran handle (MPI_Comm_c2f): MPI_COMM_WORLD's, or a duplicate of a caller's
  double seconds_ = 0;
};

// The process's communicator: set up by mpi_start (itercl/mpi.hpp), one rank before or without it.
Comm& world();

// The ranks of a caller's MPI communicator (its Fortran handle, MPI_Comm_c2f; mpi4py's comm.py2f()), MPI
// initialised by the caller: the library talks over a duplicate (MPI_Comm_dup, freed with the returned
// Comm), so that its messages never match the caller's. Every rank of the communicator calls it. Throws
// RuntimeError in a build without MPI, or before MPI_Init.
std::shared_ptr<Comm> duplicate_communicator(int fortran_handle);

// `local_size` ranks sharing a host share its cores instead of each taking them all (cores / ranks each, at
// least one): the host's loops (core::set_host_ranks, core/parallel.hpp), and PoCL, which starts one thread
// per core for each process at its platform's first use. PoCL 3 reads POCL_MAX_PTHREAD_COUNT, PoCL 4 and
// later POCL_CPU_MAX_CU_COUNT; a value the user set for either is kept, and a platform already started
// keeps its threads.
void share_host_cores(int local_size);

// Rank r's rows of n split over `ranks`: [r n / P, (r + 1) n / P), uneven splits differing by one row.
inline std::size_t first_row(std::size_t n, int r, int ranks) {
  const auto p = static_cast<std::size_t>(ranks), ur = static_cast<std::size_t>(r);
  return n / p * ur + n % p * ur / p;  // floor(n r / P) without overflowing n r
}

}  // namespace itercl::core
