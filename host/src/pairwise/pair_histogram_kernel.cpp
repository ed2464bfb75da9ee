// The histogram kernel's parameters: checks, JSON, their resolution from the tuning database
// (tuning/pair_histogram.json), the -D options they build cl/pair_histogram*.cl with, and the rectangles
// their counters allow.
#include "pairwise/pair_histogram_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

#include "itercl/error.hpp"
#include "pairwise/pair_histogram_binning.hpp"
#include "tuning/kernel_checks.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace pairwise {

// A work-group of up to 4096 points: PoCL's maximum work-group on CPUs, the largest of the devices here.
constexpr int kMaxHistogramGroup = 4096;

// The 32-bit counters' range: the local counts of a work-group, and the global counters where the device
// lacks 64-bit atomics, stay at or below it.
constexpr std::uint64_t kCounterMax = std::numeric_limits<std::uint32_t>::max();

// The per-group histograms of one launch (private variants: groups x buckets 32-bit counts), one buffer,
// are kept to 256 MiB: OpenCL guarantees one allocation of a quarter of global memory, so this fits any
// device of 1 GiB or more, and leaves most of the memory to the points.
constexpr std::size_t kPartialBudget = std::size_t{256} << 20;

// The most work-groups per compute unit a launch is split for: a GPU's resident groups several times over.
constexpr int kMaxGroupsPerUnit = 1024;

// The local memory a kernel takes: the staged points (3 or 4 coordinates staged as 4, cl/pair_histogram.clh's
// BLOCK_TYPE), the private histogram's copies, and the edge table's `table_copies` (0: the table not staged).
std::size_t histogram_local_bytes(const PairHistogramKernel& k, const HistogramProblem& problem, int replicas,
                                  int table_copies) {
  const auto staged_dim = static_cast<std::size_t>(problem.dim == 3 ? 4 : problem.dim);
  const std::size_t reals = static_cast<std::size_t>(k.work_group_size) * staged_dim +
                            kernel_binning(k, problem).table.size() * static_cast<std::size_t>(table_copies);
  // the private histogram's buckets and its two for the pairs in none (cl/pair_histogram.clh's HIST)
  const std::size_t counts =
      private_histogram(k) ? static_cast<std::size_t>(problem.buckets + 2) * static_cast<std::size_t>(replicas) : 0;
  return reals * real_size(problem.precision) + counts * sizeof(cl_uint);
}

bool has_int64_atomics(const Device& d) {
  return d.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
}

}  // namespace pairwise

void PairHistogramKernel::validate() const {
  check_choice("kernel.variant", variant, pairwise::kHistogramVariants);
  check_tuning_value("kernel.work_group_size", work_group_size, pairwise::kMaxHistogramGroup);
  check_choice("kernel.uniform_check", uniform_check, pairwise::kUniformChecks);
  check_choice("kernel.even_edges", even_edges, pairwise::kEvenEdgesRules);
  check_tuning_value("kernel.replicas", replicas, pairwise::kMaxHistogramGroup);
  if (replicas & (replicas - 1))
    throw ParamError("kernel.replicas",
                     "expected a power of two (or 0 for the device's default), got " + std::to_string(replicas));
  check_tuning_value("kernel.table_copies", table_copies, pairwise::kMaxHistogramGroup);
  if (table_copies & (table_copies - 1))
    throw ParamError("kernel.table_copies",
                     "expected a power of two (or 0 for the device's default), got " + std::to_string(table_copies));
  check_tuning_value("kernel.groups_per_unit", groups_per_unit, pairwise::kMaxGroupsPerUnit);
  if (global_counter_bits != 0 && global_counter_bits != 32 && global_counter_bits != 64)
    throw ParamError("kernel.global_counter_bits",
                     "expected 32, 64 (or 0 for the device's best), got " + std::to_string(global_counter_bits));
}

void to_json(nlohmann::json& j, const PairHistogramKernel& k) {
  j = kernel_fields_json(k, pairwise::fields<PairHistogramKernel>());
}

void from_json(const nlohmann::json& j, PairHistogramKernel& k) {
  read_kernel_fields(j, k, pairwise::fields<PairHistogramKernel>());
}

std::ostream& operator<<(std::ostream& out, const PairHistogramKernel& k) { return out << nlohmann::json(k).dump(); }

namespace pairwise {

template <>
const std::vector<KernelField<PairHistogramKernel>>& fields<PairHistogramKernel>() {
  static const std::vector<KernelField<PairHistogramKernel>> table = {
      {"variant", &PairHistogramKernel::variant},
      {"work_group_size", &PairHistogramKernel::work_group_size},
      {"global_counter_bits", &PairHistogramKernel::global_counter_bits},
      {"replicas", &PairHistogramKernel::replicas},
      {"uniform_check", &PairHistogramKernel::uniform_check},
      {"even_edges", &PairHistogramKernel::even_edges},
      {"table_copies", &PairHistogramKernel::table_copies},
      {"groups_per_unit", &PairHistogramKernel::groups_per_unit}};
  return table;
}

const DeviceBinning& kernel_binning(const PairHistogramKernel& k, const HistogramProblem& problem) {
  return k.even_edges == "place" ? problem.place : problem.lookup;
}

const HistogramVariant& histogram_variant(std::string_view name) {
  for (const HistogramVariant& v : kHistogramTable)
    if (v.name == name) return v;
  throw ParamError("kernel.variant",
                   "expected one of " + choice_list(kHistogramVariants) + "; got \"" + std::string(name) + "\"");
}

PairHistogramKernel resolve(PairHistogramKernel k, const Device& device, const HistogramProblem& problem,
                            std::vector<std::string>& sources) {
  k.validate();
  const DeviceInfo& info = device.info();
  const auto db = tuned_kernel<PairHistogramKernel>("pair_histogram", info, sources, [](const PairHistogramKernel& t) {
    t.validate();
    check_entry(t, fields<PairHistogramKernel>(), "pair_histogram",
                {"variant", "work_group_size", "uniform_check", "even_edges"}, {"global_counter_bits"},
                "follows the device's atomics");
  });
  if (!k.work_group_size)
    k.work_group_size = static_cast<int>(std::min<std::size_t>(db.work_group_size, info.max_work_group_size));
  check_device_work_group("kernel.work_group_size", k.work_group_size, info);
  if (k.uniform_check == "auto") k.uniform_check = db.uniform_check;
  if (k.even_edges == "auto") k.even_edges = db.even_edges;
  // The points and the histogram's copies must fit local memory; the edge table is staged beside them
  // where it fits too (defines), else read from global memory.
  if (k.variant == "auto") {
    PairHistogramKernel private_kernel = k;
    private_kernel.variant = db.variant;
    const std::string_view instead = histogram_variant(db.variant).too_large_instead;
    k.variant = !instead.empty() && histogram_local_bytes(private_kernel, problem, 1, 0) > info.local_memory
                    ? std::string(instead)
                    : db.variant;
  }
  auto private_bytes = [&](int replicas) { return histogram_local_bytes(k, problem, replicas, 0); };
  if (!private_histogram(k)) {
    if (k.replicas > 1) throw ParamError("kernel.replicas", "only the private variants keep copies of the histogram");
    k.replicas = 1;
  } else if (!k.replicas) {
    // The database's copies, at most one per work-item, halved until they fit local memory.
    const int wanted = db.replicas ? db.replicas : 1;
    k.replicas = 1;
    while (k.replicas * 2 <= std::min(wanted, k.work_group_size) && private_bytes(k.replicas * 2) <= info.local_memory)
      k.replicas *= 2;
  }
  if (k.replicas > k.work_group_size)
    throw ParamError("kernel.replicas", std::to_string(k.replicas) + " copies for " +
                                            std::to_string(k.work_group_size) +
                                            " work-items; expected at most one per work-item");
  const std::size_t needed = private_bytes(k.replicas);
  if (needed > info.local_memory)
    throw ParamError("kernel.variant", k.variant + " needs " + std::to_string(needed) + " bytes of local memory for " +
                                           std::to_string(problem.buckets) + " buckets" +
                                           (k.replicas > 1 ? " in " + std::to_string(k.replicas) + " copies" : "") +
                                           "; the device has " + std::to_string(info.local_memory) +
                                           (private_histogram(k) ? ": use variant tiled or fewer replicas" : ""));
  // The table's copies, after the histogram's: the database's, halved until they fit beside it (one copy
  // where even that does not fit: the table is then read from global memory).
  if (k.table_copies > k.work_group_size)
    throw ParamError("kernel.table_copies", std::to_string(k.table_copies) + " copies for " +
                                                std::to_string(k.work_group_size) +
                                                " work-items; expected at most one per work-item");
  if (!k.table_copies) {
    const int wanted = std::min(db.table_copies ? db.table_copies : 1, k.work_group_size);
    k.table_copies = 1;
    while (k.table_copies * 2 <= wanted &&
           histogram_local_bytes(k, problem, k.replicas, k.table_copies * 2) <= info.local_memory)
      k.table_copies *= 2;
  }
  if (k.table_copies > 1 && histogram_local_bytes(k, problem, k.replicas, k.table_copies) > info.local_memory)
    throw ParamError("kernel.table_copies", std::to_string(k.table_copies) + " copies of the " +
                                                std::to_string(kernel_binning(k, problem).table.size()) +
                                                "-value edge table do not fit the " +
                                                std::to_string(info.local_memory) +
                                                " bytes of local memory beside the points and the histogram");
  if (!k.groups_per_unit) k.groups_per_unit = db.groups_per_unit ? db.groups_per_unit : 1;
  const bool int64 = has_int64_atomics(device);
  if (!k.global_counter_bits) k.global_counter_bits = int64 ? 64 : 32;
  if (k.global_counter_bits == 64 && !int64)
    throw ParamError("kernel.global_counter_bits",
                     "64 needs cl_khr_int64_base_atomics, which '" + info.name + "' lacks");
  return k;
}

std::string defines(const PairHistogramKernel& k, const HistogramProblem& problem, std::size_t local_memory) {
  const DeviceBinning& device_rule = kernel_binning(k, problem);
  const Binning::Kind rule = device_rule.rule;
  const char* binning = rule == Binning::Kind::uniform ? "BIN_UNIFORM"
                        : rule == Binning::Kind::edges ? "BIN_EDGES"
                                                       : "BIN_RADII";
  return Defines(problem.precision)
      .add("DIM", problem.dim)
      .add("N_BINS", problem.buckets)
      .add("BINNING", binning)
      .add("PERIODIC", problem.periodic)
      .add("N_CELLS", lookup_cells(rule, problem.buckets))
      .add("LOOKUP_STEPS", device_rule.steps)
      .add("WG_SIZE", k.work_group_size)
      .add("REPLICAS", k.replicas)
      .add("UNIFORM_GUARD", k.uniform_check == "guarded")
      .add("UNIFORM_WALK", uniform_walk(device_rule, problem.buckets, problem.precision))
      .add("GLOBAL64", k.global_counter_bits == 64)
      .add("TABLE_LOCAL", histogram_local_bytes(k, problem, k.replicas, k.table_copies) <= local_memory)
      .add("TABLE_COPIES", k.table_copies)
      .str();
}

std::size_t partial_rows(const PairHistogramKernel& k, const HistogramProblem& problem, std::size_t groups,
                         unsigned compute_units) {
  const std::size_t budget = kPartialBudget / (static_cast<std::size_t>(problem.buckets) * sizeof(cl_uint));
  const std::size_t wanted = static_cast<std::size_t>(k.groups_per_unit) * compute_units;
  return std::max(groups, std::min(groups + wanted, budget));
}

std::size_t column_splits(const PairHistogramKernel& k, std::size_t groups, std::size_t column_blocks,
                          std::size_t partial_rows, unsigned compute_units) {
  if (!histogram_variant(k.variant).column_blocks || groups == 0) return 1;
  const std::size_t wanted = static_cast<std::size_t>(k.groups_per_unit) * compute_units;
  const std::size_t splits = std::min({(wanted + groups - 1) / groups, column_blocks, partial_rows / groups});
  return std::max<std::size_t>(1, splits);
}

Eigen::Index max_rectangle_side(const PairHistogramKernel& k, const HistogramProblem& problem) {
  // A work-group's 32-bit local counts stay below 2^32 (WG_SIZE anchors x side points), 32-bit global
  // counters below 2^32 per launch (side^2), and the per-group histograms within their budget.
  const auto wg = static_cast<Eigen::Index>(k.work_group_size);
  auto limit = static_cast<Eigen::Index>(kCounterMax / static_cast<std::uint64_t>(wg));
  if (k.global_counter_bits == 32 && !private_histogram(k))
    limit = std::min<Eigen::Index>(limit, static_cast<Eigen::Index>(std::sqrt(static_cast<double>(kCounterMax))));
  if (private_histogram(k))
    limit = std::min<Eigen::Index>(
        limit,
        static_cast<Eigen::Index>(kPartialBudget / (static_cast<std::size_t>(problem.buckets) * sizeof(cl_uint))) * wg);
  return std::max(wg, limit / wg * wg);
}

}  // namespace pairwise
}  // namespace itercl
