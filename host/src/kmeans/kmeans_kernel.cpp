// KMeansKernel: the assignment kernel's variant and tuning, checked, converted to and from JSON, and
// resolved from the tuning database (tuning/kmeans.json) and the problem.
#include "kmeans/kmeans_kernel.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>

#include "core/centring.hpp"
#include "itercl/error.hpp"
#include "tuning/kernel_checks.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace kmeans {

// The most points one work-item keeps (PPI): the kernels hold PPI x DIM values and PPI running minima
// in registers and unroll over them, so past this they only spill (point_blocks on a CPU keeps 64 at
// D = 4: 16 vector registers). A bound, not a measurement.
constexpr int kMaxPointsPerItem = 64;

// The points a work-item keeps when register_values decides: at most 16 in the GPU-shaped variants
// (each point's values in registers of its own; the H200's tiled entry measured 16 the best), up to
// kMaxPointsPerItem in point_blocks (a CPU's vector registers hold 16 points each). point_blocks holds
// its points as vectors of the widest width up to 16 that divides their number (cl/kmeans_point_blocks.cl), so its
// count is rounded down to a multiple of 16, or below 16 to a power of two: 51 points (D = 5) would be
// scalar code, 48 are three full vectors.
int default_points_per_item(const KMeansKernel& k, Eigen::Index dim) {
  const bool blocks = variant(k.variant).point_vectors;
  const int points =
      static_cast<int>(std::clamp<Eigen::Index>(k.register_values / dim, 1, blocks ? kMaxPointsPerItem : 16));
  if (!blocks) return points;
  return points >= 16 ? points / 16 * 16 : static_cast<int>(std::bit_floor(static_cast<unsigned>(points)));
}

// The most centroids one work-item compares at once (CPI): tiled keeps PPI x CPI distances in registers.
// A bound, not a measurement.
constexpr int kMaxCentroidsPerItem = 16;

// gemm's shape when a config leaves it unset: 256 work-items of 8 points x 8 centroids each (tiles of 128
// points by 128 centroids, the shape of CLBlast's and CUTLASS's float GEMMs on NVIDIA GPUs).
constexpr int kGemmWorkGroup = 256;
constexpr int kGemmPerItem = 8;

// kernel.launches: the overhead model needs 1 and 2 (section 4.2 of the seed); the bound keeps a typo
// from running one assignment for minutes.
constexpr int kMaxLaunches = 64;

// The expanded form stages tiles of centroids_per_item centroids with their norms, padded to whole vectors
// when DIM is a multiple of 4 (cl/kmeans_expanded.clh, TILE_REALS).
Eigen::Index staged_tile_values(const KMeansKernel& k, Eigen::Index dim) {
  if (!expanded_form(k)) return dim;
  const Eigen::Index values = k.centroids_per_item * (dim + 1);
  return dim % 4 == 0 ? (values + 3) / 4 * 4 : values;
}

Eigen::Index points_per_group(const KMeansKernel& k) {
  const Shape shape = variant(k.variant).shape;
  if (shape == Shape::warp_tiles) return Eigen::Index{k.work_group_size} / 32 * 16 * k.points_per_item;
  const Eigen::Index items = shape == Shape::gemm_tiles ? k.work_group_size / kGemmColumns : k.work_group_size;
  return items * k.points_per_item;
}

std::size_t lloyd_fixed_local_bytes(const KMeansKernel& k) {
  const std::size_t labels = variant(k.variant).shape == Shape::warp_tiles
                                 ? static_cast<std::size_t>(points_per_group(k)) * sizeof(std::int32_t)
                                 : 0;
  return static_cast<std::size_t>(k.work_group_size) * sizeof(double) + labels + 64;
}

// Mirrors GEMM_LOCAL_REALS: the points (DIM x TP), then a tile of centroids (DIM rows of TC + 4, and TC
// norms) or the pooled minima (2 TP x 16), whichever is larger.
Eigen::Index gemm_local_values(const KMeansKernel& k, Eigen::Index dim) {
  const Eigen::Index points = points_per_group(k), centroids = Eigen::Index{kGemmColumns} * k.centroids_per_item;
  return dim * points + std::max(dim * (centroids + 4) + centroids, 2 * points * kGemmColumns);
}

namespace {

std::size_t gemm_bytes(const KMeansKernel& k, const Problem& problem) {
  return static_cast<std::size_t>(gemm_local_values(k, problem.dim)) * real_size(problem.precision);
}

// Empty if gemm can run in this shape, else why not (the field, then the reason).
std::pair<std::string, std::string> gemm_problem(const KMeansKernel& k, const DeviceInfo& info,
                                                 const Problem& problem) {
  if (k.register_values || k.local_memory_bytes || k.centroids_per_chunk)
    return {"kernel.variant",
            "gemm stages tiles of its own shape: leave register_values, local_memory_bytes and "
            "centroids_per_chunk unset"};
  if (k.work_group_size % (8 * kGemmColumns))
    return {"kernel.work_group_size",
            "variant gemm takes a multiple of 128 work-items, got " + std::to_string(k.work_group_size)};
  if (k.points_per_item % 4 || k.centroids_per_item % 4)
    return {"kernel.points_per_item",
            "variant gemm takes points_per_item and centroids_per_item in multiples of 4 (vector loads), got " +
                std::to_string(k.points_per_item) + " and " + std::to_string(k.centroids_per_item)};
  if (gemm_bytes(k, problem) > info.local_memory)
    return {"kernel.points_per_item", "variant gemm needs " + std::to_string(gemm_bytes(k, problem)) +
                                          " bytes of local memory for " + std::to_string(problem.dim) +
                                          " features in tiles of " + std::to_string(points_per_group(k)) +
                                          " points and " + std::to_string(kGemmColumns * k.centroids_per_item) +
                                          " centroids; the device has " + std::to_string(info.local_memory) +
                                          ". Use fewer points_per_item or centroids_per_item, or variant expanded"};
  return {};
}

// gemm's shape with the unset fields defaulted (the tuning database's values are for the other variants),
// and those halved, points first, while the tiles take more local memory than the device has.
KMeansKernel gemm_shape(KMeansKernel k, const DeviceInfo& info, const Problem& problem) {
  const KMeansKernel asked = k;
  k.variant = variant_of(Shape::gemm_tiles).name;  // also for auto's question whether gemm would fit
  if (!k.work_group_size) k.work_group_size = kGemmWorkGroup;
  if (!k.points_per_item) k.points_per_item = kGemmPerItem;
  if (!k.centroids_per_item) k.centroids_per_item = kGemmPerItem;
  while (gemm_bytes(k, problem) > info.local_memory) {
    if (!asked.points_per_item && k.points_per_item > 4)
      k.points_per_item /= 2;
    else if (!asked.centroids_per_item && k.centroids_per_item > 4)
      k.centroids_per_item /= 2;
    else if (!asked.work_group_size && k.work_group_size > 8 * kGemmColumns)
      k.work_group_size /= 2;
    else
      break;  // gemm_problem says why
  }
  return k;
}

// mma's shape when a config leaves it unset: 256 work-items, each warp keeping its points' fragments in at
// most 64 registers a lane (8 x tiles x DIM / 8 of them: 2 tiles of 16 points at D = 32), and 44 KiB of
// staged centroids (160 at D = 32). At D = 32 on the H200 that shape was the prototype's fastest (1.078 ms,
// against 1.116 with 4 tiles and 1.198 with 3: benchmarks/results/nvidia-h200/kmeans-mma-probe/, call 3).
// In the library (kmeans-mma/, calls 1 and 2) 1 tile took 1.47 ms and 128 work-items 1.21; 4 tiles took
// 1.14 against 1.16 for the assignment but 1.51 against 1.49 for the fused Lloyd kernel, which a fit runs.
constexpr int kMmaWorkGroup = 256;
constexpr int kMmaFragmentRegisters = 64;
constexpr int kMmaLocalBytes = 45056;
// The most registers a lane may give its fragments when a config asks for more tiles: a bound, not a
// measurement (4 tiles at D = 32 take 128 and ran, above). It also bounds D: one tile at D = 128 takes 128.
constexpr int kMmaMaxFragmentRegisters = 128;

// Registers a lane gives one tile's fragments: hi and lo, 4 values a k-step of 8 features, over 32 lanes.
int mma_tile_registers(Eigen::Index dim) { return static_cast<int>(8 * ((dim + 7) / 8)); }

std::size_t mma_chunk_bytes(const KMeansKernel& k, Eigen::Index dim) {
  return static_cast<std::size_t>(k.centroids_per_chunk * mma_prepared_values(dim)) * sizeof(float);
}

// mma's shape with the unset fields defaulted, its chunk of centroids sized to the budget and to what the
// fused Lloyd kernel leaves of the device's local memory, in whole blocks of 8.
KMeansKernel mma_shape(KMeansKernel k, const DeviceInfo& info, const Problem& problem) {
  k.variant = variant_of(Shape::warp_tiles).name;  // also for auto's question whether mma would run
  if (!k.work_group_size) k.work_group_size = kMmaWorkGroup;
  if (!k.points_per_item) k.points_per_item = std::max(1, kMmaFragmentRegisters / mma_tile_registers(problem.dim));
  const std::size_t fixed = lloyd_fixed_local_bytes(k);
  const std::size_t room = info.local_memory > fixed ? info.local_memory - fixed : 0;
  const std::size_t budget = std::min<std::size_t>(k.local_memory_bytes ? k.local_memory_bytes : kMmaLocalBytes, room);
  const auto fits =
      static_cast<int>(budget / (mma_prepared_values(problem.dim) * sizeof(float))) / kMmaBlock * kMmaBlock;
  k.centroids_per_chunk = k.centroids_per_chunk ? std::min(k.centroids_per_chunk, fits) : fits;
  k.local_memory_bytes = static_cast<int>(mma_chunk_bytes(k, problem.dim));
  return k;
}

// Empty if mma can run in this shape on this device, else why not (the field, then the reason).
std::pair<std::string, std::string> mma_problem(const KMeansKernel& k, const DeviceInfo& info, const Problem& problem) {
  if (std::string lacks = device_lacks(variant(k.variant), info, problem.precision); !lacks.empty())
    return {"kernel.variant", std::move(lacks)};
  if (k.register_values || k.centroids_per_item > 1)
    return {"kernel.variant",
            "mma keeps tiles of 16 points a warp: leave register_values and centroids_per_item "
            "unset (points_per_item counts the tiles)"};
  if (k.work_group_size % 32)
    return {"kernel.work_group_size",
            "variant mma takes whole warps, a multiple of 32 work-items, got " + std::to_string(k.work_group_size)};
  const int registers = k.points_per_item * mma_tile_registers(problem.dim);
  if (registers > kMmaMaxFragmentRegisters)
    return {"kernel.points_per_item",
            "variant mma keeps " + std::to_string(k.points_per_item) + " tile(s) of 16 points of " +
                std::to_string(problem.dim) + " features in " + std::to_string(registers) +
                " registers a work-item, past the " + std::to_string(kMmaMaxFragmentRegisters) +
                " it may take; use fewer points_per_item, or for D over 128 variant gemm or expanded"};
  const std::string block = "variant mma stages whole blocks of 8 centroids (" +
                            std::to_string(mma_prepared_values(problem.dim) * sizeof(float) * kMmaBlock) +
                            " bytes at D = " + std::to_string(problem.dim) + ")";
  if (k.centroids_per_chunk % kMmaBlock)  // asked for, not whole blocks
    return {"kernel.centroids_per_chunk", block + ", got " + std::to_string(k.centroids_per_chunk)};
  if (k.centroids_per_chunk < kMmaBlock)  // the budget, or what the fused kernel leaves, holds no block
    return {"kernel.local_memory_bytes", block + "; the local memory given leaves room for none"};
  return {};
}

}  // namespace

Eigen::Index staged_point_values(const KMeansKernel& k, Eigen::Index dim) {
  return variant(k.variant).stages_points ? Eigen::Index{k.work_group_size} * k.points_per_item * dim : 0;
}

KMeansKernel resolve(KMeansKernel k, const DeviceInfo& info, const Problem& problem,
                     std::vector<std::string>& sources) {
  const Eigen::Index dim = problem.dim;
  k.validate();
  if (!unset(k.variant) && variant(k.variant).shape == Shape::one_point &&
      (k.points_per_item > 1 || k.register_values || k.local_memory_bytes || k.centroids_per_chunk))
    throw ParamError("kernel.variant", k.variant +
                                           " takes one point per work-item and stages nothing: leave points_per_item, "
                                           "register_values, local_memory_bytes and centroids_per_chunk unset");

  const auto db = tuned_kernel<KMeansKernel>("kmeans", info, sources, [](const KMeansKernel& t) {
    t.validate();
    check_entry(t, fields(), "kmeans",
                {"variant", "update", "work_group_size", "register_values", "local_memory_bytes"});
  });
  const bool explicit_wg = k.work_group_size != 0;
  if (k.variant == "auto") {
    if (!k.tiled_up_to_dim) k.tiled_up_to_dim = db.tiled_up_to_dim;
    if (!k.gemm_from_dim) k.gemm_from_dim = db.gemm_from_dim;
    if (!k.mma_from_dim) k.mma_from_dim = db.mma_from_dim;
    const bool too_long = k.tiled_up_to_dim > 0 && dim > k.tiled_up_to_dim;
    // mma from its threshold on, where the device and the precision have it, ahead of gemm.
    const bool mma = k.mma_from_dim > 0 && dim >= k.mma_from_dim &&
                     mma_problem(mma_shape(k, info, problem), info, problem).first.empty();
    // gemm from its threshold on, where its tiles fit (a config's tuning of the other variants keeps them).
    const bool gemm = k.gemm_from_dim > 0 && dim >= k.gemm_from_dim &&
                      gemm_problem(gemm_shape(k, info, problem), info, problem).first.empty();
    const char* beyond = variant(db.variant).beyond_tiled_dim;
    k.variant = mma                  ? variant_of(Shape::warp_tiles).name
                : gemm               ? variant_of(Shape::gemm_tiles).name
                : beyond && too_long ? beyond
                                     : db.variant;
    // The device update asked for: the table's first variant that fuses it and runs on any device (a CPU's
    // point_blocks does not fuse it).
    if (k.update == "device" && !fuses_update(k))
      for (const Variant& v : kVariantTable)
        if (v.lloyd && v.needs == Needs::any) {
          k.variant = v.name;
          break;
        }
  }
  const Shape shape = variant(k.variant).shape;
  if (shape == Shape::warp_tiles) {
    // Shaped and checked first, so that a device without tensor cores or a double run hears that before
    // anything else.
    k = mma_shape(std::move(k), info, problem);
    if (const auto [field, why] = mma_problem(k, info, problem); !field.empty()) throw ParamError(field, why);
  }
  if (!variant(k.variant).centroid_tiles && k.centroids_per_item > 1)
    throw ParamError("kernel.centroids_per_item",
                     "applies to variants " + variants_that([](const Variant& v) { return v.centroid_tiles; }, "and") +
                         " only (variant " + k.variant + " compares one centroid at a time)");
  // The device update is the variant's fused Lloyd kernel: its assignment fused with 64-bit atomic sums in
  // double.
  const bool device_update = fuses_update(k) && info.fp64 && problem.int64_atomics;
  if (k.update == "device" && !device_update)
    throw ParamError("kernel.update",
                     "\"device\" needs variant " +
                         variants_that([](const Variant& v) { return v.lloyd != nullptr; }, "or") +
                         " and a device with cl_khr_fp64 and cl_khr_int64_base_atomics; use \"host\" or \"auto\"");
  if (k.update == "auto") k.update = device_update ? db.update : "host";
  if (shape == Shape::warp_tiles) {
    check_device_work_group("kernel.work_group_size", k.work_group_size, info);
    k.centroids_per_item = 1;
    return k;
  }
  if (shape == Shape::gemm_tiles) {
    k = gemm_shape(std::move(k), info, problem);
    const auto [field, why] = gemm_problem(k, info, problem);
    if (!field.empty()) throw ParamError(field, why);
    check_device_work_group("kernel.work_group_size", k.work_group_size, info);
    k.local_memory_bytes = static_cast<int>(gemm_bytes(k, problem));
    k.centroids_per_chunk = kGemmColumns * k.centroids_per_item;  // one tile at a time
    return k;
  }
  if (!k.work_group_size) k.work_group_size = db.work_group_size;
  if (shape == Shape::one_point) {  // the seed's baseline: one point per work-item, nothing staged
    k.points_per_item = 1;
  } else {
    const bool values_asked = k.register_values != 0;
    if (!k.register_values) k.register_values = db.register_values;
    if (!k.local_memory_bytes) k.local_memory_bytes = db.local_memory_bytes;
    // Short vectors: several points per work-item, so each staged centroid is reused from registers;
    // long ones: one, the registers being better spent on the vector itself. The database's points_per_item
    // is its variant's, measured where that variant runs (tiled up to tiled_up_to_dim); the variants auto
    // takes elsewhere, and a config's register_values, derive the count from register_values.
    if (!k.points_per_item)
      k.points_per_item = !values_asked && k.variant == db.variant && db.points_per_item
                              ? db.points_per_item
                              : default_points_per_item(k, dim);
  }
  if (!variant(k.variant).centroid_tiles) {
    k.centroids_per_item = 1;
  } else if (!k.centroids_per_item) {
    k.centroids_per_item = db.centroids_per_item;
    if (!k.centroids_per_item)
      throw ParamError("kmeans",
                       "the tuning database names no centroids_per_item for variant " + k.variant + " on this device");
  }
  check_device_work_group("kernel.work_group_size", k.work_group_size, info);

  const std::size_t real = real_size(problem.precision);
  const std::size_t tile_of_centroids = static_cast<std::size_t>(staged_tile_values(k, dim)) * real;
  const std::size_t local = info.local_memory;
  auto points_bytes = [&] { return static_cast<std::size_t>(staged_point_values(k, dim)) * real; };
  // The points' tile must leave room for one tile of centroids: shrink a defaulted work-group to fit.
  while (!explicit_wg && k.work_group_size > 1 && points_bytes() + tile_of_centroids > local) k.work_group_size /= 2;
  if (shape != Shape::one_point) {
    if (points_bytes() + tile_of_centroids > local)
      throw ParamError("kernel.work_group_size",
                       "variant " + k.variant + " needs " + std::to_string(points_bytes() + tile_of_centroids) +
                           " bytes of local memory for " + std::to_string(dim) + " features; the device has " +
                           std::to_string(local) + ". Use a smaller work group or variant local_centroids");
    const std::size_t available = local - points_bytes();
    // The budget bounds the staged centroids (for occupancy), but always fits one tile.
    const std::size_t budget =
        std::min(std::max<std::size_t>(static_cast<std::size_t>(k.local_memory_bytes), tile_of_centroids), available);
    if (budget < tile_of_centroids)
      throw ParamError("kernel.local_memory_bytes", std::to_string(budget) + " bytes cannot hold " +
                                                        std::to_string(k.centroids_per_item) + " centroid(s) of " +
                                                        std::to_string(dim) + " features (" +
                                                        std::to_string(tile_of_centroids) + " bytes)");
    if (k.centroids_per_chunk % k.centroids_per_item)
      throw ParamError("kernel.centroids_per_chunk", std::to_string(k.centroids_per_chunk) +
                                                         " is not a multiple of centroids_per_item (" +
                                                         std::to_string(k.centroids_per_item) + ")");
    k.local_memory_bytes = static_cast<int>(budget);
    const int fits = static_cast<int>(budget / tile_of_centroids) * k.centroids_per_item;
    k.centroids_per_chunk = k.centroids_per_chunk ? std::min(k.centroids_per_chunk, fits) : fits;
  } else {
    k.register_values = k.local_memory_bytes = k.centroids_per_chunk = 0;
    k.centroids_per_item = 1;
  }
  return k;
}

// Loops over features unroll fully up to this D (kmeans_params.clh, UNROLL_DIM_UP_TO), 8 times above. On a
// GPU a work-item's points stay in registers only where every index into them is a constant: unrolled 8
// times, expanded read them from stack memory (ptxas: a 512-byte stack frame at D = 64), and on the H200
// the assignment took 61.0 ms at D = 64 in float against 4.26 unrolled fully, 28.9 against 1.78 at D = 33,
// 252.6 against 58.7 at D = 128 in double (benchmarks/results/nvidia-h200/kmeans-mma/, call 5). Past 128 a
// point no longer fits the registers anyway. On a CPU the stack is ordinary cached memory and full unrolls
// only grow the code: PoCL on 2 cores took 138-141 ms at D = 128 in double with the loops unrolled 8 times
// against 170-177 fully, D = 33 to 64 within noise
// (benchmarks/results/pocl-xeon-2-cores/kmeans-unroll-d33-128.txt); so CPUs keep 32.
constexpr int kGpuUnrollDimUpTo = 128;
constexpr int kCpuUnrollDimUpTo = 32;

std::string defines(const KMeansKernel& k, const Problem& problem, const DeviceInfo& info) {
  return Defines(problem.precision)
      .add("DIM", problem.dim)
      .add("UNROLL_DIM_UP_TO", info.type == "gpu" ? kGpuUnrollDimUpTo : kCpuUnrollDimUpTo)
      .add("WG_SIZE", k.work_group_size)
      .add("PPI", k.points_per_item)
      .add("CPI", k.centroids_per_item)
      .str();
}

const std::vector<KernelField<KMeansKernel>>& fields() {
  static const std::vector<KernelField<KMeansKernel>> table = {
      {"variant", &KMeansKernel::variant},
      {"work_group_size", &KMeansKernel::work_group_size},
      {"points_per_item", &KMeansKernel::points_per_item},
      {"register_values", &KMeansKernel::register_values},
      {"local_memory_bytes", &KMeansKernel::local_memory_bytes},
      {"centroids_per_chunk", &KMeansKernel::centroids_per_chunk},
      {"centroids_per_item", &KMeansKernel::centroids_per_item},
      {"tiled_up_to_dim", &KMeansKernel::tiled_up_to_dim},
      {"gemm_from_dim", &KMeansKernel::gemm_from_dim},
      {"mma_from_dim", &KMeansKernel::mma_from_dim},
      {"launches", &KMeansKernel::launches},
      {"update", &KMeansKernel::update}};
  return table;
}

// The checks of n x dim points in `precision` that need no values: shape, one buffer's size, indexing.
void check_points_shape(const Device& device, Eigen::Index n, Eigen::Index dim, Precision precision, bool may_stream) {
  if (n < 1 || dim < 1)
    throw InputError("data: no points (shape " + std::to_string(n) + " x " + std::to_string(dim) + ")");
  device.require(precision);
  // Streamed, the points are indexed within their chunk; the labels (and weights) stay whole.
  if (may_stream) return check_int_indexing("data", static_cast<std::uint64_t>(n), "points");
  const std::size_t bytes = static_cast<std::size_t>(n) * dim * real_size(precision);
  check_int_indexing("data", static_cast<std::uint64_t>(n) * dim, "values");
  if (bytes > device.info().max_allocation)
    throw InputError("data: " + std::to_string(n) + " x " + std::to_string(dim) + " values in " +
                     std::string(precision_name(precision)) + " need " + std::to_string(bytes) + " bytes; device '" +
                     device.info().name + "' allocates at most " + std::to_string(device.info().max_allocation) +
                     " in one buffer");
}

// Squared distances must not overflow the device's precision (a float overflow would tie all
// centroids at infinity and silently label everything 0): a centred point's difference from a centroid
// inside the data is at most twice the largest centred value, and D of them are summed squared.
void check_points_range(double largest, Eigen::Index dim, Precision precision) {
  const double limit =
      std::sqrt((precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max()) /
                static_cast<double>(dim)) /
      2;
  core::check_resolved(largest, precision, "data", "the largest |value - centre|");
  if (largest >= limit)
    throw InputError("data: values up to " + std::to_string(largest) + " overflow squared distances in " +
                     std::string(precision_name(precision)) + "; rescale the data or use precision double");
}

const Variant& variant(std::string_view name) {
  for (const Variant& v : kVariantTable)
    if (v.name == name) return v;
  throw ParamError("kernel.variant",
                   "expected one of " + choice_list(kVariants) + "; got \"" + std::string(name) + "\"");
}

std::string device_lacks(const Variant& v, const DeviceInfo& info, Precision precision) {
  if (v.needs != Needs::nvidia_tensor_cores) return {};
  if (info.nvidia_compute_capability < 80)
    return std::string(v.name) +
           " runs on the tensor cores of NVIDIA GPUs of compute capability 8.0 and later (through inline PTX); "
           "device '" +
           info.name + "' has none. Use variant auto";
  if (precision != Precision::f32)
    return std::string(v.name) +
           " computes in pairs of TF32 values, which carry float's precision, not double's; use precision float or "
           "another variant";
  return {};
}

}  // namespace kmeans

void KMeansKernel::validate() const {
  check_choice("kernel.variant", variant, kmeans::kVariants);
  check_choice("kernel.update", update, kmeans::kUpdates);
  // Fields without an upper bound of their own: the device's limits check them in resolve.
  auto non_negative = [](const char* field, int value) {
    if (value < 0)
      throw ParamError(std::string("kernel.") + field,
                       "expected a positive integer (or 0 for the default), got " + std::to_string(value));
  };
  non_negative("work_group_size", work_group_size);
  non_negative("register_values", register_values);
  non_negative("local_memory_bytes", local_memory_bytes);
  non_negative("centroids_per_chunk", centroids_per_chunk);
  non_negative("tiled_up_to_dim", tiled_up_to_dim);
  non_negative("gemm_from_dim", gemm_from_dim);
  non_negative("mma_from_dim", mma_from_dim);
  if (launches < 1 || launches > kmeans::kMaxLaunches)
    throw ParamError("kernel.launches", "expected an integer from 1 to " + std::to_string(kmeans::kMaxLaunches) +
                                            ", got " + std::to_string(launches));
  check_tuning_value("kernel.points_per_item", points_per_item, kmeans::kMaxPointsPerItem);
  check_tuning_value("kernel.centroids_per_item", centroids_per_item, kmeans::kMaxCentroidsPerItem);
}

void to_json(nlohmann::json& j, const KMeansKernel& k) { j = kernel_fields_json(k, kmeans::fields()); }

void from_json(const nlohmann::json& j, KMeansKernel& k) { read_kernel_fields(j, k, kmeans::fields()); }

std::ostream& operator<<(std::ostream& out, const KMeansKernel& k) { return out << nlohmann::json(k).dump(); }

}  // namespace itercl
