// The all-pairs kernel's parameters (cl/pairwise.cl), in the shape every family's kernel struct has
// (docs/architecture.md): PairwiseKernel::validate, resolve, defines and the field table (internal).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::pairwise {

// One variant of the distances (cl/pairwise.cl's banner): its kernel file and entry point, whether the
// register tile's fields apply (subtiles, cols_per_item, slice: -D SUBTILES, COLS_PER_ITEM, SLICE), whether
// it computes euclidean and sqeuclidean from inner products (|x|^2 + |y|^2 - 2 x.y, those two metrics
// only), and whether `itercl tune pairwise` sweeps it (expanded is an accuracy choice, not a tuning: its
// cancellation error). None needs more of a device than OpenCL 1.2. validate, resolve, defines, the build,
// the tuner, the tests and the CLI's help read this table.
struct DistanceVariant {
  std::string_view name;
  const char* file;
  const char* entry;
  bool register_tile;
  bool expanded;
  bool tuned;
};
inline constexpr DistanceVariant kDistanceTable[] = {
    {"naive", "pairwise.cl", "pairs_naive", false, false, false},
    {"tiled", "pairwise.cl", "pairs_tiled", true, false, true},
    {"expanded", "pairwise.cl", "pairs_tiled", true, true, false},
};

// One form of the k nearest (form knn, PairwiseKernel::knn): its kernel file and entry point, which fuse
// the search into the distances in the expanded form (cl/pairwise_knn.cl), or none (nullptr: the
// distances' tiles, reduced by reduce_knn); whether a work-item holds its rows in registers while the
// columns are broadcast (knn_rows: 1-D groups, knn_tile_cols 1) rather than a 2-D register tile
// (knn_fused); and the form "auto" tries next where this one cannot run on the device.
struct KnnForm {
  std::string_view name;
  const char* file;
  const char* entry;
  bool rows_in_registers;
  std::string_view fallback;
};
inline constexpr KnnForm kKnnTable[] = {
    {"fused", "pairwise_knn.cl", "knn_fused", false, "tiles"},
    {"rows", "pairwise_knn.cl", "knn_rows", true, "fused"},
    {"tiles", nullptr, nullptr, false, {}},
};

// The names, in the tables' order (the order the checks list them).
inline constexpr auto kDistanceVariants = names_of(kDistanceTable);
inline constexpr auto kKnnForms = names_of(kKnnTable);

// The tables' entries of a resolved variant and form; ParamError("kernel.variant" / "kernel.knn") for
// another name.
const DistanceVariant& distance_variant(std::string_view name);
const KnnForm& knn_form(std::string_view name);

// Whether form knn of `k` fuses its search into the distances (fused, rows), computing the expanded form
// whatever the distances' variant.
inline bool fused_search(const PairwiseKernel& k) { return knn_form(k.knn).entry != nullptr; }

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
inline const char* kernel_name(const PairwiseKernel& k) { return distance_variant(k.variant).entry; }

// Whether the metric is computed from inner products (cosine, dot, and euclidean / sqeuclidean in the
// expanded variant), which need per-vector values: 1 / |v| or |v|^2.
bool uses_inner_products(const PairwiseKernel& k, Metric metric);

}  // namespace itercl::pairwise
