#include "core/comm.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <thread>

#include "core/environment.hpp"
#include "core/parallel.hpp"
#include "itercl/error.hpp"
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
MPI_Comm handle(const Comm& comm) { return MPI_Comm_f2c(comm.mpi_handle_); }

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw RuntimeError(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// MPI counts are ints: larger pieces go in chunks of at most this many bytes (broadcast, scatter, all
// to all) or are refused. ITERCL_MPI_MAX_MESSAGE (bytes) lowers it, so that the tests run the rounds
// on small data.
std::size_t max_message() {
  static const std::size_t bytes = [] {
    const std::size_t most = std::size_t{1} << 30;
    const std::uint64_t set = bytes_from_environment("ITERCL_MPI_MAX_MESSAGE");
    return set ? static_cast<std::size_t>(std::min<std::uint64_t>(set, most)) : most;
  }();
  return bytes;
}

int as_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw RuntimeError(std::string(what) + ": " + std::to_string(n) +
                       " bytes for one rank, more than one MPI call moves (2^31 - 1)");
  return static_cast<int>(n);
}

// Element-wise sums over the ranks, in place: n values of `type`.
void sum_in_place(Comm& comm, void* values, std::size_t n, MPI_Datatype type) {
  if (!comm.mpi_ || comm.size() == 1) return;
  CommClock t{comm, {}};
  check(MPI_Allreduce(MPI_IN_PLACE, values, as_count(n, "allreduce"), type, MPI_SUM, handle(comm)), "MPI_Allreduce");
}
#endif

}  // namespace

#ifdef ITERCL_HAVE_MPI
void Comm::allreduce_sum(std::span<double> values) { sum_in_place(*this, values.data(), values.size(), MPI_DOUBLE); }
void Comm::allreduce_sum(std::span<std::int64_t> values) {
  sum_in_place(*this, values.data(), values.size(), MPI_INT64_T);
}
void Comm::allreduce_sum(std::span<std::int32_t> values) {
  sum_in_place(*this, values.data(), values.size(), MPI_INT32_T);
}
#else
void Comm::allreduce_sum(std::span<double>) {}
void Comm::allreduce_sum(std::span<std::int64_t>) {}
void Comm::allreduce_sum(std::span<std::int32_t>) {}
#endif

std::vector<std::string> Comm::allgather_bytes(const std::string& mine) {
  if (!mpi_ || size_ == 1) return {mine};
  std::vector<std::string> parts(static_cast<std::size_t>(size_));
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  const int count = as_count(mine.size(), "allgatherv");
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, handle(*this)), "MPI_Allgather");
  std::size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[static_cast<std::size_t>(r)] = as_count(total, "allgatherv");
    total += static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  }
  as_count(total, "allgatherv");
  std::string all(total, '\0');
  check(
      MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, handle(*this)),
      "MPI_Allgatherv");
  for (int r = 0; r < size_; ++r)
    parts[static_cast<std::size_t>(r)] = all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]),
                                                    static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
#endif
  return parts;
}

void Comm::allgather_in_place([[maybe_unused]] void* all, [[maybe_unused]] std::size_t value_bytes,
                              [[maybe_unused]] std::span<const std::size_t> counts) {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  // Counted in values of one contiguous type, so that a part may pass 2^31 bytes.
  MPI_Datatype value = MPI_DATATYPE_NULL;
  check(MPI_Type_contiguous(as_count(value_bytes, "allgather"), MPI_BYTE, &value), "MPI_Type_contiguous");
  check(MPI_Type_commit(&value), "MPI_Type_commit");
  std::vector<int> values(counts.size()), offsets(counts.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    values[r] = as_count(counts[r], "allgather");
    offsets[r] = as_count(total, "allgather");
    total += counts[r];
  }
  const int code =
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, values.data(), offsets.data(), value, handle(*this));
  MPI_Type_free(&value);
  check(code, "MPI_Allgatherv");
#endif
}

std::vector<std::string> Comm::gather_bytes(const std::string& mine, [[maybe_unused]] int root) {
  if (!mpi_ || size_ == 1) return {mine};
  std::vector<std::string> parts;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  // Every rank's count on every rank: each takes part in as many rounds as the largest piece needs.
  const std::uint64_t count = mine.size();
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, handle(*this)), "MPI_Allgather");
  std::size_t total = 0, largest = 0;
  for (const std::uint64_t c : counts) total += c, largest = std::max<std::size_t>(largest, c);
  if (rank_ == root)
    for (const std::uint64_t c : counts) parts.emplace_back(c, '\0');
  // MPI counts and offsets are ints: more in all (a rank's labels of 10^9 points are 4 GB) goes in rounds
  // of at most max_message() bytes, each carrying the next slice of every rank's piece, as scatter_bytes.
  const std::size_t most = max_message();
  const std::size_t slice = total <= most ? largest : std::max<std::size_t>(most / counts.size(), 1);
  std::vector<int> sizes(counts.size()), offsets(counts.size());
  std::vector<char> packed(rank_ == root ? std::min(total, slice * counts.size()) : 0);
  for (std::size_t at = 0; at < largest; at += slice) {
    std::size_t offset = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      const std::size_t n = at < counts[r] ? std::min<std::size_t>(slice, counts[r] - at) : 0;
      sizes[r] = static_cast<int>(n), offsets[r] = static_cast<int>(offset);
      offset += n;
    }
    check(MPI_Gatherv(mine.data() + std::min(at, mine.size()), sizes[static_cast<std::size_t>(rank_)], MPI_BYTE,
                      packed.data(), sizes.data(), offsets.data(), MPI_BYTE, root, handle(*this)),
          "MPI_Gatherv");
    if (rank_ == root)
      for (std::size_t r = 0; r < counts.size(); ++r)
        if (sizes[r]) std::memcpy(parts[r].data() + at, packed.data() + offsets[r], static_cast<std::size_t>(sizes[r]));
  }
#endif
  return parts;
}

void Comm::broadcast_bytes(void* bytes, std::size_t size, int root) {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  auto* p = static_cast<char*>(bytes);
  const std::size_t chunk = max_message();
  for (std::size_t at = 0; at < size; at += chunk)
    check(MPI_Bcast(p + at, static_cast<int>(std::min(chunk, size - at)), MPI_BYTE, root, handle(*this)), "MPI_Bcast");
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
  const std::size_t most = max_message();
  if (total <= most) {
    for (std::size_t r = 0, at = 0; r < counts.size(); at += counts[r], ++r)
      sizes[r] = static_cast<int>(counts[r]), offsets[r] = static_cast<int>(at);
    check(MPI_Scatterv(all, sizes.data(), offsets.data(), MPI_BYTE, mine.data(), sizes[me], MPI_BYTE, root,
                       handle(*this)),
          "MPI_Scatterv");
    return mine;
  }
  // MPI counts and offsets are ints: more in all goes in rounds of at most `most` bytes, each
  // carrying the next slice of every rank's piece, packed together on root.
  const std::size_t slice = std::max<std::size_t>(most / counts.size(), 1);
  std::vector<std::size_t> starts(counts.size());
  for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
  std::vector<char> packed(rank_ == root ? slice * counts.size() : 0);
  for (std::size_t at = 0; at < largest; at += slice) {
    std::size_t offset = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      const std::size_t n = at < counts[r] ? std::min(slice, counts[r] - at) : 0;
      if (rank_ == root && n) std::memcpy(packed.data() + offset, all + starts[r] + at, n);
      sizes[r] = static_cast<int>(n), offsets[r] = static_cast<int>(offset);
      offset += n;
    }
    check(MPI_Scatterv(packed.data(), sizes.data(), offsets.data(), MPI_BYTE, mine.data() + std::min(at, mine.size()),
                       sizes[me], MPI_BYTE, root, handle(*this)),
          "MPI_Scatterv");
  }
#else
  (void)all, (void)root;
#endif
  return mine;
}

std::vector<std::size_t> Comm::alltoall_counts(const std::vector<std::size_t>& counts) {
  if (!mpi_ || size_ == 1) return {counts.empty() ? 0 : counts[0]};
  std::vector<std::uint64_t> out(counts.begin(), counts.end()), in(counts.size());
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  check(MPI_Alltoall(out.data(), 1, MPI_UINT64_T, in.data(), 1, MPI_UINT64_T, handle(*this)), "MPI_Alltoall");
#endif
  return {in.begin(), in.end()};
}

void Comm::alltoall_bytes(const char* send, const std::vector<std::size_t>& counts,
                          const std::vector<std::size_t>& received_counts, char* received) {
  if (!mpi_ || size_ == 1) {
    if (!counts.empty() && counts[0]) std::memcpy(received, send, counts[0]);
    return;
  }
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  const auto ranks = static_cast<std::size_t>(size_);
  // MPI counts and offsets are ints: the pieces go in rounds, each carrying the next slice (at most
  // max_message() / P bytes) of every piece, packed; every rank makes the rounds the largest piece needs.
  const std::size_t slice = std::max<std::size_t>(max_message() / ranks, 1);
  std::uint64_t largest = *std::max_element(counts.begin(), counts.end());
  check(MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_UINT64_T, MPI_MAX, handle(*this)), "MPI_Allreduce");
  std::vector<std::size_t> send_starts(ranks), received_starts(ranks);
  for (std::size_t q = 1; q < ranks; ++q) {
    send_starts[q] = send_starts[q - 1] + counts[q - 1];
    received_starts[q] = received_starts[q - 1] + received_counts[q - 1];
  }
  std::vector<int> send_sizes(ranks), send_offsets(ranks), received_sizes(ranks), received_offsets(ranks);
  // One round goes straight from `send` to `received`: its offsets, the pieces' starts, fit.
  const bool staged = largest > slice;
  std::vector<char> send_round, received_round;
  for (std::size_t at = 0; at < largest; at += slice) {
    auto piece = [&](std::size_t count) { return at < count ? std::min(slice, count - at) : 0; };
    std::size_t send_total = 0, received_total = 0;
    for (std::size_t q = 0; q < ranks; ++q) {
      send_sizes[q] = static_cast<int>(piece(counts[q])), send_offsets[q] = static_cast<int>(send_total);
      received_sizes[q] = static_cast<int>(piece(received_counts[q]));
      received_offsets[q] = static_cast<int>(received_total);
      send_total += piece(counts[q]), received_total += piece(received_counts[q]);
    }
    if (staged) {
      send_round.resize(send_total), received_round.resize(received_total);
      for (std::size_t q = 0; q < ranks; ++q)
        if (send_sizes[q])
          std::memcpy(send_round.data() + send_offsets[q], send + send_starts[q] + at,
                      static_cast<std::size_t>(send_sizes[q]));
    }
    check(MPI_Alltoallv(staged ? send_round.data() : send, send_sizes.data(), send_offsets.data(), MPI_BYTE,
                        staged ? received_round.data() : received, received_sizes.data(), received_offsets.data(),
                        MPI_BYTE, handle(*this)),
          "MPI_Alltoallv");
    if (staged)
      for (std::size_t q = 0; q < ranks; ++q)
        if (received_sizes[q])
          std::memcpy(received + received_starts[q] + at, received_round.data() + received_offsets[q],
                      static_cast<std::size_t>(received_sizes[q]));
  }
#else
  (void)send, (void)counts, (void)received_counts, (void)received;
#endif
}

Comm::Pending Comm::start_exchange(const char* send, const std::vector<std::size_t>& counts, char* received,
                                   const std::vector<std::size_t>& received_counts) {
  Pending pending;
  if (!mpi_ || size_ == 1) {
    if (!counts.empty() && counts[0]) std::memcpy(received, send, counts[0]);
    return pending;
  }
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  // A fixed tag: messages between two ranks arrive in the order they were posted (MPI's non-overtaking
  // rule), so the pieces of one message and successive exchanges never mix.
  constexpr int kTag = 33;
  const std::size_t piece = max_message();
  const auto post = [&](auto&& call, std::size_t bytes, int rank) {
    for (std::size_t at = 0; at < bytes; at += piece) {
      MPI_Request request = MPI_REQUEST_NULL;
      call(at, static_cast<int>(std::min(piece, bytes - at)), rank, &request);
      pending.requests.push_back(MPI_Request_c2f(request));
    }
  };
  std::size_t at = 0;
  for (int q = 0; q < size_; ++q) {
    const std::size_t bytes = received_counts[static_cast<std::size_t>(q)];
    post(
        [&](std::size_t from, int n, int rank, MPI_Request* r) {
          check(MPI_Irecv(received + at + from, n, MPI_BYTE, rank, kTag, handle(*this), r), "MPI_Irecv");
        },
        bytes, q);
    at += bytes;
  }
  at = 0;
  for (int q = 0; q < size_; ++q) {
    const std::size_t bytes = counts[static_cast<std::size_t>(q)];
    post(
        [&](std::size_t from, int n, int rank, MPI_Request* r) {
          check(MPI_Isend(send + at + from, n, MPI_BYTE, rank, kTag, handle(*this), r), "MPI_Isend");
        },
        bytes, q);
    at += bytes;
  }
#else
  (void)received_counts;
#endif
  return pending;
}

void Comm::finish_exchange([[maybe_unused]] Pending& pending) {
#ifdef ITERCL_HAVE_MPI
  if (pending.requests.empty()) return;
  CommClock t{*this, {}};
  std::vector<MPI_Request> requests(pending.requests.size());
  std::transform(pending.requests.begin(), pending.requests.end(), requests.begin(),
                 [](int r) { return MPI_Request_f2c(r); });
  pending.requests.clear();
  check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
#endif
}

void Comm::barrier() {
  if (!mpi_ || size_ == 1) return;
#ifdef ITERCL_HAVE_MPI
  CommClock t{*this, {}};
  check(MPI_Barrier(handle(*this)), "MPI_Barrier");
#endif
}

void Comm::abort(int exit_code) {
#ifdef ITERCL_HAVE_MPI
  if (mpi_) MPI_Abort(handle(*this), exit_code);
#endif
  std::exit(exit_code);
}

std::shared_ptr<Comm> duplicate_communicator([[maybe_unused]] int fortran_handle) {
#ifdef ITERCL_HAVE_MPI
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised)
    throw RuntimeError("comm: MPI is not initialised (import mpi4py's MPI, or call MPI_Init, first)");
  MPI_Comm mine = MPI_COMM_NULL;
  check(MPI_Comm_dup(MPI_Comm_f2c(fortran_handle), &mine), "MPI_Comm_dup");
  // Freed with the last copy, unless MPI has ended first (mpi4py finalises at exit, possibly before).
  auto comm = std::shared_ptr<Comm>(new Comm, [](Comm* c) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) {
      MPI_Comm freed = MPI_Comm_f2c(c->mpi_handle_);
      MPI_Comm_free(&freed);
    }
    delete c;
  });
  comm->mpi_ = true;
  comm->mpi_handle_ = MPI_Comm_c2f(mine);
  MPI_Comm_rank(mine, &comm->rank_);
  MPI_Comm_size(mine, &comm->size_);
  MPI_Comm host;
  check(MPI_Comm_split_type(mine, MPI_COMM_TYPE_SHARED, comm->rank_, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
  MPI_Comm_rank(host, &comm->local_rank_);
  MPI_Comm_size(host, &comm->local_size_);
  MPI_Comm_free(&host);
  share_host_cores(comm->local_size_);
  return comm;
#else
  throw RuntimeError("comm: this build of itercl has no MPI (configure it with an MPI library: libopenmpi-dev)");
#endif
}

void share_host_cores(int local_size) {
  set_host_ranks(local_size);  // the host's loops (core/parallel.hpp)
  if (local_size < 2 || std::getenv("POCL_CPU_MAX_CU_COUNT") || std::getenv("POCL_MAX_PTHREAD_COUNT")) return;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::string share = std::to_string(std::max(1u, cores / static_cast<unsigned>(local_size)));
  setenv("POCL_CPU_MAX_CU_COUNT", share.c_str(), 1);
  setenv("POCL_MAX_PTHREAD_COUNT", share.c_str(), 1);
}

}  // namespace core

}  // namespace itercl
