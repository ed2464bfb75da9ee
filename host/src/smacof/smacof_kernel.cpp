// SmacofKernel: the variant, storage and tuning of cl/smacof_*.cl, resolved from the tuning database
// (tuning/smacof.json), and the -D options it is built with.
#include "smacof/smacof_kernel.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

#include "itercl/error.hpp"
#include "smacof/smacof_memory.hpp"
#include "smacof/smacof_parts.hpp"
#include "smacof/smacof_steps.hpp"
#include "tuning/kernel_checks.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace smacof {

// The tuning fields take any positive int: resolve checks the work-group against the device, and caps
// slices at the columns.
constexpr int kAnyCount = std::numeric_limits<int>::max();

// Auto slices are never shorter than this many columns, so that a slice's loop outweighs the cost of
// adding its partial rows in fused_finish.
constexpr Eigen::Index kMinSliceColumns = 64;

// Nor longer than this many: a work-group's loop over its slice is what the last wave of work-groups
// leaves the device idle for. On the H200 (benchmarks/results/nvidia-h200-x2/smacof-slices.md, float,
// 2-D, kernel time per iteration) the fill rule's 8 slices took 10.74 ms at N = 92,682 and 20.53 at
// 131,072 where 64 slices (1,448 and 2,048 columns) took 10.32 and 19.73, and a rank's block of 46,341
// rows at N = 92,682 6.28 ms with 8 slices, 5.18 with 64; at 65,536 16 to 128 slices were within the
// runs' 3% spread (4.81 to 5.01 ms).
constexpr Eigen::Index kMaxSliceColumns = 2048;

// Rows a fused work-item computes at most: each keeps its point and its sums in registers.
constexpr int kMaxRowsPerItem = 16;

// The power of two at or above n.
std::uint64_t power_of_two_from(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Enough slices to give every compute unit groups_per_unit work-groups, and enough that none is longer
// than kMaxSliceColumns, rounded up to a power of two, but none shorter than kMinSliceColumns (the power of
// two at or below columns / kMinSliceColumns). The power of two is measured, not derived: on the H200
// (benchmarks/results/nvidia-h200/smacof.json, group slices) the fused kernel took 0.741 ms per iteration
// at N = 16,384 with 17 slices against 0.438 with 16 and 0.436 with 32; at N = 32,768 2.73 ms with 9
// against 1.69 with 8 and 1.67 with 16; at N = 65,536 9.96 ms with 5 against 6.81 with 4 and 6.72 with 8:
// slices of uneven length cost up to 1.7 times, and within the powers of two the time is flat once the
// GPU is full (and no slice is long: kMaxSliceColumns).
int auto_slices(unsigned compute_units, int groups_per_unit, Eigen::Index row_groups, Eigen::Index columns) {
  const Eigen::Index wanted = static_cast<Eigen::Index>(compute_units) * groups_per_unit;
  const Eigen::Index needed = std::max(
      {(wanted + row_groups - 1) / row_groups, (columns + kMaxSliceColumns - 1) / kMaxSliceColumns, Eigen::Index{1}});
  const Eigen::Index most = std::max<Eigen::Index>(columns / kMinSliceColumns, 1);
  Eigen::Index slices = 1;
  while (slices < needed && slices * 2 <= most) slices *= 2;
  return static_cast<int>(slices);
}

// Over ranks each rank runs its own slices only: it needs as many as one device would for its share of
// the columns (to fill its device), and equal ranges keep the ranks in step.
int auto_slices_over(unsigned compute_units, int groups_per_unit, Eigen::Index row_groups, Eigen::Index columns,
                     std::uint64_t least, int ranks) {
  const auto p = static_cast<Eigen::Index>(std::max(ranks, 1));
  Eigen::Index each = auto_slices(compute_units, groups_per_unit, row_groups, (columns + p - 1) / p);
  const auto least_each = static_cast<Eigen::Index>((least + static_cast<std::uint64_t>(p) - 1) / p);
  if (each < least_each) each = static_cast<Eigen::Index>(power_of_two_from(static_cast<std::uint64_t>(least_each)));
  return static_cast<int>(std::min(each * p, std::max<Eigen::Index>(columns, 1)));
}

int ring_rows(const SmacofKernel& k) {
  int rows = 128;
  while (rows < k.work_group_size + 2 * kRingSteps) rows *= 2;
  return rows;
}

std::size_t symmetric_local_bytes(const SmacofKernel& k, const Problem& problem) {
  const auto reals = static_cast<std::size_t>(kRingSteps) * static_cast<std::size_t>(ring_rows(k)) *
                         static_cast<std::size_t>(problem.dim) +
                     2 * static_cast<std::size_t>(k.work_group_size);
  return reals * real_size(problem.precision);
}

std::uint64_t ring_span(int work_group_size, std::uint64_t per_slice) {
  return per_slice + static_cast<std::uint64_t>(work_group_size) - 1;
}

Eigen::Index fused_row_groups(Eigen::Index rows, const SmacofKernel& k) {
  const Eigen::Index per_group = static_cast<Eigen::Index>(k.work_group_size) * std::max(k.rows_per_item, 1);
  return (rows + per_group - 1) / per_group;
}

const Variant& variant(std::string_view name) {
  if (const Variant* v = find_variant(name)) return *v;
  throw ParamError("kernel.variant",
                   "expected one of " + choice_list(kVariants) + "; got \"" + std::string(name) + "\"");
}

const Variant& kernels(const SmacofKernel& k) {
  const Variant& v = variant(k.variant);
  return k.symmetric == YesNo::yes && v.symmetric ? *v.symmetric : v;
}

}  // namespace smacof

void SmacofKernel::validate() const {
  check_choice("kernel.variant", variant, smacof::kVariants);
  check_tuning_value("kernel.work_group_size", work_group_size, smacof::kAnyCount);
  check_tuning_value("kernel.slices", slices, smacof::kAnyCount);
  check_tuning_value("kernel.groups_per_unit", groups_per_unit, smacof::kAnyCount);
  check_tuning_value("kernel.rows_per_item", rows_per_item, smacof::kMaxRowsPerItem);
  check_tuning_value("kernel.packed_from", packed_from, smacof::kAnyCount);
  const bool fused = variant == "auto" || smacof::is_fused(variant);
  if (slices > 0 && !fused)
    throw ParamError("kernel.slices",
                     "only the fused variants split the columns into slices; leave it unset for " + variant);
  if (groups_per_unit > 0 && !fused)
    throw ParamError("kernel.groups_per_unit",
                     "only the fused variants split the columns into slices; leave it unset for " + variant);
  if (rows_per_item > 0 && !fused)
    throw ParamError("kernel.rows_per_item",
                     "only the fused variants compute several rows per work-item; leave it unset for " + variant);
  const smacof::Variant* entry = smacof::find_variant(variant);  // nullptr: auto
  if (symmetric == YesNo::yes && entry && !entry->symmetric)
    throw ParamError("kernel.symmetric",
                     "computes each pair once in variant fused over packed storage; got variant " + variant);
  if (symmetric == YesNo::yes && packed == YesNo::no)
    throw ParamError("kernel.symmetric", "computes each pair once over packed storage; packed is false");
  if (symmetric == YesNo::yes && rows_per_item > 1)
    throw ParamError("kernel.rows_per_item",
                     "the symmetric pass computes one row per work-item; got " + std::to_string(rows_per_item));
  if (packed == YesNo::yes && entry && entry->along_rows)
    throw ParamError("kernel.variant", variant +
                                           " reads full storage along its rows; packed storage is read down the "
                                           "columns by variant " +
                                           std::string(entry->packed_instead));
}

void to_json(nlohmann::json& j, const SmacofKernel& k) { j = kernel_fields_json(k, smacof::fields()); }

void from_json(const nlohmann::json& j, SmacofKernel& k) { read_kernel_fields(j, k, smacof::fields()); }

std::ostream& operator<<(std::ostream& out, const SmacofKernel& k) { return out << nlohmann::json(k).dump(); }

namespace smacof {

const std::vector<KernelField<SmacofKernel>>& fields() {
  static const std::vector<KernelField<SmacofKernel>> table = {{"variant", &SmacofKernel::variant},
                                                               {"packed", &SmacofKernel::packed},
                                                               {"packed_from", &SmacofKernel::packed_from},
                                                               {"work_group_size", &SmacofKernel::work_group_size},
                                                               {"slices", &SmacofKernel::slices},
                                                               {"groups_per_unit", &SmacofKernel::groups_per_unit},
                                                               {"rows_per_item", &SmacofKernel::rows_per_item},
                                                               {"symmetric", &SmacofKernel::symmetric}};
  return table;
}

// resolve for the storage asked for ("auto": the database's packed_from).
SmacofKernel resolve_storage(SmacofKernel k, const DeviceInfo& info, const Problem& problem,
                             std::vector<std::string>& sources) {
  k.validate();
  const auto db = tuned_kernel<SmacofKernel>("smacof", info, sources, [](const SmacofKernel& t) {
    t.validate();
    check_entry(t, fields(), "smacof", {"variant", "work_group_size", "groups_per_unit", "rows_per_item"},
                {"packed", "slices"},
                "belong to the problem (its storage, its N), not to a device; the device's packed_from says from "
                "which N packed storage pays");
  });
  // Packed storage is read down the columns, which only fused does: a row-reading choice yields to it.
  const bool asked_packed = k.packed == YesNo::yes;
  if (k.variant == "auto") {
    const std::string_view instead = variant(db.variant).packed_instead;
    k.variant = asked_packed && !instead.empty() ? std::string(instead) : db.variant;
  }
  // Storage left to the device: packed from the size on which one device measured it faster (fused_rows
  // reads full storage only). Over ranks full storage's blocks hide the exchange of X behind their own
  // columns, while packed storage adds every row over the ranks: there it stays full unless it does not
  // fit (resolve), as the 4-GPU runs measured it (benchmarks/results/nvidia-h200-x4/smacof-own-queue/).
  if (unset(k.packed)) {
    if (!k.packed_from) k.packed_from = db.packed_from;
    k.packed =
        yes_no(!variant(k.variant).along_rows && problem.ranks <= 1 && k.packed_from > 0 && problem.n >= k.packed_from);
  }
  if (k.work_group_size == 0)
    k.work_group_size = static_cast<int>(std::min<std::size_t>(db.work_group_size, info.max_work_group_size));
  check_device_work_group("kernel.work_group_size", k.work_group_size, info);
  if (!is_fused(k.variant)) {
    k.slices = k.groups_per_unit = k.rows_per_item = 0;
    k.symmetric = YesNo::no;
    return k;
  }
  // Each pair once: where the device's entry says so, over packed storage, with fused, one row per
  // work-item, and its ring within local memory.
  const bool can_symmetric = k.packed == YesNo::yes && variant(k.variant).symmetric && k.rows_per_item <= 1 &&
                             symmetric_local_bytes(k, problem) <= info.local_memory;
  if (unset(k.symmetric)) k.symmetric = yes_no(db.symmetric == YesNo::yes && can_symmetric);
  if (k.symmetric == YesNo::yes && !can_symmetric)
    throw ParamError("kernel.symmetric", "needs packed storage, variant fused, one row per work-item and " +
                                             std::to_string(symmetric_local_bytes(k, problem)) +
                                             " bytes of local memory (device '" + info.name + "' has " +
                                             std::to_string(info.local_memory) + "); got packed " +
                                             (k.packed == YesNo::yes ? "true" : "false") + ", variant " + k.variant +
                                             (k.work_group_size > 64 ? " (fewer work-items need less)" : ""));
  if (k.symmetric == YesNo::yes) k.rows_per_item = 1;
  if (!k.rows_per_item) k.rows_per_item = db.rows_per_item;
  const Eigen::Index n = problem.n;
  const Eigen::Index columns = k.packed == YesNo::yes ? n / 2 : n;
  // The work-groups a slice has on one device: over ranks with full storage each rank's block holds a
  // P-th of the rows, and its slices are added until they fill its device. With the whole matrix's rows
  // the 4 ranks of N = 65,536 on four H200s took 32 slices of 64 groups, 1.39 ms an iteration against 1.26
  // with the 64 this gives (benchmarks/results/nvidia-h200-x4/smacof-own-queue/).
  const Eigen::Index p = k.packed == YesNo::yes ? 1 : std::max(problem.ranks, 1);
  const Eigen::Index row_groups = fused_row_groups((n + p - 1) / p, k);
  if (!k.groups_per_unit) k.groups_per_unit = db.groups_per_unit;
  // Every slice within one allocation, so that delta can be cut into buffers of whole slices
  // (smacof_parts.hpp); resolved for the whole matrix (N values a column), as every rank resolves.
  const std::uint64_t least = least_slices(static_cast<std::uint64_t>(columns), static_cast<std::uint64_t>(n),
                                           real_size(problem.precision), info.max_allocation);
  if (k.slices == 0) {
    // Raised as a power of two, as auto_slices measured them (0: not even a column fits; check_memory says so).
    k.slices = auto_slices_over(info.compute_units, k.groups_per_unit, row_groups, columns, least,
                                k.packed == YesNo::yes ? problem.ranks : 1);
  } else if (static_cast<std::uint64_t>(k.slices) < least) {
    throw ParamError("kernel.slices",
                     std::to_string(k.slices) + " slices of delta's " + std::to_string(columns) + " columns hold " +
                         gib(static_cast<std::uint64_t>((columns + k.slices - 1) / k.slices) *
                             static_cast<std::uint64_t>(n) * real_size(problem.precision)) +
                         " each, more than device '" + info.name + "' allocates in one buffer (" +
                         gib(info.max_allocation) + "): at least " + std::to_string(least) + " (or leave it unset)");
  }
  k.slices = static_cast<int>(std::min<Eigen::Index>(k.slices, std::max<Eigen::Index>(columns, 1)));
  return k;
}

SmacofKernel resolve(SmacofKernel k, const DeviceInfo& info, const Problem& problem,
                     std::vector<std::string>& sources) {
  SmacofKernel chosen = resolve_storage(k, info, problem, sources);
  // Storage left to the device, full as measured, but too large for it (or its ranks): packed, where that fits
  // (fused_rows reads full storage only). So N = 300,000 in float runs on 2 H200s by default.
  const Variant* asked = find_variant(k.variant);
  if (!unset(k.packed) || chosen.packed == YesNo::yes || (asked && asked->along_rows) ||
      storage_fits(info, chosen, problem))
    return chosen;
  k.packed = YesNo::yes;
  std::vector<std::string> packed_sources;
  SmacofKernel packed = resolve_storage(k, info, problem, packed_sources);
  if (!storage_fits(info, packed, problem)) return chosen;
  sources = std::move(packed_sources);
  return packed;
}

std::string defines(const SmacofKernel& k, const Problem& problem) {
  Defines d(problem.precision);
  d.add("DIM", problem.dim)
      .add("WG_SIZE", k.work_group_size)
      .add("PACKED", int(k.packed == YesNo::yes))
      .add("WEIGHTED", int(problem.weighted));
  if (is_fused(k.variant)) d.add("ROWS_PER_ITEM", std::max(k.rows_per_item, 1));
  if (k.symmetric == YesNo::yes) d.add("SYMMETRIC", 1).add("RING_STEPS", kRingSteps).add("RING", ring_rows(k));
  if (problem.features > 0) {
    // build_delta's steps, named as cl/pairwise.cl names them.
    check_dissimilarity_metric(problem.metric);
    d.add("ACCUMULATE", problem.metric == Metric::cityblock ? "ACC_ABSDIFF" : "ACC_SQDIFF")
        .add("FINISH", problem.metric == Metric::euclidean ? "FINISH_SQRT" : "FINISH_NONE");
  }
  return d.str();
}

}  // namespace smacof
}  // namespace itercl
