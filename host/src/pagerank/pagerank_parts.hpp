// PageRank over several MPI ranks from a graph drawn in parts (internal; issue 11: "R-MAT graphs are
// generated in parts and exchanged, so no rank ever holds all the links"). Each rank holds a
// contiguous range of the edges (make_rmat's counter gives edge e the same wherever it is drawn); the
// ranks sum their per-node counts of the links that stay (MPI_Allreduce of n int32s, twice), so every
// rank computes the same node order and the same cut of the rows that rank 0's whole graph would
// give (pagerank_ranks.hpp), and the edges go to the rank owning their destination row (all to all),
// where the rows are built as one process builds them (in_links: sorted, self-loops and repeats
// counted and dropped as the options say). Repeats can only be found together, so with
// `duplicates: false` the edges first meet at a rank by destination (d mod P) to be counted once, and
// only then is the cut known.
#pragma once

#include <cstdint>

#include "core/comm.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"

namespace itercl::pagerank {

// The whole graph's counts, as one process's in_links reports them (summed over the ranks).
struct LinkCounts {
  std::int64_t links = 0, self_loops = 0, duplicates = 0, dropped = 0;
  std::int64_t zero_weights = 0;    // links of weight 0 left out (a weighted graph)
  bool weighted = false;            // the links carry weights that differ (InLinks::weighted)
  std::int64_t dangling_nodes = 0;  // nodes without out-links
  double rows_s = 0;                // this rank's time building its rows from the edges it received
};

// `part`: this rank's edges of the graph (n_nodes the whole graph's, the same on every rank; every
// edge on exactly one rank). `p` as fit_over_ranks takes it (its vectors on rank 0). Every rank calls
// it; `counts` receives the graph's counts on every rank. Returns as fit_share.
PageRankResult fit_over_ranks(core::Comm& comm, const Device& device, PageRankParams p, const Graph& part,
                              const LinkOptions& options, LinkCounts& counts);

}  // namespace itercl::pagerank
