// The K-Means assignment step on a device, with the points resident across calls: the building block
// of KMeans, and of any iterative loop of your own that needs nearest centroids (examples/).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/device_rows.hpp"
#include "itercl/matrix.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// The assignment kernel's variant and tuning parameters. Unset fields ("auto", 0: itercl/kernel_choice.hpp)
// take the tuned value for this device (tuning/kmeans.json, itercl/tuning.hpp); KMeansAssignment::kernel()
// reports the values used.
struct KMeansKernel {
  // "naive", "local_centroids", "local_centroids_points", "expanded", "tiled" (cl/kmeans.cl), "gemm"
  // (cl/kmeans_gemm.cl), "mma" (cl/kmeans_mma.cl: the tensor cores of NVIDIA GPUs of compute capability 8.0
  // and later, float only), or "auto": the fastest correct variant measured for the device type
  // (docs/kmeans.md, "Choosing the assignment kernel").
  std::string variant = "auto";
  // Where a fit's centroid update runs: "device" (lloyd_expanded: sums reduced on the device, only
  // K x (D + 1) values cross the bus), "host" (the seed's split: labels up, update on the CPU), or "auto".
  std::string update = "auto";
  int work_group_size = 0;
  int points_per_item = 0;      // points each work-item keeps (local-memory variants and gemm); mma: tiles
                                // of 16 points each warp keeps
  int register_values = 0;      // points_per_item = register_values / D when neither it nor the device's
                                // entry for the variant sets it (not gemm)
  int local_memory_bytes = 0;   // budget for staged centroids; larger K * D is staged in chunks (not gemm)
  int centroids_per_chunk = 0;  // centroids staged at once (0: as many as the budget holds; not gemm)
  int centroids_per_item = 0;   // tiled, gemm: centroids each work-item compares with its points at once
  // With variant "auto": the device's tiled variant for D up to this, expanded for longer vectors (0: tiled
  // at every D), where its measurements found tiled slower.
  int tiled_up_to_dim = 0;
  // With variant "auto": gemm for D from this on (0: never), where its measurements found it faster.
  int gemm_from_dim = 0;
  // With variant "auto": mma for D from this on (0: never) where the device has it, ahead of gemm.
  int mma_from_dim = 0;
  // Times the kernel runs per assignment (same labels): 2 doubles the compute for the seed's overhead
  // model (section 4.2: T = c + o; T' = 2c + o gives c and o). Not a tuning field.
  int launches = 1;

  void validate() const;  // the checks that need no device; throws ParamError("kernel.<field>", ...)
};
void to_json(nlohmann::json& j, const KMeansKernel& k);
void from_json(const nlohmann::json& j, KMeansKernel& k);  // unknown fields are ParamErrors
std::ostream& operator<<(std::ostream& out, const KMeansKernel& k);

// One assignment's per-cluster sums, reduced on the device (KMeansAssignment::assign_and_sum).
struct KMeansSums {
  Matrix sums;                 // K x D: sum of w_i x_i over the points nearest to centroid j
  Vector weights;              // K: sum of w_i over them
  double inertia = 0;          // sum of w_i ||x_i - c(i)||^2, each distance in the device's precision
  std::int64_t n_changed = 0;  // labels that differ from the previous call's (all, after forget_labels)
};

// How the points reach the kernel: in one buffer, uploaded once (chunks 0); in `chunks` buffers of
// `chunk_rows` rows (the last one shorter) when they exceed one allocation or 2^31 values but fit the
// device's memory, uploaded at the first call; or, when they do not fit its memory, streamed: every call
// uploads them again chunk by chunk, `bytes_per_call` bytes, each upload overlapping the kernel on the chunk
// before. The labels (and the device update's weights) stay on the device in every case.
struct KMeansStreaming {
  bool streamed = false;
  int chunks = 0;  // sized at the first call (they depend on K)
  std::int64_t chunk_rows = 0;
  std::uint64_t bytes_per_call = 0;
};
void to_json(nlohmann::json& j, const KMeansStreaming& s);

class KMeansAssignment {
 public:
  // Uploads `points` (samples as rows, float or double, read in place: itercl/rows.hpp) once, converted
  // to `precision`, and builds the kernel. Points above one allocation are uploaded in chunks at the first
  // call, and points that do not fit the device stream through it at every call (streaming()): the
  // assignment then reads `points` in place, so they must stay alive and unchanged while it is used.
  // Throws InputError if the data do not fit the device or the precision, or the tuning is invalid.
  // Points and centroids are centred on `origin` before they are rounded to the device's precision (so
  // that an offset far from zero costs no precision); by default on the points' mean. A caller that
  // splits one data set among several assignments (MPI ranks) gives every part the same origin, so
  // that each point is rounded exactly as a single assignment over all of them would round it.
  KMeansAssignment(const Device& device, const RowsView& points, Precision precision, KMeansKernel kernel = {},
                   const Eigen::RowVectorXd* origin = nullptr);
  // The same from points already on the device (itercl/device_rows.hpp), repacked there: they never
  // travel through the host. Centred on their first row rather than their mean (which would take a
  // pass over them on the host); throws ParamError for a buffer of another context or too small.
  KMeansAssignment(const Device& device, const DeviceRows& points, Precision precision, KMeansKernel kernel = {});
  ~KMeansAssignment();
  KMeansAssignment(KMeansAssignment&&) noexcept;
  KMeansAssignment& operator=(KMeansAssignment&&) noexcept;

  // Each point's nearest centroid (K x D, any K >= 1). Sends the centroids, runs the kernel and reads
  // the labels back into pinned host memory. The span stays valid until the next call. Adds the
  // call's kernel, transfer and wall time to `timings` if given.
  std::span<const std::int32_t> assign(const Matrix& centroids, Timings* timings = nullptr);

  // One Lloyd step's device half, for kernel().update == "device": assigns as assign() does, keeps the
  // labels on the device and sums each cluster's weighted points there. Only the sums come back; the
  // sums are exact sums of the rounded points' values (64-bit fixed point), the same in any order.
  KMeansSums assign_and_sum(const Matrix& centroids, Timings* timings = nullptr);
  void set_sample_weight(std::span<const double> w);                 // for assign_and_sum, uploaded once; empty: all 1
  std::span<const std::int32_t> labels(Timings* timings = nullptr);  // the last call's labels, read back
  // The same into a new vector of the caller's, through the device's staging chunks: no pinned copy of all
  // the labels is made (the end of a fit that kept them on the device).
  std::vector<std::int32_t> copy_labels(Timings* timings = nullptr);
  void forget_labels();  // the next assign_and_sum counts every label as changed

  const KMeansKernel& kernel() const;  // the variant and tuning in use, all values resolved
  const std::string& build_options() const;
  const std::vector<std::string>& tuning_sources() const;  // the database entries the defaults came from
  Timings upload_timings() const;                          // the one-time upload of the points (none if streamed)
  KMeansStreaming streaming() const;                       // resident or streamed
  Eigen::Index n_samples() const;
  Eigen::Index n_features() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace itercl
