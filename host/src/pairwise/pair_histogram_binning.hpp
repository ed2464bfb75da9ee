// The buckets as the histogram kernel reads them (internal; Binning's checks and edges, and g(r), are
// public in itercl/pair_histogram.hpp).
#pragma once

#include <vector>

#include "itercl/pair_histogram.hpp"

namespace itercl::pairwise {

// The edges or radii squared, so that the device compares squared distances and takes no root; an
// edge below 0 lies below every distance, and so does -1. Uniform bins: one unused value.
std::vector<double> edge_table(const Binning& b);

// Uniform bins: lo, hi and bins / (hi - lo), the kernel's arguments; zeros for the other kinds.
std::vector<double> uniform_frame(const Binning& b);

}  // namespace itercl::pairwise
