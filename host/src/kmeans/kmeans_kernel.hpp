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

// The assignment kernels of cl/kmeans.cl (assign_<variant>).
inline constexpr std::array<std::string_view, 5> kVariants = {"naive", "local_centroids", "local_centroids_points",
                                                              "expanded", "tiled"};

// The variants that compute the expanded distance and can fuse the device update (lloyd_expanded).
inline bool expanded_form(const KMeansKernel& k) { return k.variant == "expanded" || k.variant == "tiled"; }

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

// Values one centroid takes when staged in local memory: its DIM values, plus |c|^2 and padding for the
// expanded form.
Eigen::Index staged_centroid_values(const KMeansKernel& k, Eigen::Index dim);

// The checks of n x dim points in `precision` that need no values: shape, one buffer's size, 32-bit indexing.
// Points that may stream through the device (kmeans_stream.hpp) need neither one buffer nor 32-bit indexing
// of all their values, only of the points (their labels).
void check_points_shape(const Device& device, Eigen::Index n, Eigen::Index dim, Precision precision,
                        bool may_stream = false);
// The largest |centred value| against the overflow of squared distances in `precision`.
void check_points_range(double largest, Eigen::Index dim, Precision precision);

// Values of the work-group's points staged in local memory: local_centroids_points only.
Eigen::Index staged_point_values(const KMeansKernel& k, Eigen::Index dim);

}  // namespace itercl::kmeans
