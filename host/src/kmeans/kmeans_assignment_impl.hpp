// KMeansAssignment's state (internal), shared by its two files: kmeans_assignment.cpp (the points, the
// centroids, the labels) and kmeans_assignment_sums.cpp (the device update's per-cluster sums).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/pinned_buffer.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_steps.hpp"
#include "kmeans/kmeans_stream.hpp"

namespace itercl {

struct KMeansAssignment::Impl {
  Impl(Device d, Precision p, Eigen::Index rows, Eigen::Index cols)
      : device(std::move(d)), precision(p), n(rows), dim(cols) {}

  Device device;
  Precision precision;
  Eigen::Index n, dim;
  // The points' mean, subtracted from points and centroids alike before they are rounded to the device's
  // precision: distances do not change, and their rounding error shrinks with the magnitudes.
  Eigen::RowVectorXd shift;
  KMeansKernel kernel_config;
  std::vector<std::string> tuning_sources;
  std::string options;
  cl::Kernel kernel;
  cl::Buffer points, centroids, labels;  // points: empty when they are in chunks
  // mma's layout of the centroids, made from `centroids` on the device each call (prepare_mma).
  cl::Kernel prepare;
  cl::Buffer prepared;
  // Points in chunks of rows (kmeans_stream.hpp), kept on the device or streamed through it every call;
  // the labels (and the weights) stay resident whole, each chunk's kernel working on its sub-buffers.
  std::optional<kmeans::PointStream> stream;
  cl::Buffer chunk_inertia;           // in chunks: a chunk's per-group inertia, copied into group_inertia at its groups
  std::size_t centroid_capacity = 0;  // centroids the buffers hold
  PinnedHostBuffer centroids_host, labels_host;  // labels_host: made by pinned_labels(), at its first use
  Timings upload;

  // The device update (assign_and_sum): lloyd_expanded or lloyd_gemm, built on first use for the weights given.
  std::vector<double> largest;  // per feature, the largest |centred value|: bounds the fixed-point sums
  double total_weight = 0;
  cl::Buffer weights, scale, sums, group_inertia;
  std::vector<double> scale_host;
  cl::Kernel lloyd;
  std::size_t sums_capacity = 0;  // centroids `sums` holds
  PinnedHostBuffer sums_host, inertia_host;

  void build(KMeansKernel k);
  void* pinned_labels();
  // Uploads the centroids (`write`) and enqueues what the kernels need made of them (into `runs`).
  void send_centroids(const Matrix& c, cl::Event& write, std::vector<cl::Event>& runs);
  std::size_t chunk(Eigen::Index k) const;        // centroids staged at once
  std::size_t chunk_bytes(Eigen::Index k) const;  // the local memory of the staged centroids (and gemm's points)
  void prepare_sums(std::span<const double> w);   // weights, scales and the lloyd kernel
  Eigen::Index group_points() const { return kmeans::points_per_group(kernel_config); }
  std::size_t groups(Eigen::Index rows) const {
    return static_cast<std::size_t>((rows + group_points() - 1) / group_points());
  }
  std::size_t groups() const { return groups(n); }
  // launch(first, rows, points, after) for the points in one buffer, or for each chunk (planned for K
  // centroids, with the device update's buffers or not); each enqueues its kernels after `after`.
  void over_points(Eigen::Index k, bool sums, Timings* timings, const kmeans::PointStream::Launch& launch);
  cl::Buffer part(const cl::Buffer& whole, Eigen::Index first, Eigen::Index rows, std::size_t value_bytes) const {
    return stream ? kmeans::rows_of(whole, first, rows, value_bytes) : whole;  // a chunk's labels or weights
  }
  cl::Event enqueue_assign(Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, cl_int k,
                           const std::vector<cl::Event>& after, std::vector<cl::Event>& runs);
  cl::Event enqueue_lloyd(Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, Eigen::Index k, bool in_local,
                          const std::vector<cl::Event>& after, std::vector<cl::Event>& runs);
};

}  // namespace itercl
