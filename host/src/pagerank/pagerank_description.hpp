// PageRank as the tests, the tuner (tune/tune_pagerank.cpp) and the runner (experiment/run_pagerank.cpp)
// share it: the work of an iteration, the reference a format is held to, and the tuner's graph.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/number_text.hpp"
#include "itercl/graph.hpp"
#include "tuning/tolerances.hpp"

namespace itercl::pagerank {

// The work of an iteration: one addition per link (the sum over in-links; the update's few operations
// per node are not counted), so "GFLOPS" are billions of links summed per second.
inline double additions_per_iteration(std::int64_t n_links) { return static_cast<double>(n_links); }
inline double additions_per_iteration(const InLinks& links) { return additions_per_iteration(links.n_links()); }

// The reference format: one work-item adds up a row in order, as the host reference does.
inline constexpr const char* kReferenceFormat = "csr_scalar";

// Empty if `ranks` and the reference format's `reference` (same graph and iterations) are within
// 2 ranks_l1 in L1, each being within ranks_l1 of the exact ranks; else how far apart they are.
inline std::string ranks_mismatch(const std::vector<double>& ranks, const std::vector<double>& reference, Precision p) {
  const double bound = 2 * tolerance::ranks_l1(p);
  double l1 = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) l1 += std::abs(ranks[i] - reference[i]);
  if (l1 <= bound) return {};
  return "ranks differ from " + std::string(kReferenceFormat) + "'s by " + number_text(l1) + " in L1, beyond " +
         number_text(bound);
}

// The tuner's graph: R-MAT with its default quadrant probabilities. The default scale and edge factor
// (benchmarks/pagerank's middle graph, R-MAT 20: 1 M nodes, 16 M links) and the largest the tuner takes.
struct TuningGraph {
  static constexpr int kScale = 20, kMostScale = 26;
  static constexpr int kEdgeFactor = 16, kMostEdgeFactor = 64;
  static constexpr std::uint64_t kRandomState = 1;
  int scale = kScale;
  int edge_factor = kEdgeFactor;
  std::uint64_t random_state = kRandomState;

  InLinks links() const {
    return in_links(make_rmat({.scale = scale, .edge_factor = edge_factor, .random_state = random_state}));
  }
};

}  // namespace itercl::pagerank
