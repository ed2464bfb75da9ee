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

// The assignment kernels of cl/kmeans.cl, cl/kmeans_gemm.cl and cl/kmeans_mma.cl (assign_<variant>).
inline constexpr std::array<std::string_view, 8> kVariants = {
    "naive", "local_centroids", "local_centroids_points", "expanded", "tiled", "gemm", "point_blocks", "mma"};

// The variants that compute the expanded distance (they stage |c|^2 beside -2 c).
inline bool expanded_form(const KMeansKernel& k) {
  return k.variant == "expanded" || k.variant == "tiled" || k.variant == "gemm" || k.variant == "point_blocks";
}

// The variants whose search a fused Lloyd kernel repeats (lloyd_expanded, lloyd_gemm, lloyd_mma), so that
// they can run the device update.
inline bool fuses_update(const KMeansKernel& k) {
  return k.variant == "expanded" || k.variant == "tiled" || k.variant == "gemm" || k.variant == "mma";
}

// The kernel file of a resolved variant, and the name of its fused Lloyd kernel.
inline const char* kernel_file(const KMeansKernel& k) {
  return k.variant == "gemm" ? "kmeans_gemm.cl" : k.variant == "mma" ? "kmeans_mma.cl" : "kmeans.cl";
}
inline const char* lloyd_kernel(const KMeansKernel& k) {
  return k.variant == "gemm" ? "lloyd_gemm" : k.variant == "mma" ? "lloyd_mma" : "lloyd_expanded";
}

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
