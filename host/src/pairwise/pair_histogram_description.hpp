// What the distance histogram's tests, tuner (tune/tune_pair_histogram.cpp) and runner
// (experiment/run_pair_histogram.cpp) share, from one place: the work a histogram is, the problem the
// tuner times, and the reference a candidate kernel must agree with.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "itercl/datagen.hpp"
#include "itercl/pair_histogram.hpp"

namespace itercl::pairwise {

// The pairs a histogram of n points looks at: every i < j.
inline double histogram_pairs(Eigen::Index n) { return static_cast<double>(n) * static_cast<double>(n - 1) / 2; }

// Pairs per second; 0 for a time not measured.
inline double pair_rate(double pairs, double seconds) { return seconds > 0 ? pairs / seconds : 0.0; }

// The tuner's problem: n points on the integer lattice 0 .. side - 1 in 3-D, and an edge halfway between
// each two squared distances (sqrt(m + 1/2)). A distance then lies at least 1 / (4 sqrt(3) side) from
// every edge, far beyond its rounding (tolerance::edge_band), so every correct kernel counts exactly what
// the reference counts.
struct LatticeProblem {
  Matrix points;
  std::vector<double> edges;
};

inline LatticeProblem lattice_problem(Eigen::Index n, Eigen::Index side, std::uint64_t seed) {
  LatticeProblem out;
  out.points = make_uniform({.n_samples = n, .n_features = 3, .high = static_cast<double>(side), .random_state = seed})
                   .array()
                   .floor()
                   .matrix();
  for (Eigen::Index m = 0; m <= 3 * (side - 1) * (side - 1); ++m)
    out.edges.push_back(std::sqrt(static_cast<double>(m) + 0.5));
  return out;
}

// The kernel every candidate is held to: one anchor per work-item, a global atomic per pair.
inline constexpr const char* kHistogramReference = "naive";

// The first bucket where a candidate's counts differ from the reference's (exact on lattice_problem);
// empty where they agree.
inline std::string count_mismatch(const std::vector<std::uint64_t>& counts,
                                  const std::vector<std::uint64_t>& reference) {
  for (std::size_t k = 0; k < reference.size(); ++k)
    if (counts[k] != reference[k])
      return "bucket " + std::to_string(k) + " counts " + std::to_string(counts[k]) + " pairs, " + kHistogramReference +
             " " + std::to_string(reference[k]);
  return {};
}

}  // namespace itercl::pairwise
