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

// One assignment variant: its kernel file (cl/kmeans.cl's banner) and entry point assign_<name>, its
// fused Lloyd kernel (the device update) if it has one, whether it computes the expanded distance (it
// stages |c|^2 beside -2 c), whether centroids_per_item applies (a register tile of centroids), and what
// a device must have. The config check, resolve, the build, the tuner, the tests and the CLI's help read
// this table, so that a variant is one entry here and one kernel.
struct Variant {
  std::string_view name;
  const char* file;
  const char* lloyd;  // nullptr: the update runs on the host only
  bool expanded;
  bool centroid_tiles;
  Needs needs = Needs::any;
  // Points held as vectors across a CPU's registers, up to 64 a work-item (point_blocks): register_values
  // decides their count in whole vectors, and the tuner sweeps its own register budgets.
  bool point_vectors = false;
  // What auto runs instead where the database's variant is this one but the vectors are longer than
  // tiled_up_to_dim (nullptr: none; tiled's register tiles spill past it).
  const char* beyond_tiled_dim = nullptr;
};
inline constexpr Variant kVariantTable[] = {
    {"naive", "kmeans.cl", nullptr, false, false},
    {"local_centroids", "kmeans.cl", nullptr, false, false},
    {"local_centroids_points", "kmeans.cl", nullptr, false, false},
    {"expanded", "kmeans_expanded.cl", "lloyd_expanded", true, false},
    {"tiled", "kmeans_expanded.cl", "lloyd_expanded", true, true, Needs::any, false, "expanded"},
    {"gemm", "kmeans_gemm.cl", "lloyd_gemm", true, true},
    {"point_blocks", "kmeans_point_blocks.cl", nullptr, true, false, Needs::any, true},
    {"mma", "kmeans_mma.cl", "lloyd_mma", false, false, Needs::nvidia_tensor_cores},
};

// The variants' names, in the table's order (the order the tuner tries them).
inline constexpr auto kVariants = names_of(kVariantTable);

// The table's entry of a resolved (named) variant; throws ParamError("kernel.variant") for another name.
const Variant& variant(std::string_view name);

// Whether a device of `info` can run `v` in `precision` (Needs), and why not where it cannot: empty if it can.
std::string device_lacks(const Variant& v, const DeviceInfo& info, Precision precision);

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
