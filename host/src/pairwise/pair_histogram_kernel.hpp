// The histogram kernel's parameters (cl/pair_histogram*.cl), in the shape every family's kernel struct
// has (docs/architecture.md): PairHistogramKernel::validate, resolve, defines and the field table, and
// the rectangle side its counters allow (internal).
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pair_histogram.hpp"
#include "pairwise/pair_histogram_binning.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::pairwise {

// One histogram variant: its kernel file (cl/pair_histogram.clh's banner) and entry point, whether it
// counts in per-group histograms that hist_merge (pair_histogram.cl) adds up, whether it reads the other
// points in staged blocks of columns that column_splits can share among work-groups, and what auto runs
// instead where its per-group histogram does not fit local memory (empty: none). validate, resolve, the
// build, the tuner and the tests read this table.
struct HistogramVariant {
  std::string_view name;
  const char* file;
  const char* entry;
  bool private_counts = false;
  bool column_blocks = true;
  std::string_view too_large_instead = {};
};
inline constexpr HistogramVariant kHistogramTable[] = {
    {.name = "naive", .file = "pair_histogram.cl", .entry = "hist_naive", .column_blocks = false},
    {.name = "tiled", .file = "pair_histogram_tiled.cl", .entry = "hist_tiled"},
    {.name = "private_hist",
     .file = "pair_histogram_private.cl",
     .entry = "hist_private",
     .private_counts = true,
     .too_large_instead = "tiled"},
    {.name = "private_hist_balanced",
     .file = "pair_histogram_private.cl",
     .entry = "hist_private_balanced",
     .private_counts = true,
     .too_large_instead = "tiled"},
};

// The variants' names, in the table's order (the order the tuner tries them).
inline constexpr auto kHistogramVariants = names_of(kHistogramTable);

// The ways uniform bins check a pair's bucket against the edges' thresholds.
inline const std::initializer_list<std::string_view> kUniformChecks = {"guarded", "corrected"};

// The rules evenly spaced explicit edges and radii can bin by (PairHistogramKernel::even_edges).
inline const std::initializer_list<std::string_view> kEvenEdgesRules = {"place", "lookup"};

// What the histogram kernel's resolution and -D options depend on.
struct HistogramProblem {
  Eigen::Index dim;  // coordinates per point
  int buckets;
  // The binning as the device holds it, by either rule for evenly spaced edges (kernel.even_edges): the
  // same where the edges are uneven.
  DeviceBinning place, lookup;
  bool periodic;
  Precision precision;
};

// The binning a resolved kernel's device holds.
const DeviceBinning& kernel_binning(const PairHistogramKernel& k, const HistogramProblem& problem);

template <class K>
const std::vector<KernelField<K>>& fields();
template <>
const std::vector<KernelField<PairHistogramKernel>>& fields<PairHistogramKernel>();

// Fills in every zero / "auto" field of `k` for this device (tuning/pair_histogram.json, with the
// measurements behind its values) and problem, and checks the rest. A Device rather than its DeviceInfo:
// the global counters follow its extensions (cl_khr_int64_base_atomics). `sources` receives the database
// entries used.
PairHistogramKernel resolve(PairHistogramKernel k, const Device& device, const HistogramProblem& problem,
                            std::vector<std::string>& sources);

// The -D options of cl/pair_histogram*.cl for a resolved kernel on a device of `local_memory` bytes of
// local memory (the edge table is staged there where it fits).
std::string defines(const PairHistogramKernel& k, const HistogramProblem& problem, std::size_t local_memory);

// The table's entry of a resolved variant; ParamError("kernel.variant") for another name.
const HistogramVariant& histogram_variant(std::string_view name);
inline const char* kernel_file(const PairHistogramKernel& k) { return histogram_variant(k.variant).file; }

// Whether the variant counts in per-group histograms (private_hist, private_hist_balanced).
inline bool private_histogram(const PairHistogramKernel& k) {
  for (const HistogramVariant& v : kHistogramTable)
    if (v.name == k.variant) return v.private_counts;
  return false;  // "auto": not resolved yet
}

// The longest side, a multiple of the work-group, of a rectangle whose pairs the resolved kernel's
// counters hold without overflow (and whose per-group histograms stay within kPartialBudget).
Eigen::Index max_rectangle_side(const PairHistogramKernel& k, const HistogramProblem& problem);

// The per-group histograms (rows of `buckets` counts) a worker's buffer holds for rectangles of
// `groups` anchor blocks: room for the splits column_splits gives any of them.
std::size_t partial_rows(const PairHistogramKernel& k, const HistogramProblem& problem, std::size_t groups,
                         unsigned compute_units);

// The splits of a rectangle's `column_blocks` among work-groups (the launch's second dimension) for
// `groups` anchor blocks: groups_per_unit work-groups per compute unit, at most a split per column block,
// within partial_rows.
std::size_t column_splits(const PairHistogramKernel& k, std::size_t groups, std::size_t column_blocks,
                          std::size_t partial_rows, unsigned compute_units);

// Work-items per work-group of hist_merge (one per bucket): a multiple of the SIMD width of NVIDIA's (32)
// and AMD's (64) GPUs, so that no group runs a partial wavefront.
inline constexpr std::size_t kMergeGroup = 64;

}  // namespace itercl::pairwise
