// The link-balanced split of PageRank's rows and one rank's block of them.
#include "pagerank/pagerank_split.hpp"

#include <algorithm>
#include <numeric>

#include "core/comm.hpp"
#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "itercl/error.hpp"
#include "pagerank/pagerank_formats.hpp"

namespace itercl::pagerank {

std::vector<std::int32_t> spread_order(std::span<const std::int32_t> out_degree, int ranks) {
  if (ranks < 1) throw InputError("pagerank: " + std::to_string(ranks) + " ranks; expected at least 1");
  std::vector<std::int32_t> order = host_vector<std::int32_t>(out_degree.size(), "the node order");
  if (ranks == 1) {
    std::iota(order.begin(), order.end(), 0);
    return order;
  }
  const std::vector<std::int32_t> by_degree = degree_order(out_degree);
  // Node k of the degree order goes to group k mod P, at place k / P in it; group g holds the nodes
  // g, g + P, ... (ceil((n - g) / P) of them), after the groups before it.
  const std::size_t n = by_degree.size(), p = static_cast<std::size_t>(ranks);
  std::vector<std::size_t> start(p + 1, 0);
  for (std::size_t g = 0; g < p; ++g) start[g + 1] = start[g] + (g < n ? (n - g + p - 1) / p : 0);
  parallel_blocks(n, worker_count(n), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t k = begin; k < end; ++k) order[start[k % p] + k / p] = by_degree[k];
  });
  return order;
}

std::vector<std::int32_t> link_balanced_rows(std::span<const std::int64_t> offsets, int ranks) {
  if (ranks < 1) throw InputError("pagerank: " + std::to_string(ranks) + " ranks; expected at least 1");
  const std::size_t n = offsets.empty() ? 0 : offsets.size() - 1;
  const std::int64_t total = offsets.empty() ? 0 : offsets.back();
  std::vector<std::int32_t> bounds(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r < ranks; ++r) {
    if (total == 0) {
      bounds[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(core::first_row(n, r, ranks));
      continue;
    }
    // n_links r / P in 64 bits (n_links r passes 2^63 only beyond 2^40 links, more than a host holds);
    // offsets are nondecreasing, so the cut is the first row starting there.
    const std::int64_t target = total * r / ranks;
    const auto at = std::lower_bound(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(n), target);
    bounds[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(at - offsets.begin());
  }
  bounds.back() = static_cast<std::int32_t>(n);
  return bounds;
}

InLinks row_block(const InLinks& links, std::int32_t first, std::int32_t last) {
  if (first < 0 || last < first || last > links.n_nodes)
    throw InputError("pagerank: rows [" + std::to_string(first) + ", " + std::to_string(last) + ") of a graph of " +
                     std::to_string(links.n_nodes) + " nodes");
  const auto f = static_cast<std::size_t>(first), l = static_cast<std::size_t>(last);
  return block_of_rows(
      links.n_nodes, first, links.offsets[f], std::span<const std::int64_t>(links.offsets.data() + f + 1, l - f),
      {links.sources.begin() + links.offsets[f], links.sources.begin() + links.offsets[l]}, links.out_degree,
      links.weighted()
          ? std::vector<double>(links.values.begin() + links.offsets[f], links.values.begin() + links.offsets[l])
          : std::vector<double>{},
      links.out_weight);
}

InLinks block_of_rows(std::int32_t n, std::int32_t first, std::int64_t first_offset,
                      std::span<const std::int64_t> row_ends, std::vector<std::int32_t> sources,
                      std::vector<std::int32_t> out_degree, std::vector<double> values,
                      std::vector<double> out_weight) {
  InLinks block;
  block.n_nodes = n;
  const auto un = static_cast<std::size_t>(n), f = static_cast<std::size_t>(first);
  // Rows before first hold no links (0), rows after the block all of them (its last end).
  const auto links = static_cast<std::int64_t>(sources.size());
  block.offsets.assign(un + 1, links);
  std::fill(block.offsets.begin(), block.offsets.begin() + static_cast<std::ptrdiff_t>(f) + 1, 0);
  for (std::size_t j = 0; j < row_ends.size(); ++j) block.offsets[f + 1 + j] = row_ends[j] - first_offset;
  block.sources = std::move(sources);
  block.out_degree = std::move(out_degree);
  block.values = std::move(values);
  block.out_weight = std::move(out_weight);
  return block;
}

}  // namespace itercl::pagerank
