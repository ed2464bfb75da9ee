// Graphs: node ids, and the in-link CSR that every PageRank format is built from.
#include "itercl/graph.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/parallel.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace core {

using Counts = std::vector<std::vector<std::int32_t>>;

// Threads for the passes over all edges: each keeps a count per node (n ints), so their number is capped
// to bound that memory at 8 n ints, whatever the machine's core count.
constexpr int kMaxEdgeWorkers = 8;
int edge_workers(std::size_t m) { return std::min(worker_count(m), kMaxEdgeWorkers); }

// How often each of 0..n-1 occurs in each worker's block of `keys` (the blocks of parallel_blocks).
Counts block_counts(std::span<const std::int32_t> keys, std::size_t n, int workers) {
  Counts counts(static_cast<std::size_t>(workers));
  parallel_blocks(keys.size(), workers, [&](std::size_t begin, std::size_t end, int w) {
    std::vector<std::int32_t>& c = counts[static_cast<std::size_t>(w)];
    c.assign(n, 0);
    for (std::size_t e = begin; e < end; ++e) ++c[static_cast<std::size_t>(keys[e])];
  });
  return counts;
}

// The rows by destination: a counting sort in parallel, each thread placing its block of edges after
// the earlier threads' in every row, so each row keeps the edges' order.
void rows_by_destination(const EdgesView& g, std::vector<std::int32_t>& offsets, std::vector<std::int32_t>& sources) {
  const auto n = static_cast<std::size_t>(g.n_nodes);
  const int workers = edge_workers(g.src.size());
  Counts next = block_counts(g.dst, n, workers);
  offsets.assign(n + 1, 0);
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i)
      for (const auto& c : next) offsets[i + 1] += c[i];
  });
  for (std::size_t i = 0; i < n; ++i) offsets[i + 1] += offsets[i];
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) {
      std::int32_t at = offsets[i];
      for (auto& c : next) at += std::exchange(c[i], at);
    }
  });
  sources.resize(g.src.size());
  parallel_blocks(g.src.size(), workers, [&](std::size_t begin, std::size_t end, int w) {
    std::vector<std::int32_t>& at = next[static_cast<std::size_t>(w)];
    for (std::size_t e = begin; e < end; ++e)
      sources[static_cast<std::size_t>(at[static_cast<std::size_t>(g.dst[e])]++)] = g.src[e];
  });
}

// Sorts every row's sources and counts self-loops and repeats, the rows shared among threads by their
// links (one long row does not leave the other threads idle behind it).
void sort_rows(InLinks& L) {
  const std::vector<std::int32_t>& offsets = L.offsets;
  const std::size_t rows = offsets.size() - 1, links = L.sources.size();
  const int workers = worker_count(links);
  std::vector<std::size_t> first_row(static_cast<std::size_t>(workers) + 1, rows);
  for (int w = 0; w < workers; ++w) {
    const auto target =
        static_cast<std::int64_t>(links * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers));
    first_row[static_cast<std::size_t>(w)] =
        static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, target) - offsets.begin());
  }
  std::vector<std::int64_t> loops(static_cast<std::size_t>(workers)), repeats(static_cast<std::size_t>(workers));
  parallel_blocks(static_cast<std::size_t>(workers), workers, [&](std::size_t w, std::size_t, int) {
    for (std::size_t i = first_row[w]; i < first_row[w + 1]; ++i) {
      const auto begin = L.sources.begin() + offsets[i], end = L.sources.begin() + offsets[i + 1];
      if (!std::is_sorted(begin, end)) std::sort(begin, end);
      for (auto k = begin; k != end; ++k)
        loops[w] += *k == static_cast<std::int32_t>(i), repeats[w] += k != begin && *k == k[-1];
    }
  });
  for (int w = 0; w < workers; ++w)
    L.self_loops += loops[static_cast<std::size_t>(w)], L.duplicates += repeats[static_cast<std::size_t>(w)];
}

// Drops the self-loops and repeats the options leave out, compacting in place.
void drop_links(InLinks& L, const LinkOptions& options) {
  std::size_t out = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const auto begin = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]);
    const auto end = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i) + 1]);
    L.offsets[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(out);
    std::int32_t previous = -1;
    for (std::size_t k = begin; k < end; ++k) {
      const std::int32_t s = L.sources[k];
      const bool loop = s == i, repeat = s == previous;
      previous = s;
      if ((loop && !options.self_loops) || (repeat && !options.duplicates)) continue;
      L.sources[out++] = s;
    }
  }
  L.offsets[static_cast<std::size_t>(L.n_nodes)] = static_cast<std::int32_t>(out);
  L.dropped = static_cast<std::int64_t>(L.sources.size() - out);
  L.sources.resize(out);
  L.sources.shrink_to_fit();
}

}  // namespace core

std::optional<std::int32_t> Graph::index_of(std::int64_t label) const {
  if (labels.empty()) {
    if (label < 0 || label >= n_nodes) return std::nullopt;
    return static_cast<std::int32_t>(label);
  }
  const auto it = std::lower_bound(labels.begin(), labels.end(), label);
  if (it == labels.end() || *it != label) return std::nullopt;
  return static_cast<std::int32_t>(it - labels.begin());
}

InLinks in_links(const Graph& g, const LinkOptions& options) {
  return in_links(EdgesView{g.n_nodes, g.src, g.dst}, options);
}

InLinks in_links(const EdgesView& g, const LinkOptions& options) {
  const std::size_t m = g.src.size();
  if (g.dst.size() != m)
    throw InputError("graph: " + std::to_string(m) + " sources for " + std::to_string(g.dst.size()) + " destinations");
  if (m > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw InputError("graph: " + std::to_string(m) +
                     " edges; the kernels index links with 32-bit integers (at most 2^31 - 1)");
  if (g.n_nodes < 0) throw InputError("graph: a negative node count");
  // The first edge naming a node outside 0..n-1, if any (each thread finds its block's first).
  std::vector<std::size_t> bad(static_cast<std::size_t>(core::edge_workers(m)), m);
  parallel_blocks(m, core::edge_workers(m), [&](std::size_t begin, std::size_t end, int w) {
    for (std::size_t e = begin; e < end && bad[static_cast<std::size_t>(w)] == m; ++e)
      if (g.src[e] < 0 || g.src[e] >= g.n_nodes || g.dst[e] < 0 || g.dst[e] >= g.n_nodes)
        bad[static_cast<std::size_t>(w)] = e;
  });
  if (const std::size_t e = *std::min_element(bad.begin(), bad.end()); e < m)
    throw InputError("graph: edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) + " -> " +
                     std::to_string(g.dst[e]) + ") names a node outside 0.." + std::to_string(g.n_nodes - 1));

  InLinks L;
  L.n_nodes = g.n_nodes;
  // Sources ascending in every row: the kernels then gather the rank vector in address order, and
  // repeats sit side by side.
  core::rows_by_destination(g, L.offsets, L.sources);
  core::sort_rows(L);
  if (!options.self_loops || !options.duplicates) core::drop_links(L, options);
  const auto n = static_cast<std::size_t>(L.n_nodes);
  const int workers = core::edge_workers(L.sources.size());
  const core::Counts out = core::block_counts(L.sources, n, workers);
  L.out_degree.assign(n, 0);
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i)
      for (const auto& c : out) L.out_degree[i] += c[i];
  });
  return L;
}

}  // namespace itercl
