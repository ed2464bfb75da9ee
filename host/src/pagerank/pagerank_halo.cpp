// The halo of a rank's rows of PageRank's graph: what it reads from the other ranks, what they read from
// it, and its in-links renumbered into its z's layout.
#include "pagerank/pagerank_halo.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "itercl/error.hpp"
#include "pagerank/pagerank_split.hpp"

namespace itercl::pagerank {

Halo halo_of_block(InLinks& block, std::span<const std::int32_t> bounds, int me) {
  const auto ranks = bounds.size() - 1;
  const auto um = static_cast<std::size_t>(me);
  const std::int32_t first = bounds[um], last = bounds[um + 1];
  const auto n = static_cast<std::size_t>(block.n_nodes);
  const std::size_t m = block.sources.size();
  // Every remote node read, once, in ascending order: a mark per node (set by any number of threads, all
  // writing 1), then each mark replaced by the node's place among the marked nodes, counted per block of
  // nodes and placed after the blocks before it.
  std::vector<std::int32_t> position = host_vector<std::int32_t>(n, "the remote nodes read");
  parallel_blocks(m, worker_count(m), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t k = begin; k < end; ++k)
      if (const std::int32_t s = block.sources[k]; s < first || s >= last)
        std::atomic_ref<std::int32_t>(position[static_cast<std::size_t>(s)]).store(1, std::memory_order_relaxed);
  });
  const auto remote = [&](std::size_t i) {
    return position[i] != 0 && (i < static_cast<std::size_t>(first) || i >= static_cast<std::size_t>(last));
  };
  const int workers = worker_count(n);
  std::vector<std::size_t> at(static_cast<std::size_t>(workers) + 1, 0);
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    std::size_t count = 0;
    for (std::size_t i = begin; i < end; ++i) count += remote(i);
    at[static_cast<std::size_t>(w) + 1] = count;
  });
  std::partial_sum(at.begin(), at.end(), at.begin());
  Halo h;
  h.needed = host_vector<std::int32_t>(at.back(), "the remote nodes read");
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    std::size_t next = at[static_cast<std::size_t>(w)];
    for (std::size_t i = begin; i < end; ++i) {
      const bool read = remote(i);
      position[i] = read ? static_cast<std::int32_t>(next) : 0;
      if (read) h.needed[next++] = static_cast<std::int32_t>(i);
    }
  });
  // The remote nodes below the rows come first: node i's place among them is its place in `needed`, and
  // above the rows its place there less those below.
  const auto below_end = std::lower_bound(h.needed.begin(), h.needed.end(), first);
  h.below = static_cast<std::int32_t>(below_end - h.needed.begin());
  h.above = static_cast<std::int32_t>(h.needed.end() - below_end);
  h.receive_counts.assign(ranks, 0);
  for (std::size_t q = 0; q < ranks; ++q)
    h.receive_counts[q] = static_cast<std::size_t>(std::lower_bound(h.needed.begin(), h.needed.end(), bounds[q + 1]) -
                                                   std::lower_bound(h.needed.begin(), h.needed.end(), bounds[q]));
  const std::int32_t rows = last - first, below = h.below;
  parallel_blocks(m, worker_count(m), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t k = begin; k < end; ++k) {
      std::int32_t& s = block.sources[k];
      s = s < first  ? position[static_cast<std::size_t>(s)]
          : s < last ? below + (s - first)
                     : rows + position[static_cast<std::size_t>(s)];  // below + rows + (its place - below)
    }
  });
  return h;
}

void set_sends(Halo& h, std::int32_t first, std::span<const std::int32_t> ids, std::vector<std::size_t> counts) {
  h.send.resize(ids.size());
  parallel_blocks(ids.size(), worker_count(ids.size()), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t k = begin; k < end; ++k) h.send[k] = h.below + (ids[k] - first);
  });
  h.send_counts = std::move(counts);
}

Halo plan_halo(core::Comm& comm, std::span<const std::int32_t> bounds, InLinks& block) {
  if (bounds.size() != static_cast<std::size_t>(comm.size()) + 1)
    throw InputError("pagerank: " + std::to_string(bounds.size()) + " row bounds for " + std::to_string(comm.size()) +
                     " ranks");
  Halo h = halo_of_block(block, bounds, comm.rank());
  // The ids each rank reads from this one: the transpose of every rank's receive counts, then the ids.
  std::vector<std::size_t> bytes(h.receive_counts);
  for (std::size_t& b : bytes) b *= sizeof(std::int32_t);
  const std::vector<std::size_t> incoming = comm.alltoall_counts(bytes);
  std::vector<std::size_t> counts(incoming.size());
  std::transform(incoming.begin(), incoming.end(), counts.begin(),
                 [](std::size_t b) { return b / sizeof(std::int32_t); });
  std::vector<std::int32_t> ids(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
  comm.alltoall_bytes(reinterpret_cast<const char*>(h.needed.data()), bytes, incoming,
                      reinterpret_cast<char*>(ids.data()));
  set_sends(h, bounds[static_cast<std::size_t>(comm.rank())], ids, std::move(counts));
  return h;
}

RowsByReach split_by_reach(const InLinks& block, const Halo& h, std::int32_t first, std::int32_t last) {
  const auto un = static_cast<std::size_t>(block.n_nodes);
  const std::int32_t own_first = h.below, own_last = h.below + (last - first);
  RowsByReach parts;
  for (InLinks* part : {&parts.local, &parts.halo}) {
    part->n_nodes = block.n_nodes;
    part->offsets = host_vector<std::int64_t>(un + 1, "a rank's row pointer");
    part->out_degree = host_copy<std::int32_t>(block.out_degree, "the out-degrees");
    part->out_weight = block.out_weight;
  }
  // Each row's length in the part it goes to (0 in the other), then the parts' row pointers, then the
  // links copied: each pass on the cores, over blocks of rows holding as many links.
  const int workers = worker_count(block.sources.size());
  rows_by_links(block.offsets, workers, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::int64_t from = block.offsets[i], to = block.offsets[i + 1];
      const bool reads_halo = std::any_of(block.sources.begin() + from, block.sources.begin() + to,
                                          [&](std::int32_t s) { return s < own_first || s >= own_last; });
      (reads_halo ? parts.halo : parts.local).offsets[i + 1] = to - from;
    }
  });
  for (InLinks* part : {&parts.local, &parts.halo}) {
    std::partial_sum(part->offsets.begin(), part->offsets.end(), part->offsets.begin());
    part->sources = host_vector<std::int32_t>(static_cast<std::size_t>(part->offsets.back()), "a rank's in-links");
    if (block.weighted())
      part->values = host_vector<double>(static_cast<std::size_t>(part->offsets.back()), "a rank's in-links' weights");
  }
  rows_by_links(block.offsets, workers, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      InLinks& to = parts.halo.offsets[i + 1] > parts.halo.offsets[i] ? parts.halo : parts.local;
      const std::int64_t from = block.offsets[i], length = block.offsets[i + 1] - from;
      std::copy_n(block.sources.begin() + from, length, to.sources.begin() + to.offsets[i]);
      if (block.weighted()) std::copy_n(block.values.begin() + from, length, to.values.begin() + to.offsets[i]);
    }
  });
  return parts;
}

}  // namespace itercl::pagerank
