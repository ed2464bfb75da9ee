// Resolving the all-pairs kernel's variant and tuning for a device and metric (internal).
#pragma once

#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"

namespace itercl {

// Fills in every zero / "auto" field of `k` for this device (tuning/pairwise.json), metric and precision;
// checks the rest. `sources` receives the database entries used.
PairwiseKernel resolve_pairwise_kernel(PairwiseKernel k, const DeviceInfo& info, Metric metric, Precision precision,
                                       std::vector<std::string>& sources);

// The -D options of cl/pairwise.cl for a resolved kernel.
std::string pairwise_options(const PairwiseKernel& k, Metric metric, Precision precision);

// Whether the metric is computed from inner products (cosine, dot, and euclidean / sqeuclidean in the
// expanded variant), which need per-vector values: 1 / |v| or |v|^2.
bool uses_inner_products(const PairwiseKernel& k, Metric metric);

}  // namespace itercl
