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
// each edge but the last (n of them), the least d2 whose root exceeds the last, then the greatest d2
// whose root stays within the last edge (the closed end); radii, the greatest d2 whose root stays within each radius.
// Edges and radii: then the bucket lookup's lookup_cells cells, equal over d2 as cell_frame places them, each the
// bucket of the least d2 a cell can receive (with a cell's slack for the device's rounding of the cell index), so that
// the device finds a bucket by moving up from its cell's start past the thresholds below d2.
std::vector<double> edge_table(const Binning& b, Precision precision);

// The cells of the bucket lookup of edges and radii (16 per bucket, 64 to 2048, the table then fitting
// local memory with the staged points): 0 for uniform bins and single buckets, which need none. Finer
// cells leave fewer pairs a threshold to step past: on the H200, 20 radii over 262,144 points took 63.6 ms
// with 16 a bucket against 67.0 with 4 (benchmarks/results/nvidia-h200/histogram-splits/, call 3).
int lookup_cells(Binning::Kind kind, int buckets);

// The kernel's lo, hi and inv_width arguments. Uniform bins: lo, hi and bins / (hi - lo). Edges and radii:
// the cells' frame over d2, from the first edge's square (0 for radii) to the last's, cells per unit.
std::vector<double> uniform_frame(const Binning& b);

}  // namespace itercl::pairwise
