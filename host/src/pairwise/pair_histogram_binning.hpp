// The buckets as the histogram kernel reads them (internal; Binning's checks and edges, and g(r), are
// public in itercl/pair_histogram.hpp).
#pragma once

#include <vector>

#include "itercl/pair_histogram.hpp"

namespace itercl::pairwise {

// The binning rule, one for every kind and both precisions: a pair lands where numpy.histogram puts
// its distance d = sqrt(d2), d2 the squared distance in the working precision and d its correctly
// rounded root, compared with the edges rounded to the working precision: bin k holds edge_k <= d <
// edge_k+1, the last bin closed (uniform bins: numpy's linspace edges); radius k counts d <= r_k.
// The device takes no root to compare: the table holds, per edge, the thresholds on d2 that are
// exactly equivalent (sqrt is monotonic): uniform and explicit edges, the least d2 whose root reaches
// each edge (n + 1 of them), then the greatest d2 whose root stays within the last edge (the closed
// end); radii, the greatest d2 whose root stays within each radius.
std::vector<double> edge_table(const Binning& b, Precision precision);

// Uniform bins: lo, hi and bins / (hi - lo), the kernel's arguments; zeros for the other kinds.
std::vector<double> uniform_frame(const Binning& b);

}  // namespace itercl::pairwise
