// Graphs: node ids, and the in-link CSR that every PageRank format is built from.
#include "itercl/graph.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>

#include "core/edges.hpp"
#include "core/host_memory.hpp"
#include "core/number_text.hpp"
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

// The links as keys (destination << bits | source), sorted on all cores by a least-significant-digit radix
// sort over the 2 * bits bits that node ids use: rows by destination, each row's sources ascending, in a few
// streaming passes over memory instead of a scatter of every link to a random place and a sort of every row.
// A weighted graph's weights move with their keys (`weights`: in the edges' order, then sorted). The sort is
// stable: repeats of a link stay in the order they were read.
struct SortedLinks {
  std::unique_ptr<std::uint64_t[]> keys;
  std::unique_ptr<double[]> weights;  // null when unweighted
};
SortedLinks sorted_links(const EdgesView& g, int bits) {
  const std::size_t m = g.src.size();
  const int workers = worker_count(m);
  const bool weighted = !g.weights.empty();
  std::unique_ptr<std::uint64_t[]> keys = host_scratch<std::uint64_t>(m, "the links' sort keys"),
                                   other = host_scratch<std::uint64_t>(m, "the links' sort keys");
  std::unique_ptr<double[]> weights, other_weights;
  if (weighted) {
    weights = host_scratch<double>(m, "the links' weights");
    other_weights = host_scratch<double>(m, "the links' weights");
  }
  parallel_blocks(m, workers, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t e = begin; e < end; ++e)
      keys[e] = static_cast<std::uint64_t>(g.dst[e]) << bits | static_cast<std::uint32_t>(g.src[e]);
    if (weighted) std::copy(g.weights.begin() + begin, g.weights.begin() + end, weights.get() + begin);
  });
  constexpr int kMostDigitBits = 11;  // 2048 buckets a worker: its counts and write positions stay in cache
  const int total = 2 * bits, passes = (total + kMostDigitBits - 1) / kMostDigitBits;
  const int digit_bits = (total + passes - 1) / passes;
  const std::size_t radix = std::size_t{1} << digit_bits;
  std::vector<std::size_t> at(static_cast<std::size_t>(workers) * radix);  // [worker][digit]
  for (int pass = 0, shift = 0; pass < passes; ++pass, shift += digit_bits) {
    const std::uint64_t mask = radix - 1;
    parallel_blocks(m, workers, [&](std::size_t begin, std::size_t end, int w) {
      std::size_t* c = &at[static_cast<std::size_t>(w) * radix];
      std::fill(c, c + radix, 0);
      for (std::size_t e = begin; e < end; ++e) ++c[keys[e] >> shift & mask];
    });
    // Digit by digit, worker by worker: each worker's links of a digit go after the earlier workers' (stable).
    std::size_t running = 0;
    for (std::size_t d = 0; d < radix; ++d)
      for (int w = 0; w < workers; ++w) running += std::exchange(at[static_cast<std::size_t>(w) * radix + d], running);
    parallel_blocks(m, workers, [&](std::size_t begin, std::size_t end, int w) {
      std::size_t* next = &at[static_cast<std::size_t>(w) * radix];
      if (weighted)
        for (std::size_t e = begin; e < end; ++e) {
          const std::size_t to = next[keys[e] >> shift & mask]++;
          other[to] = keys[e], other_weights[to] = weights[e];
        }
      else
        for (std::size_t e = begin; e < end; ++e) other[next[keys[e] >> shift & mask]++] = keys[e];
    });
    std::swap(keys, other);
    std::swap(weights, other_weights);
  }
  return {std::move(keys), std::move(weights)};
}

// The in-link CSR of the sorted keys: sources, the rows' offsets, and the self-loops and repeats counted.
void rows_of_sorted(const SortedLinks& sorted, std::size_t m, int bits, InLinks& L) {
  const std::uint64_t* keys = sorted.keys.get();
  const auto n = static_cast<std::size_t>(L.n_nodes);
  const std::uint64_t source_mask = (std::uint64_t{1} << bits) - 1;
  L.sources = host_vector<std::int32_t>(m, "the in-links");
  if (sorted.weights) L.values.assign(sorted.weights.get(), sorted.weights.get() + m);
  L.offsets = host_vector<std::int64_t>(n + 1, "the in-links' offsets");
  const int workers = worker_count(m);
  std::vector<std::int64_t> loops(static_cast<std::size_t>(workers)), repeats(static_cast<std::size_t>(workers));
  parallel_blocks(m, workers, [&](std::size_t begin, std::size_t end, int w) {
    // Row r starts at the first link whose destination is r or more: each worker sets the starts of the
    // rows that begin in its block, so every offset is written once.
    std::int64_t previous_row = begin == 0 ? -1 : static_cast<std::int64_t>(keys[begin - 1] >> bits);
    std::int64_t self_loops = 0, repeated = 0;  // counted here: a shared array's neighbouring counts would
                                                // bounce one cache line between the cores at every link
    std::int32_t* sources = L.sources.data();
    std::int64_t* offsets = L.offsets.data();
    for (std::size_t e = begin; e < end; ++e) {
      const auto row = static_cast<std::int64_t>(keys[e] >> bits);
      const auto source = static_cast<std::int32_t>(keys[e] & source_mask);
      sources[e] = source;
      for (std::int64_t r = previous_row + 1; r <= row; ++r) offsets[r] = static_cast<std::int64_t>(e);
      previous_row = row;
      self_loops += source == row;
      repeated += e > 0 && keys[e] == keys[e - 1];
    }
    if (end == m)
      for (auto r = static_cast<std::size_t>(previous_row + 1); r <= n; ++r) offsets[r] = static_cast<std::int64_t>(m);
    loops[static_cast<std::size_t>(w)] = self_loops;
    repeats[static_cast<std::size_t>(w)] = repeated;
  });
  for (int w = 0; w < workers; ++w)
    L.self_loops += loops[static_cast<std::size_t>(w)], L.duplicates += repeats[static_cast<std::size_t>(w)];
}

// Drops the self-loops and repeats the options leave out, compacting in place. A repeat dropped hands its
// weight to the link kept: the last weight read stays, as networkx's DiGraph keeps it.
void drop_links(InLinks& L, const LinkOptions& options) {
  const bool weighted = !L.values.empty();
  std::size_t out = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const auto begin = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]);
    const auto end = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i) + 1]);
    L.offsets[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(out);
    std::int32_t previous = -1;
    for (std::size_t k = begin; k < end; ++k) {
      const std::int32_t s = L.sources[k];
      const bool loop = s == i, repeat = s == previous;
      previous = s;
      if (loop && !options.self_loops) continue;
      if (repeat && !options.duplicates) {
        if (weighted) L.values[out - 1] = L.values[k];
        continue;
      }
      if (weighted) L.values[out] = L.values[k];
      L.sources[out++] = s;
    }
  }
  L.offsets[static_cast<std::size_t>(L.n_nodes)] = static_cast<std::int64_t>(out);
  L.dropped = static_cast<std::int64_t>(L.sources.size() - out);
  L.sources.resize(out);
  L.sources.shrink_to_fit();
  if (weighted) L.values.resize(out), L.values.shrink_to_fit();
}

// Leaves out the links of weight 0 (networkx's sparse matrix adds nothing for them, and a node whose
// out-weight is 0 is dangling), then sums the out-weights; a graph whose links all weigh the same ranks
// as an unweighted one, and runs as one, without a value array.
void weigh_links(InLinks& L) {
  std::size_t out = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const auto begin = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]);
    const auto end = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i) + 1]);
    L.offsets[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(out);
    for (std::size_t k = begin; k < end; ++k)
      if (L.values[k] != 0) L.sources[out] = L.sources[k], L.values[out++] = L.values[k];
  }
  L.offsets[static_cast<std::size_t>(L.n_nodes)] = static_cast<std::int64_t>(out);
  L.zero_weights = static_cast<std::int64_t>(L.sources.size() - out);
  L.sources.resize(out), L.values.resize(out);
  if (std::all_of(L.values.begin(), L.values.end(), [&](double w) { return w == L.values.front(); })) {
    L.values = {};
    return;
  }
  // In link order, one thread: the same sums, bit for bit, on every machine.
  L.out_weight.assign(static_cast<std::size_t>(L.n_nodes), 0.0);
  for (std::size_t k = 0; k < out; ++k) L.out_weight[static_cast<std::size_t>(L.sources[k])] += L.values[k];
}

void check_edge_counts(const EdgesView& g) {
  const std::size_t m = g.src.size();
  if (g.dst.size() != m)
    throw InputError("graph: " + std::to_string(m) + " sources for " + std::to_string(g.dst.size()) + " destinations");
  if (g.n_nodes < 0) throw InputError("graph: a negative node count");
}

void throw_bad_edge(const EdgesView& g, std::size_t e) {
  throw InputError("graph: edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) + " -> " +
                   std::to_string(g.dst[e]) + ") names a node outside 0.." + std::to_string(g.n_nodes - 1));
}

int node_bits(std::int32_t n_nodes) {
  return std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint32_t>(std::max(n_nodes - 1, 0)))));
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
  return in_links(EdgesView{g.n_nodes, g.src, g.dst, g.weights}, options);
}

InLinks in_links(const EdgesView& g, const LinkOptions& options) {
  core::check_edge_counts(g);
  const std::size_t m = g.src.size();
  if (!g.weights.empty() && g.weights.size() != m)
    throw InputError("graph: " + std::to_string(g.weights.size()) + " weights for " + std::to_string(m) + " edges");
  // The first edge naming a node outside 0..n-1, if any (each thread finds its block's first).
  std::vector<std::size_t> bad(static_cast<std::size_t>(core::edge_workers(m)), m);
  parallel_blocks(m, core::edge_workers(m), [&](std::size_t begin, std::size_t end, int w) {
    for (std::size_t e = begin; e < end && bad[static_cast<std::size_t>(w)] == m; ++e)
      if (g.src[e] < 0 || g.src[e] >= g.n_nodes || g.dst[e] < 0 || g.dst[e] >= g.n_nodes)
        bad[static_cast<std::size_t>(w)] = e;
  });
  if (const std::size_t e = *std::min_element(bad.begin(), bad.end()); e < m) core::throw_bad_edge(g, e);
  for (std::size_t e = 0; e < g.weights.size(); ++e)
    if (!(g.weights[e] >= 0) || !std::isfinite(g.weights[e]))
      throw InputError("graph: edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) + " -> " +
                       std::to_string(g.dst[e]) + ") has weight " + number_text(g.weights[e]) +
                       "; weights must be finite and >= 0");

  InLinks L;
  L.n_nodes = g.n_nodes;
  // Sources ascending in every row: the kernels then gather the rank vector in address order, and
  // repeats sit side by side.
  const int bits = core::node_bits(g.n_nodes);
  core::rows_of_sorted(core::sorted_links(g, bits), m, bits, L);
  if (!options.self_loops || !options.duplicates) core::drop_links(L, options);
  if (!L.values.empty()) core::weigh_links(L);
  // Links are counted in 64 bits; a row's length stays an int (the formats' widths and row blocks).
  for (std::size_t i = 0; i < static_cast<std::size_t>(L.n_nodes); ++i)
    if (L.offsets[i + 1] - L.offsets[i] > std::numeric_limits<std::int32_t>::max())
      throw InputError("graph: node " + std::to_string(i) + " has " + std::to_string(L.offsets[i + 1] - L.offsets[i]) +
                       " in-links; a node takes at most 2^31 - 1");
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
