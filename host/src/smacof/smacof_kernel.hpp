// SmacofKernel's parameters resolved for a device and a problem (internal): the four parts every
// family's kernel struct has (SmacofKernel::validate, resolve, defines, fields). What the resolved kernel
// takes on the devices, and the checks that refuse what does not fit: smacof_memory.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/metric.hpp"
#include "itercl/smacof.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::smacof {

// One variant: its kernel file (cl/smacof.clh's banner) and its two entry points, the pass over delta and
// the kernel after it (the seed's variants: bccalc_<name>, then stress_<name>; the fused: the pass giving
// both B(X) X and the stress, then the finish adding the slices' rows), and the storages it reads.
// validate checks against this table, resolve and the build take their kernels and rules from it, the
// tuner and the tests walk it.
struct Variant {
  std::string_view name;
  const char* file;
  const char* pass;
  const char* finish;
  bool fused = false;  // one pass over delta per iteration, its columns cut into slices
  // Reads delta along its rows: full storage only (packed storage is read down the columns).
  bool along_rows = false;
  // Where storage is packed and the variant left to auto: what runs instead of this one (empty: itself).
  std::string_view packed_instead = {};
  // Its pass over packed storage with each unordered pair once (SmacofKernel::symmetric); nullptr: none.
  const Variant* symmetric = nullptr;
};
// fused's pass over packed storage with each unordered pair once.
inline constexpr Variant kSymmetricPass = {.name = "fused",
                                           .file = "smacof_symmetric.cl",
                                           .pass = "fused_symmetric",
                                           .finish = "fused_symmetric_finish",
                                           .fused = true};
inline constexpr Variant kVariantTable[] = {
    {.name = "naive", .file = "smacof_seed.cl", .pass = "bccalc_naive", .finish = "stress_naive"},
    {.name = "local_x", .file = "smacof_seed.cl", .pass = "bccalc_local_x", .finish = "stress_local_x"},
    {.name = "colmajor", .file = "smacof_seed.cl", .pass = "bccalc_colmajor", .finish = "stress_colmajor"},
    {.name = "fused",
     .file = "smacof_fused.cl",
     .pass = "fused",
     .finish = "fused_finish",
     .fused = true,
     .symmetric = &kSymmetricPass},
    {.name = "fused_rows",
     .file = "smacof_fused.cl",
     .pass = "fused_rows",
     .finish = "fused_finish",
     .fused = true,
     .along_rows = true,
     .packed_instead = "fused"},
};

// The variants' names, in the table's order (the order the tuner tries them).
inline constexpr auto kVariants = names_of(kVariantTable);

// The most n_components the kernels take: they keep a point's coordinates in registers.
inline constexpr int kMaxComponents = 32;

// The table's entry of a variant; nullptr for "auto" (validate refuses other names).
inline const Variant* find_variant(std::string_view name) {
  for (const Variant& v : kVariantTable)
    if (v.name == name) return &v;
  return nullptr;
}

// The variants that make one pass over delta per iteration, its columns cut into slices ("auto": not yet).
inline bool is_fused(std::string_view variant) {
  const Variant* v = find_variant(variant);
  return v && v->fused;
}

// The table's entry of a resolved (named) variant; ParamError("kernel.variant") for another name.
const Variant& variant(std::string_view name);

// The kernels a resolved kernel runs each iteration. Weighted SMACOF's update is smacof_pinv.cl's
// apply_pinv, the dissimilarities from vectors smacof_delta.cl's build_delta.
const Variant& kernels(const SmacofKernel& k);
inline const char* kernel_file(const SmacofKernel& k) { return kernels(k).file; }

// What the kernel's resolution, its -D options and the device's buffers depend on.
struct Problem {
  Eigen::Index n = 0;  // points
  int dim = 2;         // n_components
  Precision precision = Precision::f32;
  bool weighted = false;
  Eigen::Index features = 0;          // > 0 while vectors are uploaded to build delta on the device
  Metric metric = Metric::euclidean;  // of delta built from vectors (features > 0)
  int ranks = 1;                      // MPI ranks sharing delta, one device each
};

// Fills in the kernel's zero / "auto" fields from the tuning database (tuning/smacof.json) and the
// problem, and checks the rest against the device. `sources` receives the database entries used. Storage
// left "auto" is packed from the database's packed_from, and also where full storage does not fit the
// problem's ranks' devices (devices like `info`) but packed storage does.
SmacofKernel resolve(SmacofKernel k, const DeviceInfo& info, const Problem& problem, std::vector<std::string>& sources);

// The fused variants' slices when none are given: enough for groups_per_unit work-groups on each of
// compute_units and none longer than 2,048 columns, as a power of two (uneven slices measured up to 1.7
// times slower), none shorter than 64 columns.
int auto_slices(unsigned compute_units, int groups_per_unit, Eigen::Index row_groups, Eigen::Index columns);

// The same over `ranks` ranks each holding an equal range of the slices (packed storage): each rank's
// auto_slices for its ceil(columns / ranks) columns, raised to a power of two so that with the other
// ranks' they keep every slice within one allocation (`least`, least_slices; 0: none fits), times ranks,
// at most `columns`. One rank: auto_slices raised to `least`.
int auto_slices_over(unsigned compute_units, int groups_per_unit, Eigen::Index row_groups, Eigen::Index columns,
                     std::uint64_t least, int ranks);

// Work-groups along the rows of a fused pass over `rows` rows: each takes work_group_size * rows_per_item.
Eigen::Index fused_row_groups(Eigen::Index rows, const SmacofKernel& k);

// The symmetric pass (cl/smacof_symmetric.cl's fused_symmetric): steps a batch, the copies of its ring of rows. 4
// measured fastest on the H200 (2 and 1: more barriers; 8 and 16: more local memory, fewer work-groups
// resident; benchmarks/results/nvidia-h200/smacof-symmetric-ring/).
inline constexpr int kRingSteps = 4;
// The ring's rows: what a batch's window and the rows being flushed span (work_group_size + 2 kRingSteps),
// as a power of two.
int ring_rows(const SmacofKernel& k);
// The local memory the symmetric pass takes: the ring's copies and the stress reduction's scratch.
std::size_t symmetric_local_bytes(const SmacofKernel& k, const Problem& problem);
// The symmetric pass's window sums a slice of `per_slice` columns writes per work-group of
// `work_group_size`, in rows (cl/smacof_symmetric.cl's span).
std::uint64_t ring_span(int work_group_size, std::uint64_t per_slice);

// The -D options of cl/smacof_*.cl for a resolved kernel.
std::string defines(const SmacofKernel& k, const Problem& problem);

// SmacofKernel's JSON names, both ways.
const std::vector<KernelField<SmacofKernel>>& fields();

}  // namespace itercl::smacof
