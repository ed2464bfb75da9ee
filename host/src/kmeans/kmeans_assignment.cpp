// KMeansAssignment: points resident on the device (in chunks of rows when they exceed one allocation, or
// streamed through it chunk by chunk when they exceed its memory), centroids down and labels (or
// per-cluster sums) up each call.
#include "itercl/kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "core/device_data.hpp"
#include "core/device_rows_pack.hpp"
#include "core/kernel_args.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_steps.hpp"
#include "kmeans/kmeans_stream.hpp"
#include "tuning/kernel_checks.hpp"

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
  // Points in chunks of rows (kmeans_stream.hpp), kept on the device or streamed through it every call;
  // the labels (and the weights) stay resident whole, each chunk's kernel working on its sub-buffers.
  std::optional<kmeans::PointStream> stream;
  cl::Buffer chunk_inertia;           // in chunks: a chunk's per-group inertia, copied into group_inertia at its groups
  std::size_t centroid_capacity = 0;  // centroids the buffers hold
  PinnedHostBuffer centroids_host, labels_host;
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
  void send_centroids(const Matrix& c, cl::Event& write);
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

// The kernel, built for the device and the points' shape, and the labels' buffers: everything but the
// points themselves.
void KMeansAssignment::Impl::build(KMeansKernel k) {
  total_weight = static_cast<double>(n);
  const bool int64_atomics =
      device.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
  const kmeans::Problem problem{dim, precision, int64_atomics};
  kernel_config = kmeans::resolve(std::move(k), device.info(), problem, tuning_sources);
  options = kmeans::defines(kernel_config, problem);
  kernel = device.kernel(kmeans::kernel_file(kernel_config), options, ("assign_" + kernel_config.variant).c_str());
  check_kernel_work_group("kernel.work_group_size", kernel_config.work_group_size,
                          kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
  labels = cl::Buffer(device.context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(n) * sizeof(std::int32_t));
  labels_host = PinnedHostBuffer(device, static_cast<std::size_t>(n) * sizeof(std::int32_t));
}

KMeansAssignment::KMeansAssignment(const Device& device, const RowsView& points, Precision precision,
                                   KMeansKernel kernel, const Eigen::RowVectorXd* origin) {
  const Eigen::Index n = points.rows(), dim = points.cols();
  kmeans::check_points_shape(device, n, dim, precision, /*may_stream=*/true);
  const Eigen::RowVectorXd mean = origin ? *origin : points.column_mean();
  const Eigen::RowVectorXd largest = points.largest_per_column(mean);
  kmeans::check_points_range(largest.maxCoeff(), dim, precision);
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

    Stopwatch wall;
    // Ordinary memory for the one-time upload: pinning a copy of the whole data set could fail for
    // large data, and would save only milliseconds once.
    const std::size_t bytes = static_cast<std::size_t>(n) * dim * real_size(precision);
    std::vector<unsigned char> staging =
        host_array<unsigned char>(bytes, 0,
                                  "the upload's copy of " + std::to_string(n) + " x " + std::to_string(dim) +
                                      " values in " + std::string(precision_name(precision)));
    pack_column_major(points, precision, staging.data(), impl_->shift);
    impl_->points = cl::Buffer(device.context(), CL_MEM_READ_ONLY, bytes);
    cl::Event upload;
    device.queue().enqueueWriteBuffer(impl_->points, CL_TRUE, 0, bytes, staging.data(), nullptr, &upload);
    impl_->upload.transfer_s = event_seconds(upload);
    impl_->upload.wall_s = wall.seconds();
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

// Checks the centroids, packs them into pinned memory and enqueues their upload.
void KMeansAssignment::Impl::send_centroids(const Matrix& c, cl::Event& write) {
  const Eigen::Index k = c.rows();
  if (k < 1) throw ParamError("centroids", "expected at least one centroid");
  if (c.cols() != dim)
    throw ParamError("centroids", "have " + std::to_string(c.cols()) + " features, the points " + std::to_string(dim));
  check_int_indexing("centroids", static_cast<std::uint64_t>(k) * dim, "values");
  const std::size_t bytes = static_cast<std::size_t>(k) * dim * real_size(precision);
  if (static_cast<std::size_t>(k) > centroid_capacity) {
    centroids = cl::Buffer(device.context(), CL_MEM_READ_ONLY, bytes);
    centroids_host = PinnedHostBuffer(device, bytes);
    centroid_capacity = static_cast<std::size_t>(k);
  }
  pack_row_major(c, precision, centroids_host.data(), shift);
  device.queue().enqueueWriteBuffer(centroids, CL_FALSE, 0, bytes, centroids_host.data(), nullptr, &write);
}

// At most K, rounded up to whole tiles of centroids_per_item (the kernel pads the last one).
std::size_t KMeansAssignment::Impl::chunk(Eigen::Index k) const {
  const Eigen::Index tile = kernel_config.centroids_per_item;
  return static_cast<std::size_t>(
      std::min<Eigen::Index>(kernel_config.centroids_per_chunk, (k + tile - 1) / tile * tile));
}

std::size_t KMeansAssignment::Impl::chunk_bytes(Eigen::Index k) const {
  if (kernel_config.variant == "gemm")
    return static_cast<std::size_t>(kmeans::gemm_local_values(kernel_config, dim)) * real_size(precision);
  return chunk(k) * kmeans::staged_centroid_values(kernel_config, dim) * real_size(precision);
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
  if (cfg.variant == "naive") {
    set_args(kernel, pts, r, r, centroids, k, labs);
  } else {
    const auto staged = static_cast<cl_int>(chunk(k));
    const cl::LocalSpaceArg staged_centroids = cl::Local(chunk_bytes(k));
    if (cfg.variant == "local_centroids_points")
      set_args(kernel, pts, r, r, centroids, k, staged_centroids, staged,
               cl::Local(static_cast<std::size_t>(kmeans::staged_point_values(cfg, dim)) * real_size(precision)), labs);
    else
      set_args(kernel, pts, r, r, centroids, k, staged_centroids, staged, labs);
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
    s.send_centroids(centroids, write);
    const auto k = static_cast<cl_int>(centroids.rows());
    std::vector<cl::Event> runs;
    s.over_points(k, false, timings,
                  [&](Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, const auto& after) {
                    return s.enqueue_assign(first, rows, pts, k, after, runs);
                  });
    s.device.queue().enqueueReadBuffer(s.labels, CL_TRUE, 0, static_cast<std::size_t>(s.n) * sizeof(std::int32_t),
                                       s.labels_host.data(), nullptr, &read);
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

// The device update's fixed point: feature d's sums are kept as integers round(w x_d scale[d]) (the
// weights' at scale[dim]), scale a power of two (exact to apply and undo) chosen so that the largest
// possible sum, total weight times the feature's largest |centred value|, stays below 2^61. The
// 2^-61 relative resolution is finer than a double sum's rounding, and integer sums are the same in
// any order.
void KMeansAssignment::Impl::prepare_sums(std::span<const double> w) {
  const bool weighted = !w.empty();
  if (weighted) {
    check_int_indexing("sample_weight", w.size(), "values");
    if (static_cast<Eigen::Index>(w.size()) != n)
      throw ParamError("sample_weight",
                       "has " + std::to_string(w.size()) + " weights for " + std::to_string(n) + " samples");
    total_weight = 0;
    for (double v : w) total_weight += v;
    weights = cl::Buffer(device.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w.size() * sizeof(double),
                         const_cast<double*>(w.data()));
  } else {
    total_weight = static_cast<double>(n);
    weights = cl::Buffer();
  }
  scale_host.resize(static_cast<std::size_t>(dim) + 1);
  for (std::size_t d = 0; d < scale_host.size(); ++d) {
    const double bound = total_weight * (d < largest.size() ? largest[d] : 1.0);
    scale_host[d] = bound > 0 ? std::ldexp(1.0, std::clamp(60 - std::ilogb(bound), -1000, 1000)) : 1.0;
  }
  scale = cl::Buffer(device.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, scale_host.size() * sizeof(double),
                     scale_host.data());
  group_inertia = cl::Buffer(device.context(), CL_MEM_WRITE_ONLY, groups() * sizeof(double));
  inertia_host = PinnedHostBuffer(device, groups() * sizeof(double));
  lloyd =
      device.kernel(kmeans::kernel_file(kernel_config), options + " -D SUMS=1 -D WEIGHTED=" + (weighted ? "1" : "0"),
                    kmeans::lloyd_kernel(kernel_config));
}

void KMeansAssignment::set_sample_weight(std::span<const double> w) {
  if (impl_->kernel_config.update != "device") return;  // only the device update reads them
  try {
    impl_->prepare_sums(w);
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

// lloyd_expanded over points [first, first + rows), held in `pts` (ld = rows). In chunks, integer sums add up
// the same across chunks as across work-groups, and each chunk's per-group inertia goes to its groups'
// place, so that assign_and_sum adds the inertias of one buffer's groups in their order.
cl::Event KMeansAssignment::Impl::enqueue_lloyd(Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts,
                                                Eigen::Index k, bool in_local, const std::vector<cl::Event>& after,
                                                std::vector<cl::Event>& runs) {
  const KMeansKernel& cfg = kernel_config;
  const auto r = static_cast<cl_int>(rows);
  const std::size_t local_sums = in_local ? static_cast<std::size_t>(k * (dim + 1)) * sizeof(cl_long) : sizeof(cl_long);
  // Unweighted, the kernel never reads `weights`: any buffer stands in.
  set_args(lloyd, pts, r, r, centroids, static_cast<cl_int>(k), cl::Local(chunk_bytes(k)),
           static_cast<cl_int>(chunk(k)), part(labels, first, rows, sizeof(std::int32_t)),
           weights() ? part(weights, first, rows, sizeof(double)) : scale, scale, sums, cl::Local(local_sums),
           static_cast<cl_int>(in_local), stream ? chunk_inertia : group_inertia);
  runs.emplace_back();
  device.queue().enqueueNDRangeKernel(lloyd, cl::NullRange, cl::NDRange(groups(rows) * cfg.work_group_size),
                                      cl::NDRange(cfg.work_group_size), &after, &runs.back());
  if (stream)
    device.queue().enqueueCopyBuffer(chunk_inertia, group_inertia, 0, groups(first) * sizeof(double),
                                     groups(rows) * sizeof(double));
  return runs.back();
}

KMeansSums KMeansAssignment::assign_and_sum(const Matrix& centroids, Timings* timings) {
  Impl& s = *impl_;
  const KMeansKernel& cfg = s.kernel_config;
  if (cfg.update != "device")
    throw ParamError("kernel.update",
                     "assign_and_sum needs the device update; this assignment resolved \"" + cfg.update + "\"");
  try {
    if (!s.lloyd()) s.prepare_sums({});
    Stopwatch wall;
    cl::Event write, fill, read_sums, read_inertia;
    s.send_centroids(centroids, write);
    const Eigen::Index k = centroids.rows(), row = s.dim + 1;
    const std::size_t values = static_cast<std::size_t>(k * row) + 1;  // and the changed labels' count
    if (values > s.sums_capacity) {
      s.sums = cl::Buffer(s.device.context(), CL_MEM_READ_WRITE, values * sizeof(cl_long));
      s.sums_host = PinnedHostBuffer(s.device, values * sizeof(cl_long));
      s.sums_capacity = values;
    }
    // The work-group's sums in local memory when they fit beside the staged centroids and the inertia's tree.
    const std::size_t local_sums = static_cast<std::size_t>(k * row) * sizeof(cl_long);
    const bool in_local =
        s.chunk_bytes(k) + local_sums + cfg.work_group_size * sizeof(double) + 64 <= s.device.info().local_memory;
    cl::CommandQueue& q = s.device.queue();
    q.enqueueFillBuffer(s.sums, cl_long{0}, 0, values * sizeof(cl_long), nullptr, &fill);
    std::vector<cl::Event> kernels;
    s.over_points(k, true, timings,
                  [&](Eigen::Index first, Eigen::Index rows, const cl::Buffer& pts, const auto& after) {
                    return s.enqueue_lloyd(first, rows, pts, k, in_local, after, kernels);
                  });
    q.enqueueReadBuffer(s.sums, CL_FALSE, 0, values * sizeof(cl_long), s.sums_host.data(), nullptr, &read_sums);
    q.enqueueReadBuffer(s.group_inertia, CL_TRUE, 0, s.groups() * sizeof(double), s.inertia_host.data(), nullptr,
                        &read_inertia);
    read_sums.wait();

    KMeansSums out;
    out.sums.resize(k, s.dim);
    out.weights.resize(k);
    const auto* v = static_cast<const cl_long*>(s.sums_host.data());
    const auto dim = static_cast<std::size_t>(s.dim);
    for (Eigen::Index j = 0; j < k; ++j) {
      const cl_long* r = v + static_cast<std::size_t>(j * row);
      out.weights[j] = static_cast<double>(r[dim]) / s.scale_host[dim];
      // Back from the centred coordinates: sum w (x - shift) + shift sum w.
      for (std::size_t d = 0; d < dim; ++d)
        out.sums(j, static_cast<Eigen::Index>(d)) =
            static_cast<double>(r[d]) / s.scale_host[d] + s.shift[static_cast<Eigen::Index>(d)] * out.weights[j];
    }
    out.n_changed = v[values - 1];
    const auto* part = static_cast<const double*>(s.inertia_host.data());
    for (std::size_t g = 0; g < s.groups(); ++g) out.inertia += part[g];  // in group order: reproducible
    if (timings) {
      for (const cl::Event& e : kernels) timings->kernel_s += event_seconds(e);
      timings->transfer_s +=
          event_seconds(write) + event_seconds(fill) + event_seconds(read_sums) + event_seconds(read_inertia);
      timings->wall_s += wall.seconds();
    }
    return out;
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
                                       s.labels_host.data(), nullptr, &read);
    if (timings) {
      timings->transfer_s += event_seconds(read);
      timings->wall_s += wall.seconds();
    }
    return {static_cast<const std::int32_t*>(s.labels_host.data()), static_cast<std::size_t>(s.n)};
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
