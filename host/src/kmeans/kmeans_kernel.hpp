// KMeansKernel's resolution, -D options and JSON field table (internal): the assignment driver builds
// with them, the tuner sweeps the variants listed here.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/kmeans_assignment.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl::kmeans {

// What a device must have to run a variant.
enum class Needs {
  any,
  nvidia_tensor_cores,  // NVIDIA compute capability 8.0 and later, in float (mma: TF32 on the tensor cores)
};

// How a variant's work-items share the points and the centroids. It decides the fields that apply, how
// resolve fills them, the kernel's arguments and local memory, and the tuner's candidates.
enum class Shape {
  one_point,   // one point per work-item, nothing staged (the seed's baseline)
  staged,      // points_per_item points a work-item, the centroids staged in local memory in chunks
  gemm_tiles,  // tiles of points x centroids, kGemmColumns work-items across a tile's centroids (its own shape)
  warp_tiles,  // tiles of 16 points a warp, the centroids in blocks of kMmaBlock in the layout `prepare` makes
};

// One assignment variant: its kernel file (cl/kmeans.cl's banner) and entry point assign_<name>, its
// fused Lloyd kernel (the device update) if it has one, whether it computes the expanded distance (it
// stages |c|^2 beside -2 c), whether centroids_per_item applies (a register tile of centroids), its shape
// and what a device must have. The config check, resolve, the build, the tuner, the tests and the CLI's
// help read this table, so that a variant is one entry here and one kernel.
struct Variant {
  std::string_view name;
  const char* file;
  const char* lloyd = nullptr;  // nullptr: the update runs on the host only
  bool expanded = false;
  bool centroid_tiles = false;
  Shape shape = Shape::staged;
  Needs needs = Needs::any;
  // Points held as vectors across a CPU's registers, up to 64 a work-item (point_blocks): register_values
  // decides their count in whole vectors, and the tuner sweeps its own register budgets.
  bool point_vectors = false;
  // The work-group's points staged in local memory beside the centroids (an argument of the kernel's own).
  bool stages_points = false;
  // The kernel that lays the centroids out before each search (nullptr: none, they are read as sent).
  const char* prepare = nullptr;
  // What auto runs instead where the database's variant is this one but the vectors are longer than
  // tiled_up_to_dim (nullptr: none; tiled's register tiles spill past it).
  const char* beyond_tiled_dim = nullptr;
};
inline constexpr Variant kVariantTable[] = {
    {.name = "naive", .file = "kmeans.cl", .shape = Shape::one_point},
    {.name = "local_centroids", .file = "kmeans.cl"},
    {.name = "local_centroids_points", .file = "kmeans.cl", .stages_points = true},
    {.name = "expanded", .file = "kmeans_expanded.cl", .lloyd = "lloyd_expanded", .expanded = true},
    {.name = "tiled",
     .file = "kmeans_expanded.cl",
     .lloyd = "lloyd_expanded",
     .expanded = true,
     .centroid_tiles = true,
     .beyond_tiled_dim = "expanded"},
    {.name = "gemm",
     .file = "kmeans_gemm.cl",
     .lloyd = "lloyd_gemm",
     .expanded = true,
     .centroid_tiles = true,
     .shape = Shape::gemm_tiles},
    {.name = "point_blocks", .file = "kmeans_point_blocks.cl", .expanded = true, .point_vectors = true},
    {.name = "mma",
     .file = "kmeans_mma.cl",
     .lloyd = "lloyd_mma",
     .shape = Shape::warp_tiles,
     .needs = Needs::nvidia_tensor_cores,
     .prepare = "prepare_mma"},
};

// The table's variant of a shape that only one variant has (gemm_tiles, warp_tiles): the code that shapes
// and checks its tiles is that variant's.
constexpr const Variant& variant_of(Shape shape) {
  for (const Variant& v : kVariantTable)
    if (v.shape == shape) return v;
  throw ParamError("kernel.variant", "no variant of this shape");  // unreachable for the table's shapes
}

// The variants' names, in the table's order (the order the tuner tries them).
inline constexpr auto kVariants = names_of(kVariantTable);

// The table's entry of a resolved (named) variant; throws ParamError("kernel.variant") for another name.
const Variant& variant(std::string_view name);

// Whether a device of `info` can run `v` in `precision` (Needs), and why not where it cannot: empty if it can.
std::string device_lacks(const Variant& v, const DeviceInfo& info, Precision precision);

// The names of the table's variants that `has`, as messages list them ("a, b or c" with `last` "or").
template <class Has>
std::string variants_that(Has has, std::string_view last) {
  std::string out, tail;
  for (const Variant& v : kVariantTable) {
    if (!has(v)) continue;
    if (!tail.empty()) out += (out.empty() ? "" : ", ") + tail;
    tail = v.name;
  }
  return out.empty() ? tail : out + " " + std::string(last) + " " + tail;
}

// The variants that compute the expanded distance (they stage |c|^2 beside -2 c).
inline bool expanded_form(const KMeansKernel& k) { return variant(k.variant).expanded; }

// The variants whose search a fused Lloyd kernel repeats (lloyd_expanded, lloyd_gemm, lloyd_mma), so that
// they can run the device update.
inline bool fuses_update(const KMeansKernel& k) { return variant(k.variant).lloyd != nullptr; }

// The kernel file of a resolved variant, and the name of its fused Lloyd kernel.
inline const char* kernel_file(const KMeansKernel& k) { return variant(k.variant).file; }
inline const char* lloyd_kernel(const KMeansKernel& k) { return variant(k.variant).lloyd; }

// mma's kernels take the centroids' prepared layout (prepare_mma) after the common arguments: floats a
// centroid takes there (cl/kmeans_mma.cl, STRIDE), and the block of centroids one mma.sync compares.
inline Eigen::Index mma_prepared_values(Eigen::Index dim) { return 2 * ((dim + 7) / 8 * 8) + 4; }
inline constexpr int kMmaBlock = 8;

// gemm's work-items across a tile of centroids (cl/kmeans_gemm.cl, COLS).
inline constexpr int kGemmColumns = 16;

// What the kernel's resolution and build depend on: DIM is a build constant (the loops unroll over it),
// and the local memory a centroid takes depends on it and the precision.
struct Problem {
  Eigen::Index dim;
  Precision precision;
  bool int64_atomics = false;  // cl_khr_int64_base_atomics, which the device update needs (with fp64)
};

// Where the update runs (KMeansKernel::update).
inline constexpr std::array<std::string_view, 2> kUpdates = {"host", "device"};

// Fills in every zero / "auto" field of `k` from the tuning database for this device (tuning/kmeans.json:
// the defaults there cite the measurements behind them), derives the problem-dependent ones, and checks
// them all. `sources` receives the database entries used.
KMeansKernel resolve(KMeansKernel k, const DeviceInfo& info, const Problem& problem, std::vector<std::string>& sources);

// The -D options the kernel file is built with for a resolved `k` on this device.
std::string defines(const KMeansKernel& k, const Problem& problem, const DeviceInfo& info);

// The struct's JSON names, both ways (to_json, from_json).
const std::vector<KernelField<KMeansKernel>>& fields();

// Values one tile of centroids_per_item centroids takes when staged in local memory: their DIM values, plus
// their norms and padding for the expanded form.
Eigen::Index staged_tile_values(const KMeansKernel& k, Eigen::Index dim);

// The checks of n x dim points in `precision` that need no values: shape, one buffer's size, 32-bit indexing.
// Points that may stream through the device (kmeans_stream.hpp) need neither one buffer nor 32-bit indexing
// of all their values, only of the points (their labels).
void check_points_shape(const Device& device, Eigen::Index n, Eigen::Index dim, Precision precision,
                        bool may_stream = false);
// The largest |centred value| against the overflow of squared distances in `precision`.
void check_points_range(double largest, Eigen::Index dim, Precision precision);

// Points one work-group assigns: work_group_size x points_per_item, for gemm (WG / 16) x points_per_item,
// for mma (WG / 32) warps x points_per_item tiles of 16.
Eigen::Index points_per_group(const KMeansKernel& k);

// The local memory the fused Lloyd kernel takes besides the staged centroids and its sums: the inertia's
// tree, the count of changed labels and (lloyd_mma) the group's labels.
std::size_t lloyd_fixed_local_bytes(const KMeansKernel& k);

// The local memory gemm takes, in values of the precision (cl/kmeans_gemm.cl, GEMM_LOCAL_REALS).
Eigen::Index gemm_local_values(const KMeansKernel& k, Eigen::Index dim);

// Values of the work-group's points staged in local memory: local_centroids_points only.
Eigen::Index staged_point_values(const KMeansKernel& k, Eigen::Index dim);

}  // namespace itercl::kmeans
