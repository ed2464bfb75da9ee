// The link-balanced split of PageRank's rows and one rank's block of them.
#include "pagerank/pagerank_split.hpp"

#include <algorithm>

#include "core/comm.hpp"
#include "itercl/error.hpp"

namespace itercl::pagerank {

std::vector<std::int32_t> link_balanced_rows(const InLinks& links, int ranks) {
  if (ranks < 1) throw InputError("pagerank: " + std::to_string(ranks) + " ranks; expected at least 1");
  const auto n = static_cast<std::size_t>(links.n_nodes);
  const std::int64_t total = links.n_links();
  std::vector<std::int32_t> bounds(static_cast<std::size_t>(ranks) + 1);
  for (int r = 0; r < ranks; ++r) {
    if (total == 0) {
      bounds[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(core::first_row(n, r, ranks));
      continue;
    }
    // n_links r / P in 64 bits; offsets are nondecreasing, so the cut is the first row starting there.
    const std::int64_t target = total * r / ranks;
    const auto at = std::lower_bound(links.offsets.begin(), links.offsets.begin() + static_cast<std::ptrdiff_t>(n),
                                     target, [](std::int32_t o, std::int64_t t) { return o < t; });
    bounds[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(at - links.offsets.begin());
  }
  bounds.back() = links.n_nodes;
  return bounds;
}

InLinks row_block(const InLinks& links, std::int32_t first, std::int32_t last) {
  if (first < 0 || last < first || last > links.n_nodes)
    throw InputError("pagerank: rows [" + std::to_string(first) + ", " + std::to_string(last) + ") of a graph of " +
                     std::to_string(links.n_nodes) + " nodes");
  InLinks block;
  block.n_nodes = links.n_nodes;
  const auto un = static_cast<std::size_t>(links.n_nodes);
  const std::int32_t begin = links.offsets[static_cast<std::size_t>(first)];
  const std::int32_t end = links.offsets[static_cast<std::size_t>(last)];
  block.offsets.resize(un + 1);
  for (std::size_t i = 0; i <= un; ++i) block.offsets[i] = std::clamp(links.offsets[i], begin, end) - begin;
  block.sources.assign(links.sources.begin() + begin, links.sources.begin() + end);
  block.out_degree = links.out_degree;
  return block;
}

}  // namespace itercl::pagerank
