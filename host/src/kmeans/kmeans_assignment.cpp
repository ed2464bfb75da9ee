// KMeansAssignment: points resident on the device (in chunks of rows when they exceed one allocation, or
// streamed through it chunk by chunk when they exceed its memory), centroids down and labels (or
// per-cluster sums: kmeans_assignment_sums.cpp) up each call.
#include "itercl/kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/centring.hpp"
#include "core/device_data.hpp"
#include "core/device_rows_pack.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "core/phase_clock.hpp"
#include "core/staged_copies.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_assignment_impl.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl {

// The kernel, built for the device and the points' shape, and the labels' buffers: everything but the
// points themselves.
void KMeansAssignment::Impl::build(KMeansKernel k) {
  total_weight = static_cast<double>(n);
  const bool int64_atomics =
      device.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
  const kmeans::Problem problem{dim, precision, int64_atomics};
  kernel_config = kmeans::resolve(std::move(k), device.info(), problem, tuning_sources);
  options = kmeans::defines(kernel_config, problem, device.info());
  kernel = device.kernel(kmeans::kernel_file(kernel_config), options, ("assign_" + kernel_config.variant).c_str());
  if (const char* layout = kmeans::variant(kernel_config.variant).prepare)
    prepare = device.kernel(kmeans::kernel_file(kernel_config), options, layout);
  check_kernel_work_group("kernel.work_group_size", kernel_config.work_group_size,
                          kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
  labels = cl::Buffer(device.context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(n) * sizeof(std::int32_t));
}

// The pinned labels that assign() and labels() read into, made at the first of them: a fit that keeps its
// labels on the device (the device update) copies them out once, through the staging chunks, and never
// pays for pinning n labels.
void* KMeansAssignment::Impl::pinned_labels() {
  if (!labels_host.data()) labels_host = PinnedHostBuffer(device, static_cast<std::size_t>(n) * sizeof(std::int32_t));
  return labels_host.data();
}

KMeansAssignment::KMeansAssignment(const Device& device, const RowsView& points, Precision precision,
                                   KMeansKernel kernel, const Eigen::RowVectorXd* origin) {
  const Eigen::Index n = points.rows(), dim = points.cols();
  kmeans::check_points_shape(device, n, dim, precision, /*may_stream=*/true);
  core::enter_phase("centring");
  Eigen::RowVectorXd mean;
  if (origin) {
    mean = *origin;
  } else {
    const Eigen::RowVectorXd column_mean = points.column_mean();
    mean = core::centring_origin(column_mean, points.largest_per_column(column_mean));
  }
  const Eigen::RowVectorXd largest = points.largest_per_column(mean);
  kmeans::check_points_range(largest.maxCoeff(), dim, precision);
  core::enter_phase("upload");  // the buffers, the pinned labels and the points (the program builds apart)
  try {
    impl_ = std::make_unique<Impl>(device, precision, n, dim);
    impl_->shift = mean;
    impl_->largest.assign(largest.data(), largest.data() + dim);
    impl_->build(std::move(kernel));
    // Labels stay on the device, and the device update's weights (8 bytes a point) when it has them. Points
    // in chunks are uploaded at the first call, or at every call when they stream.
    const std::uint64_t resident_per_point = sizeof(std::int32_t) + (impl_->kernel_config.update == "device" ? 8 : 0);
    if (kmeans::needs_chunks(device.info(), n, dim, precision, resident_per_point)) {
      impl_->stream.emplace(device, points, precision, mean, kmeans::chunk_granule(device, impl_->group_points()));
      forget_labels();
      return;
    }

    const std::size_t bytes = static_cast<std::size_t>(n) * dim * real_size(precision);
    impl_->points = cl::Buffer(device.context(), CL_MEM_READ_ONLY, bytes);
    impl_->upload = core::upload_columns(device, points, precision, impl_->shift, impl_->points);
    forget_labels();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

KMeansAssignment::KMeansAssignment(const Device& device, const DeviceRows& points, Precision precision,
                                   KMeansKernel kernel) {
  kmeans::check_points_shape(device, points.rows, points.cols, precision);
  core::PackedDeviceRows packed = core::pack_device_rows(device, points, precision, "data", &points);
  kmeans::check_points_range(packed.largest, points.cols, precision);
  try {
    impl_ = std::make_unique<Impl>(device, precision, points.rows, points.cols);
    impl_->shift = packed.origin;
    // One bound for every feature (the repacking finds the largest value of all): the device update's
    // fixed-point scales are then a little coarser than per-feature bounds would make them.
    impl_->largest.assign(static_cast<std::size_t>(points.cols), packed.largest);
    impl_->build(std::move(kernel));
    impl_->points = std::move(packed.columns);
    impl_->upload = packed.timings;
    forget_labels();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

KMeansAssignment::~KMeansAssignment() = default;
KMeansAssignment::KMeansAssignment(KMeansAssignment&&) noexcept = default;
KMeansAssignment& KMeansAssignment::operator=(KMeansAssignment&&) noexcept = default;

// Checks the centroids, packs them into pinned memory and enqueues their upload, and for mma their layout.
void KMeansAssignment::Impl::send_centroids(const Matrix& c, cl::Event& write, std::vector<cl::Event>& runs) {
  const Eigen::Index k = c.rows();
  if (k < 1) throw ParamError("centroids", "expected at least one centroid");
  if (c.cols() != dim)
    throw ParamError("centroids", "have " + std::to_string(c.cols()) + " features, the points " + std::to_string(dim));
  check_int_indexing("centroids", static_cast<std::uint64_t>(k) * dim, "values");
  const std::size_t bytes = static_cast<std::size_t>(k) * dim * real_size(precision);
  const Eigen::Index blocks = (k + kmeans::kMmaBlock - 1) / kmeans::kMmaBlock;
  const auto layout_values = static_cast<std::size_t>(blocks * kmeans::kMmaBlock * kmeans::mma_prepared_values(dim));
  if (prepare()) check_int_indexing("centroids", layout_values, "values of mma's layout");
  if (static_cast<std::size_t>(k) > centroid_capacity) {
    centroids = cl::Buffer(device.context(), CL_MEM_READ_ONLY, bytes);
    centroids_host = PinnedHostBuffer(device, bytes);
    if (prepare()) prepared = cl::Buffer(device.context(), CL_MEM_READ_WRITE, layout_values * sizeof(float));
    centroid_capacity = static_cast<std::size_t>(k);
  }
  pack_row_major(c, precision, centroids_host.data(), shift);
  device.queue().enqueueWriteBuffer(centroids, CL_FALSE, 0, bytes, centroids_host.data(), nullptr, &write);
  if (!prepare()) return;
  set_args(prepare, centroids, static_cast<cl_int>(k), prepared);
  constexpr std::size_t kItems = 256;  // one work-item a value of the layout
  runs.emplace_back();
  device.queue().enqueueNDRangeKernel(prepare, cl::NullRange,
                                      cl::NDRange((layout_values + kItems - 1) / kItems * kItems), cl::NDRange(kItems),
                                      nullptr, &runs.back());
}

// At most K, rounded up to whole tiles of centroids_per_item, or mma's blocks (the kernel pads the last one).
std::size_t KMeansAssignment::Impl::chunk(Eigen::Index k) const {
  const Eigen::Index tile = kmeans::variant(kernel_config.variant).shape == kmeans::Shape::warp_tiles
                                ? kmeans::kMmaBlock
                                : kernel_config.centroids_per_item;
  return static_cast<std::size_t>(
      std::min<Eigen::Index>(kernel_config.centroids_per_chunk, (k + tile - 1) / tile * tile));
}

std::size_t KMeansAssignment::Impl::chunk_bytes(Eigen::Index k) const {
  const kmeans::Shape shape = kmeans::variant(kernel_config.variant).shape;
  if (shape == kmeans::Shape::gemm_tiles)
    return static_cast<std::size_t>(kmeans::gemm_local_values(kernel_config, dim)) * real_size(precision);
  if (shape == kmeans::Shape::warp_tiles)
    return chunk(k) * static_cast<std::size_t>(kmeans::mma_prepared_values(dim)) * sizeof(float);
  const auto tiles = chunk(k) / static_cast<std::size_t>(kernel_config.centroids_per_item);
  return tiles * kmeans::staged_tile_values(kernel_config, dim) * real_size(precision);
}

void KMeansAssignment::Impl::over_points(Eigen::Index k, bool sums, Timings* timings,
                                         const kmeans::PointStream::Launch& launch) {
  if (!stream) {
    launch(0, n, points, {});
    return;
  }
  // Beside the chunks the device holds the labels, the centroids and, for the device update, the weights,
  // sums, scales and per-group inertia.
  stream->plan(kmeans::beside_points(device.info(), n, dim, k, precision, sums, sums && weights(), groups()));
  const std::size_t chunk_groups = groups(stream->chunk_rows()) * sizeof(double);
  if (sums && (!chunk_inertia() || chunk_inertia.getInfo<CL_MEM_SIZE>() < chunk_groups))
    chunk_inertia = cl::Buffer(device.context(), CL_MEM_READ_WRITE, chunk_groups);
  stream->pass(launch, timings);
}

// The assignment kernel over points [first, first + rows), held in `pts` (column-major, ld = rows),
// `launches` times.
cl::Event KMeansAssignment::Impl::enqueue_assign(Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, cl_int k,
                                                 const std::vector<cl::Event>& after, std::vector<cl::Event>& runs) {
  const KMeansKernel& cfg = kernel_config;
  const auto r = static_cast<cl_int>(rows);  // also the points' ld: packed, one column after another
  const cl::Buffer labs = part(labels, first, rows, sizeof(std::int32_t));
  const kmeans::Variant& variant = kmeans::variant(cfg.variant);
  if (variant.shape == kmeans::Shape::one_point) {
    set_args(kernel, pts, r, r, centroids, k, labs);
  } else {
    const auto staged = static_cast<cl_int>(chunk(k));
    const cl::LocalSpaceArg staged_centroids = cl::Local(chunk_bytes(k));
    auto args = [&](const auto&... last) {
      set_args(kernel, pts, r, r, centroids, k, staged_centroids, staged, last...);
    };
    if (variant.stages_points)
      args(cl::Local(static_cast<std::size_t>(kmeans::staged_point_values(cfg, dim)) * real_size(precision)), labs);
    else
      prepare() ? args(labs, prepared) : args(labs);  // mma's kernels take the prepared layout last
  }
  for (int l = 0; l < cfg.launches; ++l) {
    runs.emplace_back();
    device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(groups(rows) * cfg.work_group_size),
                                        cl::NDRange(cfg.work_group_size), l == 0 ? &after : nullptr, &runs.back());
  }
  return runs.back();
}

std::span<const std::int32_t> KMeansAssignment::assign(const Matrix& centroids, Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::Event write, read;
    std::vector<cl::Event> runs;
    s.send_centroids(centroids, write, runs);
    const auto k = static_cast<cl_int>(centroids.rows());
    s.over_points(k, false, timings,
                  [&](Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, const auto& after) {
                    return s.enqueue_assign(first, rows, pts, k, after, runs);
                  });
    s.device.queue().enqueueReadBuffer(s.labels, CL_TRUE, 0, static_cast<std::size_t>(s.n) * sizeof(std::int32_t),
                                       s.pinned_labels(), nullptr, &read);
    if (timings) {
      for (const cl::Event& run : runs) timings->kernel_s += event_seconds(run);
      timings->transfer_s += event_seconds(write) + event_seconds(read);
      timings->wall_s += wall.seconds();
    }
    return {static_cast<const std::int32_t*>(s.labels_host.data()), static_cast<std::size_t>(s.n)};
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

std::span<const std::int32_t> KMeansAssignment::labels(Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::Event read;
    s.device.queue().enqueueReadBuffer(s.labels, CL_TRUE, 0, static_cast<std::size_t>(s.n) * sizeof(std::int32_t),
                                       s.pinned_labels(), nullptr, &read);
    if (timings) {
      timings->transfer_s += event_seconds(read);
      timings->wall_s += wall.seconds();
    }
    return {static_cast<const std::int32_t*>(s.labels_host.data()), static_cast<std::size_t>(s.n)};
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

std::vector<std::int32_t> KMeansAssignment::copy_labels(Timings* timings) {
  Impl& s = *impl_;
  try {
    std::vector<std::int32_t> out = host_vector<std::int32_t>(static_cast<std::size_t>(s.n), "the labels");
    const Timings t = core::download(s.device, s.labels, 0, out.size() * sizeof(std::int32_t), out.data());
    if (timings) *timings += t;
    return out;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void KMeansAssignment::forget_labels() {
  try {
    impl_->device.queue().enqueueFillBuffer(impl_->labels, cl_int{-1}, 0,
                                            static_cast<std::size_t>(impl_->n) * sizeof(std::int32_t));
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

const KMeansKernel& KMeansAssignment::kernel() const { return impl_->kernel_config; }
const std::string& KMeansAssignment::build_options() const { return impl_->options; }
const std::vector<std::string>& KMeansAssignment::tuning_sources() const { return impl_->tuning_sources; }
Timings KMeansAssignment::upload_timings() const { return impl_->upload; }
KMeansStreaming KMeansAssignment::streaming() const {
  const auto& stream = impl_->stream;
  if (!stream) return {};
  return {stream->chunks() && stream->streams(), stream->chunks(), stream->chunk_rows(), stream->bytes_per_pass()};
}
Eigen::Index KMeansAssignment::n_samples() const { return impl_->n; }
Eigen::Index KMeansAssignment::n_features() const { return impl_->dim; }

}  // namespace itercl
