// The all-pairs kernel's parameters (cl/pairwise.cl), in the shape every family's kernel struct has
// (docs/architecture.md): PairwiseKernel::validate, resolve, defines and the field table (internal).
#pragma once

#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::pairwise {

// What the all-pairs kernel's resolution and -D options depend on.
struct DistanceProblem {
  Metric metric;  // as computed (minkowski 1 and 2 by their special forms)
  Precision precision;
  int dim = 0;  // features (form knn's rows holds a row's in registers)
};

// The JSON field table of a kernel struct of this folder (PairwiseKernel, PairHistogramKernel).
template <class K>
const std::vector<KernelField<K>>& fields();
template <>
const std::vector<KernelField<PairwiseKernel>>& fields<PairwiseKernel>();

// Fills in every zero / "auto" field of `k` for this device (tuning/pairwise.json) and problem; checks the
// rest. `sources` receives the database entries used.
PairwiseKernel resolve(PairwiseKernel k, const DeviceInfo& info, const DistanceProblem& problem,
                       std::vector<std::string>& sources);

// The -D options of cl/pairwise.cl for a resolved kernel.
std::string defines(const PairwiseKernel& k, const DistanceProblem& problem);

// The kernel of cl/pairwise.cl a resolved variant runs.
const char* kernel_name(const PairwiseKernel& k);

// Whether the metric is computed from inner products (cosine, dot, and euclidean / sqeuclidean in the
// expanded variant), which need per-vector values: 1 / |v| or |v|^2.
bool uses_inner_products(const PairwiseKernel& k, Metric metric);

}  // namespace itercl::pairwise
