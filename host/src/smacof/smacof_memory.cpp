// What SMACOF's buffers take on a device, one or each of several MPI ranks' (smacof_memory.hpp), and the
// checks that refuse, before anything is uploaded, what does not fit, saying what would.
#include "smacof/smacof_memory.hpp"

#include <algorithm>

#include "itercl/error.hpp"
#include "smacof/smacof_parts.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl::smacof {

// Values delta (or the weights) occupy on the device.
std::uint64_t pair_values(std::uint64_t n, bool packed) { return packed ? n * (n / 2) : n * n; }

struct Need {
  std::uint64_t total = 0, largest = 0;  // bytes in all, and in the largest buffer
};

// The symmetric pass's window sums (partial_ring) for `slices` slices of `columns` columns in all, with
// work-groups of `ring_group` (0: no symmetric pass): each group's ring_span rows a slice.
std::uint64_t ring_bytes(int ring_group, std::uint64_t slices, std::uint64_t columns, std::uint64_t n,
                         std::uint64_t dim, std::uint64_t real) {
  if (ring_group <= 0 || slices == 0) return 0;
  const auto g = static_cast<std::uint64_t>(ring_group);
  return slices * ((n + g - 1) / g) * ring_span(ring_group, (columns + slices - 1) / slices) * dim * real;
}

// The work-groups of a resolved kernel's symmetric pass, 0 where it has none.
int ring_group(const SmacofKernel& k) { return k.symmetric == YesNo::yes ? k.work_group_size : 0; }

// The fused variants cut delta (and the weights) into buffers of whole slices (smacof_parts.hpp), which
// resolve keeps within one allocation: their largest buffer need only hold one column. The seed variants
// read delta whole from one buffer.
Need need_for(Precision p, bool packed, bool fused, int slices, int ring, const Problem& s, std::uint64_t n) {
  const std::uint64_t real = real_size(p), pairs = pair_values(n, packed) * real;
  const std::uint64_t rows = n * static_cast<std::uint64_t>(s.dim) * real;
  Need need;
  need.largest = fused ? n * real : pairs;
  need.total = pairs + (2 + static_cast<std::uint64_t>(std::max(slices, 1))) * rows +
               ring_bytes(packed ? ring : 0, static_cast<std::uint64_t>(std::max(slices, 1)), n / 2, n,
                          static_cast<std::uint64_t>(s.dim), real);
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
std::uint64_t largest_n(const DeviceInfo& info, Precision p, bool packed, bool fused, int slices, int ring,
                        const Problem& s) {
  std::uint64_t lo = 0, hi = 1;
  while (fits(info, need_for(p, packed, fused, slices, ring, s, hi))) hi *= 2;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fits(info, need_for(p, packed, fused, slices, ring, s, mid)) ? lo : hi) = mid;
  }
  return lo;
}

bool storage_fits(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem) {
  const bool packed = k.packed == YesNo::yes, fused = is_fused(k.variant);
  if (problem.ranks <= 1)
    return fits(info, need_for(problem.precision, packed, fused, k.slices, ring_group(k), problem, problem.n));
  const auto n = static_cast<std::uint64_t>(problem.n), ranks = static_cast<std::uint64_t>(problem.ranks);
  if (least_slices(packed ? n / 2 : n, n, real_size(problem.precision), info.max_allocation) == 0) return false;
  return (packed ? packed_rank_bytes(k, problem) : block_bytes(k, problem, (n + ranks - 1) / ranks)) <=
         info.global_memory;
}

std::uint64_t block_bytes(const SmacofKernel& k, const Problem& problem, std::uint64_t rows) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t real = real_size(problem.precision), dim = static_cast<std::uint64_t>(problem.dim);
  return rows * n * real + (n + rows * (1 + static_cast<std::uint64_t>(std::max(k.slices, 1)))) * dim * real +
         n * static_cast<std::uint64_t>(problem.features) * real;
}

std::uint64_t packed_rank_bytes(const SmacofKernel& k, const Problem& problem) {
  const auto n = static_cast<std::uint64_t>(problem.n), columns = n / 2;
  const std::uint64_t real = real_size(problem.precision), dim = static_cast<std::uint64_t>(problem.dim);
  const auto slices = static_cast<std::uint64_t>(std::max(k.slices, 1));
  const auto ranks = static_cast<std::uint64_t>(std::max(problem.ranks, 1));
  // rank_slices gives the ranks floor or ceil of slices / ranks, whole slices of ceil(columns / slices).
  const std::uint64_t most = (slices + ranks - 1) / ranks;
  const std::uint64_t held = std::min(columns, most * ((columns + slices - 1) / slices));
  return held * n * real + (2 + most) * n * dim * real + n * static_cast<std::uint64_t>(problem.features) * real +
         ring_bytes(ring_group(k), most, held, n, dim, real);
}

std::uint64_t packed_ranks_that_fit(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem) {
  const auto n = static_cast<std::uint64_t>(problem.n), columns = n / 2;
  const std::uint64_t least = least_slices(columns, n, real_size(problem.precision), info.max_allocation);
  if (least == 0) return 0;
  SmacofKernel shape = k;  // as resolved, or as given (a work-group of 0: the device's, any size will do)
  shape.work_group_size = std::max(k.work_group_size, 1);
  const Eigen::Index row_groups = fused_row_groups(problem.n, shape);
  for (std::uint64_t ranks = 1; ranks <= std::max<std::uint64_t>(columns, 1); ++ranks) {
    Problem over = problem;
    over.ranks = static_cast<int>(ranks);
    SmacofKernel share = k;
    share.slices = auto_slices_over(info.compute_units, k.groups_per_unit, row_groups,
                                    static_cast<Eigen::Index>(columns), least, over.ranks);
    if (packed_rank_bytes(share, over) <= info.global_memory) return ranks;
  }
  return 0;
}

std::uint64_t ranks_that_fit(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t fixed = block_bytes(k, problem, 0), per_row = block_bytes(k, problem, 1) - fixed;
  if (info.global_memory < fixed + per_row) return 0;
  // Balanced blocks hold at most ceil(N / P) rows, which is at most `rows` for P = ceil(N / rows).
  const std::uint64_t rows = std::min((info.global_memory - fixed) / per_row, std::max<std::uint64_t>(n, 1));
  return (n + rows - 1) / rows;
}

// "<lead>P ranks (R rows each) with full storage, or Q with packed storage (...)": the ranks each storage
// needs, the storages that fit at all; empty when neither does.
std::string over_ranks_advice(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem,
                              const std::string& lead) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t full = ranks_that_fit(info, k, problem), packed = packed_ranks_that_fit(info, k, problem);
  if (!full && !packed) return "";
  std::string advice = lead;
  if (full)
    advice +=
        std::to_string(full) + " ranks (" + std::to_string((n + full - 1) / full) + " rows each) with full storage";
  if (full && packed) advice += ", or ";
  if (packed)
    advice += std::to_string(packed) + (full ? "" : " ranks") +
              " with packed storage (params.kernel.packed true or \"auto\", delta built from vectors, slices left to "
              "the rule)";
  return advice;
}

void check_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& s) {
  const auto n = static_cast<std::uint64_t>(s.n);
  const Precision p = s.precision;
  const bool packed = k.packed == YesNo::yes, fused = is_fused(k.variant);
  const int ring = ring_group(k);
  const Need need = need_for(p, packed, fused, k.slices, ring, s, n);
  if (fits(info, need)) return;
  std::string message =
      "N = " + std::to_string(n) + " points need " + gib(need.total) + " on the device (" +
      std::string(precision_name(p)) + ", " + (packed ? "packed" : "full") + " storage" +
      (s.weighted ? ", weights and V+" : "") + "), the largest buffer " + gib(need.largest) +
      (fused ? " (delta is cut into buffers of whole slices)" : "") + "; device '" + info.name + "' has " +
      gib(info.global_memory) + " and allocates at most " + gib(info.max_allocation) +
      " in one buffer. At most N = " + std::to_string(largest_n(info, p, packed, fused, k.slices, ring, s)) +
      " fits like this";
  if (!fused && need.total <= info.global_memory) message += ", more with variant fused (several buffers)";
  if (!packed)
    message += ", N = " + std::to_string(largest_n(info, p, true, fused, k.slices, ring, s)) +
               " with packed storage (params.kernel.packed = true)";
  if (p == Precision::f64)
    message += ", N = " + std::to_string(largest_n(info, Precision::f32, packed, fused, k.slices, ring, s)) +
               " in precision float";
  if (!s.weighted)
    message += over_ranks_advice(info, k, s, "; over MPI ranks, one device each like this one, it needs at least ");
  throw InputError("data: " + message);
}

void check_rank_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem, int rank,
                       std::uint64_t rows) {
  const auto n = static_cast<std::uint64_t>(problem.n);
  const std::uint64_t real = real_size(problem.precision);
  const bool packed = k.packed == YesNo::yes;
  const std::uint64_t columns = packed ? n / 2 : n, fitting = least_slices(columns, n, real, info.max_allocation);
  const std::uint64_t total = packed ? packed_rank_bytes(k, problem) : block_bytes(k, problem, rows);
  if (total <= info.global_memory && fitting > 0) return;
  std::string share;
  if (packed) {
    const auto slices = static_cast<std::uint64_t>(std::max(k.slices, 1));
    const auto ranks = static_cast<std::uint64_t>(problem.ranks);
    const std::uint64_t most = (slices + ranks - 1) / ranks;
    share = "the largest rank's " + std::to_string(most) + " of the " + std::to_string(slices) +
            " slices of packed delta (" + std::to_string(std::min(columns, most * ((columns + slices - 1) / slices))) +
            " of its " + std::to_string(columns) + " columns of " + std::to_string(n) + " values)";
  } else {
    share = "rank " + std::to_string(rank) + "'s block of " + std::to_string(rows) + " x " + std::to_string(n) +
            " dissimilarities";
  }
  throw InputError(
      "data: " + share + " needs " + gib(total) + " on the device; device '" + info.name + "' has " +
      gib(info.global_memory) + " and allocates at most " + gib(info.max_allocation) + " in one buffer" +
      (fitting ? over_ranks_advice(info, k, problem, ". Run on at least ")
               : std::string(". Not even one ") + (packed ? "column" : "row") + " of delta fits a device like this"));
}

}  // namespace itercl::smacof
