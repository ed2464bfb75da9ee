// What the PageRank split, halo and rows tests share: random graphs with skewed in-degrees, and the halo's
// all to all done in one process.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "itercl/graph.hpp"
#include "pagerank/pagerank_halo.hpp"

namespace pagerank_test_graphs {

// n nodes and `edges` links from uniform sources to skewed destinations (geometric with parameter `hub`:
// a few rows hold many links, as R-MAT's in-degrees are).
inline itercl::InLinks random_links(std::int32_t n, int edges, unsigned seed, double hub = 0.2) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int32_t> node(0, n - 1);
  std::geometric_distribution<std::int32_t> destination(hub);
  itercl::Graph g;
  g.n_nodes = n;
  for (int e = 0; e < edges; ++e) g.src.push_back(node(rng)), g.dst.push_back(std::min(destination(rng), n - 1));
  return itercl::in_links(g);
}

// What plan_halo's all to all does over MPI: each rank learns the ids the others read from it, in the
// readers' order, and set_sends turns them into its sends. Returns the ids each rank sends.
inline std::vector<std::vector<std::int32_t>> exchange_needs(std::vector<itercl::pagerank::Halo>& halos,
                                                             const std::vector<std::int32_t>& bounds) {
  const std::size_t P = halos.size();
  std::vector<std::vector<std::int32_t>> sent(P);
  for (std::size_t r = 0; r < P; ++r) {
    std::vector<std::size_t> counts(P);
    for (std::size_t q = 0; q < P; ++q)
      for (const std::int32_t id : halos[q].needed)
        if (id >= bounds[r] && id < bounds[r + 1]) sent[r].push_back(id), ++counts[q];
    itercl::pagerank::set_sends(halos[r], bounds[r], sent[r], counts);
  }
  return sent;
}

}  // namespace pagerank_test_graphs
