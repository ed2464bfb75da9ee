// PageRank's destination rows split over ranks (internal), the first step of issue 11's PageRank over
// MPI: each rank sums the in-links of a contiguous block of rows, so the blocks are balanced by links
// (the sums' work), not by rows. Out-degrees stay whole on every rank: they are per-source facts that
// scale every column of x, and n int32s are small beside the links.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/parallel.hpp"
#include "itercl/graph.hpp"

namespace itercl::pagerank {

// The relabelling that spreads the high-degree nodes over the ranks before the cut (issue 33): the nodes
// in degree_order (out-degree, largest first, ties by id), dealt round-robin into `ranks` groups (node k
// of that order to group k mod P), the groups one after another: order[new id] = old id. Cut by links
// (below), each rank then holds about one P-th of the hubs, so no rank sends most of the halo; within a
// group the nodes stay in degree order (its z's most read entries together). One rank: the identity.
std::vector<std::int32_t> spread_order(std::span<const std::int32_t> out_degree, int ranks);

// ranks + 1 row boundaries: rank r sums rows [b[r], b[r + 1]). Cut where the in-link row pointer (`offsets`)
// first reaches n_links r / P, so each block holds about n_links / P links (a block can end up with
// no rows where one row holds more than that); with no links at all, rows are split evenly
// (core::first_row), as the update still does work per row.
std::vector<std::int32_t> link_balanced_rows(std::span<const std::int64_t> offsets, int ranks);
inline std::vector<std::int32_t> link_balanced_rows(const InLinks& links, int ranks) {
  return link_balanced_rows(links.offsets, ranks);
}

// Calls body(first, last) on `workers` threads for blocks of rows [first, last) that cover [0, n) and hold
// about as many links each (cut where the row pointer `offsets`, n + 1 values, reaches links k / workers):
// the host's passes over a rank's rows, whose hubs would leave blocks of as many rows unbalanced.
template <class Body>
void rows_by_links(std::span<const std::int64_t> offsets, int workers, Body&& body) {
  if (offsets.empty()) return;
  workers = std::max(workers, 1);
  const std::size_t n = offsets.size() - 1;
  const auto links = static_cast<std::size_t>(offsets.back() - offsets.front());
  const auto first_row = [&](std::size_t k) -> std::size_t {
    if (k == static_cast<std::size_t>(workers)) return n;
    const auto target = offsets.front() + static_cast<std::int64_t>(links * k / static_cast<std::size_t>(workers));
    return static_cast<std::size_t>(
        std::lower_bound(offsets.begin(), offsets.begin() + static_cast<std::ptrdiff_t>(n), target) - offsets.begin());
  };
  parallel_blocks(static_cast<std::size_t>(workers), workers,
                  [&](std::size_t w, std::size_t, int) { body(first_row(w), first_row(w + 1)); });
}

// The graph as one rank holds it: the in-links of rows [first, last) only, every other row empty, in
// the whole graph's ids and with its out-degrees. A whole InLinks (n + 1 offsets, n + 1 int32s beside
// the out-degrees), so every format builds from it unchanged and its row sums land at their rows.
InLinks row_block(const InLinks& links, std::int32_t first, std::int32_t last);

// The same block from the pieces a rank receives over MPI: the whole graph's offsets of rows
// first + 1 .. last (`row_ends`, as they are: the in-links of the rows before first are subtracted
// here), the block's in-links and every node's out-degree, for a graph of n nodes; a weighted graph's
// block also its in-links' weights and every node's out-weight (both empty when unweighted).
InLinks block_of_rows(std::int32_t n, std::int32_t first, std::int64_t first_offset,
                      std::span<const std::int64_t> row_ends, std::vector<std::int32_t> sources,
                      std::vector<std::int32_t> out_degree, std::vector<double> values = {},
                      std::vector<double> out_weight = {});

}  // namespace itercl::pagerank
