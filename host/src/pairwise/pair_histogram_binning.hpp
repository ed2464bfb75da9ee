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
// The device takes no root to compare: its table holds, per edge, the thresholds on d2 that are exactly
// equivalent (sqrt is monotonic).
struct DeviceBinning {
  // How the device finds a pair's bucket (cl/pair_histogram.clh's BINNING):
  //   uniform  from the distance's place among evenly spaced edges, a threshold deciding near an edge:
  //            uniform bins, and with `place` explicit edges or radii (as the edges 0, r_0 .. r_n-1)
  //            evenly spaced within a few ulps. The table: each bucket's least d2 (the least whose root reaches its
  //            lower edge; radii, exceeds the radius below), the least d2 beyond the closed last edge, then
  //            the greatest d2 within it.
  //   edges, radii  from a lookup of equal cells over d2, each cell's start the bucket of the least d2 it
  //            can receive (with a cell's slack for the device's rounding of the cell index), moved up past
  //            the thresholds below d2. The table: edges, as uniform; radii, the greatest d2 whose root
  //            stays within each radius; then the cells' starts.
  Binning::Kind rule;
  std::vector<double> frame;  // the kernel's lo, hi and inv_width: the edges' span, or the cells' over d2
  std::vector<double> table;
  // The lookup: the most thresholds a pair's start is moved past, over every cell and the slack of the
  // device's rounding of the cell index (cl/pair_histogram.clh's LOOKUP_STEPS). 0 for the uniform rule.
  int steps = 0;
};

DeviceBinning device_binning(const Binning& b, Precision precision, bool place);

// Whether the uniform rule's x may be off by half a bucket or more, so that the kernel walks the thresholds
// from the nearest edge (UNIFORM_WALK): where its guard on x's rounding, 64 eps (max(|lo|, |hi|) inv_width +
// buckets), reaches a quarter of a bucket, half the kernel's own limit, as the device rounds the guard in
// the working precision. False for the other rules, which take no place.
bool uniform_walk(const DeviceBinning& d, int buckets, Precision precision);

// The cells of the bucket lookup of a rule (16 per bucket, 64 to 2048, the table then fitting local memory
// with the staged points): 0 for the uniform rule and single buckets, which need none. Finer cells leave
// fewer pairs a threshold to step past: on the H200, 20 radii through the lookup took 63.6 ms over 262,144
// points with 16 a bucket against 67.0 with 4 (benchmarks/results/nvidia-h200/histogram-splits/, call 3;
// those radii were evenly spaced, and now take the uniform rule).
int lookup_cells(Binning::Kind rule, int buckets);

}  // namespace itercl::pairwise
