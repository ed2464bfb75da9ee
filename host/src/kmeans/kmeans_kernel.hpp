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

// The assignment kernels of cl/kmeans.cl and cl/kmeans_gemm.cl (assign_<variant>).
inline constexpr std::array<std::string_view, 7> kVariants = {
    "naive", "local_centroids", "local_centroids_points", "expanded", "tiled", "gemm", "point_blocks"};

// The variants that compute the expanded distance (they stage |c|^2 beside -2 c).
inline bool expanded_form(const KMeansKernel& k) {
  return k.variant == "expanded" || k.variant == "tiled" || k.variant == "gemm" || k.variant == "point_blocks";
}

// The variants whose search a fused Lloyd kernel repeats (lloyd_expanded, lloyd_gemm), so that they can
// run the device update.
inline bool fuses_update(const KMeansKernel& k) {
  return k.variant == "expanded" || k.variant == "tiled" || k.variant == "gemm";
}

// The kernel file of a resolved variant, and the name of its fused Lloyd kernel.
inline const char* kernel_file(const KMeansKernel& k) { return k.variant == "gemm" ? "kmeans_gemm.cl" : "kmeans.cl"; }
inline const char* lloyd_kernel(const KMeansKernel& k) { return k.variant == "gemm" ? "lloyd_gemm" : "lloyd_expanded"; }

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

// The -D options cl/kmeans.cl is built with for a resolved `k`.
std::string defines(const KMeansKernel& k, const Problem& problem);

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

// Points one work-group assigns: work_group_size x points_per_item, or for gemm (WG / 16) x points_per_item.
Eigen::Index points_per_group(const KMeansKernel& k);

// The local memory gemm takes, in values of the precision (cl/kmeans_gemm.cl, GEMM_LOCAL_REALS).
Eigen::Index gemm_local_values(const KMeansKernel& k, Eigen::Index dim);

// Values of the work-group's points staged in local memory: local_centroids_points only.
Eigen::Index staged_point_values(const KMeansKernel& k, Eigen::Index dim);

}  // namespace itercl::kmeans
