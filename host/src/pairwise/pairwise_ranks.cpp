// pairwise_rows_over_ranks: the matrix of distances over MPI ranks, each rank given its rows of X and
// handed back its rows of D (itercl/pairwise.hpp).
#include <cstdint>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "itercl/error.hpp"
#include "itercl/mpi.hpp"
#include "itercl/pairwise.hpp"

namespace itercl {

namespace {

// Every rank's shape of an input against the first rank's that has rows: columns and dtype (and, for Y,
// rows) must agree, else the data would be read as another shape.
void check_same_shape(core::Comm& comm, const RowsView& rows, const char* name, bool same_rows) {
  const bool any = rows.rows() > 0 || same_rows;
  const std::int64_t shape[3] = {any ? rows.cols() : -1, any ? static_cast<std::int64_t>(rows.precision()) : -1,
                                 same_rows ? rows.rows() : -1};
  const std::vector<std::int64_t> all = comm.allgatherv<std::int64_t>(std::span<const std::int64_t>(shape, 3));
  auto described = [&](std::size_t r) {
    const std::int64_t* v = all.data() + 3 * r;
    return (same_rows ? std::to_string(v[2]) + " rows of " : std::string()) + std::to_string(v[0]) + " columns of " +
           std::string(precision_name(static_cast<Precision>(v[1])));
  };
  std::size_t first = all.size() / 3;
  for (std::size_t r = 0; r < all.size() / 3 && first == all.size() / 3; ++r)
    if (all[3 * r] >= 0) first = r;
  for (std::size_t r = first + 1; r < all.size() / 3; ++r)
    if (all[3 * r] >= 0 &&
        (all[3 * r] != all[3 * first] || all[3 * r + 1] != all[3 * first + 1] || all[3 * r + 2] != all[3 * first + 2]))
      throw InputError(std::string(name) + ": rank " + std::to_string(r) + " passes " + described(r) + ", rank " +
                       std::to_string(first) + " " + described(first) + "; every rank must pass the same kind" +
                       (same_rows ? " (the same Y)" : " of rows"));
}

// The start of a run of entries of D bound for the rank holding `row`: row, first column, count; the
// `count` values follow, in the device's precision.
struct Piece {
  std::int64_t row, col0, count;
};

}  // namespace

RankRowsOfDistances pairwise_rows_over_ranks(const Ranks& ranks, const std::vector<Device>& devices, const RowsView& X,
                                             const RowsView* Y, PairwiseParams params) {
  core::Comm& comm = ranks.comm();
  const double comm_before = comm.seconds();
  check_same_shape(comm, X, "X", false);
  if (Y) check_same_shape(comm, *Y, "Y", true);
  // Every rank holds all of X as stored (float or double), as one process reads it: the same values, so
  // the same distances.
  const std::vector<std::int64_t> counts =
      comm.allgatherv<std::int64_t>(std::span<const std::int64_t>(std::vector<std::int64_t>{X.rows()}));
  std::vector<std::int64_t> first(counts.size() + 1, 0);  // each rank's first row of X, then the total
  for (std::size_t r = 0; r < counts.size(); ++r) first[r + 1] = first[r] + counts[r];
  const Eigen::Index d = X.cols();
  const std::size_t stored = real_size(X.precision());
  const std::vector<std::string> parts = comm.allgather_bytes(
      std::string(static_cast<const char*>(X.visit([](const auto& m) { return static_cast<const void*>(m.data()); })),
                  static_cast<std::size_t>(X.rows() * d) * stored));
  std::vector<double> all_bytes((static_cast<std::size_t>(first.back() * d) * stored + 7) / 8);  // aligned
  std::size_t at = 0;
  for (const std::string& part : parts) {
    if (!part.empty()) std::memcpy(reinterpret_cast<char*>(all_bytes.data()) + at, part.data(), part.size());
    at += part.size();
  }
  const RowsView all = X.precision() == Precision::f32
                           ? RowsView(reinterpret_cast<const float*>(all_bytes.data()), first.back(), d)
                           : RowsView(all_bytes.data(), first.back(), d);
  double comm_s = comm.seconds() - comm_before;

  params.part = comm.rank();
  params.parts = comm.size();
  PairwiseDistances pd(devices, all, Y, params);
  const std::size_t value = real_size(params.precision);
  auto owner = [&](std::int64_t row) {
    std::size_t r = 0;
    while (first[r + 1] <= row) ++r;
    return r;
  };
  // Each rectangle's rows (and, one input, its mirror's rows) cut into pieces for their rows' ranks.
  std::vector<std::string> outgoing(counts.size());
  std::mutex outgoing_mutex;  // rectangles arrive from each device's thread
  auto add = [&](std::int64_t row, std::int64_t col0, std::int64_t count, const char* values, std::size_t stride) {
    std::string& to = outgoing[owner(row)];
    const Piece piece{row, col0, count};
    to.append(reinterpret_cast<const char*>(&piece), sizeof piece);
    for (std::int64_t k = 0; k < count; ++k) to.append(values + static_cast<std::size_t>(k) * stride, value);
  };
  RankRowsOfDistances out;
  out.run = pd.run([&](const PairTile& t) {
    const char* data = static_cast<const char*>(t.data);
    std::lock_guard lock(outgoing_mutex);
    for (Eigen::Index i = 0; i < t.rows; ++i)
      add(t.row0 + i, t.col0, t.cols, data + static_cast<std::size_t>(i * t.ld) * value, value);
    if (t.symmetric && t.row0 != t.col0)
      for (Eigen::Index j = 0; j < t.cols; ++j)
        add(t.col0 + j, t.row0, t.rows, data + static_cast<std::size_t>(j) * value,
            static_cast<std::size_t>(t.ld) * value);
  });

  const double exchange = comm.seconds();
  std::vector<std::size_t> sizes;
  std::string send;
  for (const std::string& o : outgoing) sizes.push_back(o.size()), send += o;
  outgoing.clear();
  const std::vector<std::size_t> incoming = comm.alltoall_counts(sizes);
  std::size_t received_size = 0;
  for (const std::size_t s : incoming) received_size += s;
  std::vector<char> received(received_size);
  comm.alltoall_bytes(send.data(), sizes, incoming, received.data());
  comm_s += comm.seconds() - exchange;

  const auto me = static_cast<std::size_t>(comm.rank());
  out.rows = X.rows();
  out.cols = pd.cols();
  const auto entries = static_cast<std::size_t>(out.rows * out.cols);
  char* rows_of_d = nullptr;
  if (params.precision == Precision::f32) {
    out.f32.assign(entries, 0.0f);
    rows_of_d = reinterpret_cast<char*>(out.f32.data());
  } else {
    out.f64.assign(entries, 0.0);
    rows_of_d = reinterpret_cast<char*>(out.f64.data());
  }
  for (std::size_t p = 0; p < received.size();) {
    Piece piece;
    std::memcpy(&piece, received.data() + p, sizeof piece);
    p += sizeof piece;
    const auto bytes = static_cast<std::size_t>(piece.count) * value;
    std::memcpy(rows_of_d + (static_cast<std::size_t>((piece.row - first[me]) * out.cols + piece.col0)) * value,
                received.data() + p, bytes);
    p += bytes;
  }
  out.run.total.comm_s += comm_s;
  out.run.total.wall_s += comm_s;
  return out;
}

}  // namespace itercl
