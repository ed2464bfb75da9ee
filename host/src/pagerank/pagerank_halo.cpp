// The halo of a rank's rows of PageRank's graph: what it reads from the other ranks, what they read from
// it, and its in-links renumbered into its z's layout.
#include "pagerank/pagerank_halo.hpp"

#include <algorithm>
#include <numeric>

#include "core/host_memory.hpp"
#include "itercl/error.hpp"

namespace itercl::pagerank {

Halo halo_of_block(InLinks& block, std::span<const std::int32_t> bounds, int me) {
  const auto ranks = bounds.size() - 1;
  const auto um = static_cast<std::size_t>(me);
  const std::int32_t first = bounds[um], last = bounds[um + 1];
  // Every remote node read, once, in ascending order: a mark per node, then one pass that replaces each
  // mark by the node's place in its part of the halo.
  std::vector<std::int32_t> position =
      host_array<std::int32_t>(static_cast<std::size_t>(block.n_nodes), 0, "the remote nodes read");
  for (const std::int32_t s : block.sources)
    if (s < first || s >= last) position[static_cast<std::size_t>(s)] = 1;
  Halo h;
  h.receive_counts.assign(ranks, 0);
  std::size_t owner = 0;
  for (std::int32_t i = 0; i < block.n_nodes; ++i) {
    std::int32_t& at = position[static_cast<std::size_t>(i)];
    if (!at || (i >= first && i < last)) continue;
    while (i >= bounds[owner + 1]) ++owner;
    ++h.receive_counts[owner];
    at = i < first ? h.below++ : h.above++;
    h.needed.push_back(i);
  }
  const std::int32_t rows = last - first;
  for (std::int32_t& s : block.sources)
    s = s < first  ? position[static_cast<std::size_t>(s)]
        : s < last ? h.below + (s - first)
                   : h.below + rows + position[static_cast<std::size_t>(s)];
  return h;
}

void set_sends(Halo& h, std::int32_t first, std::span<const std::int32_t> ids, std::vector<std::size_t> counts) {
  h.send.resize(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) h.send[k] = h.below + (ids[k] - first);
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
    part->offsets = host_array<std::int64_t>(un + 1, 0, "a rank's row pointer");
    part->out_degree = block.out_degree;
    part->out_weight = block.out_weight;
  }
  for (std::size_t i = 0; i < un; ++i) {
    const std::int64_t begin = block.offsets[i], end = block.offsets[i + 1];
    const bool reads_halo = std::any_of(block.sources.begin() + begin, block.sources.begin() + end,
                                        [&](std::int32_t s) { return s < own_first || s >= own_last; });
    InLinks& to = reads_halo ? parts.halo : parts.local;
    to.sources.insert(to.sources.end(), block.sources.begin() + begin, block.sources.begin() + end);
    if (block.weighted()) to.values.insert(to.values.end(), block.values.begin() + begin, block.values.begin() + end);
    for (InLinks* part : {&parts.local, &parts.halo})
      part->offsets[i + 1] = static_cast<std::int64_t>(part->sources.size());
  }
  return parts;
}

}  // namespace itercl::pagerank
