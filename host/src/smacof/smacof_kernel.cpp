// SmacofKernel: the variant, storage and tuning of cl/smacof.cl, resolved from the tuning database
// (tuning/smacof.json), the -D options it is built with, and the memory check that runs before anything
// is uploaded.
#include "smacof/smacof_kernel.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

#include "itercl/error.hpp"
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

// Rows a fused work-item computes at most: each keeps its point and its sums in registers.
constexpr int kMaxRowsPerItem = 16;

// Values delta (or the weights) occupy on the device.
std::uint64_t pair_values(std::uint64_t n, bool packed) { return packed ? n * (n / 2) : n * n; }

struct Need {
  std::uint64_t total = 0, largest = 0;  // bytes in all, and in the largest buffer
};

// The fused variants cut delta (and the weights) into buffers of whole slices (smacof_parts.hpp), which
// resolve keeps within one allocation: their largest buffer need only hold one column. The seed variants
// read delta whole from one buffer.
Need need_for(Precision p, bool packed, bool fused, int slices, const Problem& s, std::uint64_t n) {
  const std::uint64_t real = real_size(p), pairs = pair_values(n, packed) * real;
  const std::uint64_t rows = n * static_cast<std::uint64_t>(s.dim) * real;
  Need need;
  need.largest = fused ? n * real : pairs;
  need.total = pairs + (2 + static_cast<std::uint64_t>(std::max(slices, 1))) * rows;
  if (s.weighted) {
    need.total += pairs + n * n * real + rows;  // weights, V+ (always full) and B(X) X
    need.largest = std::max(need.largest, n * n * real);
  }
  if (s.features > 0) need.total += n * static_cast<std::uint64_t>(s.features) * real;
  return need;
}

bool fits(const DeviceInfo& info, const Need& need) {
  return need.total <= info.global_memory && need.largest <= info.max_allocation;
}

// The largest N that fits with these settings (binary search; the need grows with N).
std::uint64_t largest_n(const DeviceInfo& info, Precision p, bool packed, bool fused, int slices, const Problem& s) {
  std::uint64_t lo = 0, hi = 1;
  while (fits(info, need_for(p, packed, fused, slices, s, hi))) hi *= 2;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(info, need_for(p, packed, fused, slices, s, mid)) ? lo : hi) = mid;
  }
  return lo;
}

// The power of two at or above n.
std::uint64_t power_of_two_from(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

// Enough slices to give every compute unit groups_per_unit work-groups, rounded up to a power of two,
// but none shorter than kMinSliceColumns (the power of two at or below columns / kMinSliceColumns). The
// power of two is measured, not derived: on the H200 (benchmarks/results/nvidia-h200/smacof.json, group
// slices) the fused kernel took 0.741 ms per iteration at N = 16,384 with 17 slices against 0.438 with 16
// and 0.436 with 32; at N = 32,768 2.73 ms with 9 against 1.69 with 8 and 1.67 with 16; at N = 65,536
// 9.96 ms with 5 against 6.81 with 4 and 6.72 with 8: slices of uneven length cost up to 1.7 times, and
// within the powers of two the time is flat once the GPU is full.
int auto_slices(unsigned compute_units, int groups_per_unit, Eigen::Index row_groups, Eigen::Index columns) {
  const Eigen::Index wanted = static_cast<Eigen::Index>(compute_units) * groups_per_unit;
  const Eigen::Index needed = std::max<Eigen::Index>((wanted + row_groups - 1) / row_groups, 1);
  const Eigen::Index most = std::max<Eigen::Index>(columns / kMinSliceColumns, 1);
  Eigen::Index slices = 1;
  while (slices < needed && slices * 2 <= most) slices *= 2;
  return static_cast<int>(slices);
}

Eigen::Index fused_row_groups(Eigen::Index rows, const SmacofKernel& k) {
  const Eigen::Index per_group = static_cast<Eigen::Index>(k.work_group_size) * std::max(k.rows_per_item, 1);
  return (rows + per_group - 1) / per_group;
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
  if (packed.value_or(false) && variant == "fused_rows")
    throw ParamError("kernel.variant",
                     "fused_rows reads full storage along its rows; packed storage is read down the columns by "
                     "variant fused");
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
                                                               {"rows_per_item", &SmacofKernel::rows_per_item}};
  return table;
}

SmacofKernel resolve(SmacofKernel k, const DeviceInfo& info, const Problem& problem,
                     std::vector<std::string>& sources) {
  k.validate();
  const auto db = tuned_kernel<SmacofKernel>("smacof", info, sources, [](const SmacofKernel& t) {
    t.validate();
    if (t.variant == "auto" || !t.work_group_size || !t.groups_per_unit || !t.rows_per_item)
      throw ParamError("smacof", "needs variant, work_group_size, groups_per_unit and rows_per_item");
    if (t.packed.has_value() || t.slices)
      throw ParamError("smacof",
                       "packed and slices belong to the problem (its storage, its N), not to a device; the "
                       "device's packed_from says from which N packed storage pays");
  });
  // Packed storage is read down the columns, which only fused does: a row-reading choice yields to it.
  const bool asked_packed = k.packed.value_or(false);
  if (k.variant == "auto") k.variant = asked_packed && db.variant == "fused_rows" ? "fused" : db.variant;
  // Storage left to the device: packed from the size on which it measured faster (fused_rows reads full
  // storage only).
  if (!k.packed) {
    if (!k.packed_from) k.packed_from = db.packed_from;
    k.packed = k.variant != "fused_rows" && k.packed_from > 0 && problem.n >= k.packed_from;
  }
  if (k.work_group_size == 0)
    k.work_group_size = static_cast<int>(std::min<std::size_t>(db.work_group_size, info.max_work_group_size));
  check_device_work_group("kernel.work_group_size", k.work_group_size, info);
  if (!is_fused(k.variant)) {
    k.slices = k.groups_per_unit = k.rows_per_item = 0;
    return k;
  }
  if (!k.rows_per_item) k.rows_per_item = db.rows_per_item;
  const Eigen::Index n = problem.n;
  const Eigen::Index columns = *k.packed ? n / 2 : n;
  const Eigen::Index row_groups = fused_row_groups(n, k);
  if (!k.groups_per_unit) k.groups_per_unit = db.groups_per_unit;
  // Every slice within one allocation, so that delta can be cut into buffers of whole slices
  // (smacof_parts.hpp); resolved for the whole matrix (N values a column), as every rank resolves.
  const std::uint64_t least = least_slices(static_cast<std::uint64_t>(columns), static_cast<std::uint64_t>(n),
                                           real_size(problem.precision), info.max_allocation);
  if (k.slices == 0) {
    k.slices = auto_slices(info.compute_units, k.groups_per_unit, row_groups, columns);
    // Raised as a power of two, as auto_slices measured them (0: not even a column fits; check_memory says so).
    if (static_cast<std::uint64_t>(k.slices) < least)
      k.slices = static_cast<int>(std::min<std::uint64_t>(power_of_two_from(least), columns));
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

std::string defines(const SmacofKernel& k, const Problem& problem) {
  Defines d(problem.precision);
  d.add("DIM", problem.dim)
      .add("WG_SIZE", k.work_group_size)
      .add("PACKED", int(k.packed.value_or(false)))
      .add("WEIGHTED", int(problem.weighted));
  if (is_fused(k.variant)) d.add("ROWS_PER_ITEM", std::max(k.rows_per_item, 1));
  if (problem.features > 0) {
    // build_delta's steps, named as cl/pairwise.cl names them.
    check_dissimilarity_metric(problem.metric);
    d.add("ACCUMULATE", problem.metric == Metric::cityblock ? "ACC_ABSDIFF" : "ACC_SQDIFF")
        .add("FINISH", problem.metric == Metric::euclidean ? "FINISH_SQRT" : "FINISH_NONE");
  }
  return d.str();
}

std::uint64_t block_bytes(const SmacofKernel& k, const Problem& problem, std::uint64_t rows) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t real = real_size(problem.precision), dim = static_cast<std::uint64_t>(problem.dim);
  return rows * n * real + (n + rows * (1 + static_cast<std::uint64_t>(std::max(k.slices, 1)))) * dim * real +
         n * static_cast<std::uint64_t>(problem.features) * real;
}

std::uint64_t ranks_that_fit(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t fixed = block_bytes(k, problem, 0), per_row = block_bytes(k, problem, 1) - fixed;
  if (info.global_memory < fixed + per_row) return 0;
  // Balanced blocks hold at most ceil(N / P) rows, which is at most `rows` for P = ceil(N / rows).
  const std::uint64_t rows = std::min((info.global_memory - fixed) / per_row, std::max<std::uint64_t>(n, 1));
  return (n + rows - 1) / rows;
}

void check_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& s) {
  const auto n = static_cast<std::uint64_t>(s.n);
  const Precision p = s.precision;
  const bool packed = k.packed.value_or(false), fused = is_fused(k.variant);
  const Need need = need_for(p, packed, fused, k.slices, s, n);
  if (fits(info, need)) return;
  std::string message =
      "N = " + std::to_string(n) + " points need " + gib(need.total) + " on the device (" +
      std::string(precision_name(p)) + ", " + (packed ? "packed" : "full") + " storage" +
      (s.weighted ? ", weights and V+" : "") + "), the largest buffer " + gib(need.largest) +
      (fused ? " (delta is cut into buffers of whole slices)" : "") + "; device '" + info.name + "' has " +
      gib(info.global_memory) + " and allocates at most " + gib(info.max_allocation) +
      " in one buffer. At most N = " + std::to_string(largest_n(info, p, packed, fused, k.slices, s)) +
      " fits like this";
  if (!fused && need.total <= info.global_memory) message += ", more with variant fused (several buffers)";
  if (!packed)
    message += ", N = " + std::to_string(largest_n(info, p, true, fused, k.slices, s)) +
               " with packed storage (params.kernel.packed = true)";
  if (p == Precision::f64)
    message +=
        ", N = " + std::to_string(largest_n(info, Precision::f32, packed, fused, k.slices, s)) + " in precision float";
  if (!s.weighted)
    if (const std::uint64_t ranks = ranks_that_fit(info, k, s))
      message += "; over MPI ranks (full storage, one device each like this one) it needs at least " +
                 std::to_string(ranks) + " ranks";
  throw InputError("data: " + message);
}

}  // namespace smacof
}  // namespace itercl
