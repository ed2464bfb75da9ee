// KMeansAssignment: points resident on the device, centroids down and labels (or per-cluster sums) up
// each call.
#include "itercl/kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/device_data.hpp"
#include "core/device_rows_pack.hpp"
#include "core/kernel_args.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_steps.hpp"
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
  cl::Buffer points, centroids, labels;
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
  std::size_t groups() const {
    const auto per_group = static_cast<std::size_t>(kmeans::points_per_group(kernel_config));
    return (static_cast<std::size_t>(n) + per_group - 1) / per_group;
  }
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
  kmeans::check_points_shape(device, n, dim, precision);
  const Eigen::RowVectorXd mean = origin ? *origin : points.column_mean();
  kmeans::check_points_range(points.largest_from(mean), dim, precision);
  try {
    impl_ = std::make_unique<Impl>(device, precision, n, dim);
    impl_->shift = mean;
    const Eigen::RowVectorXd largest = points.visit([&](const auto& r) -> Eigen::RowVectorXd {
      return (r.template cast<double>().rowwise() - mean).cwiseAbs().colwise().maxCoeff();
    });
    impl_->largest.assign(largest.data(), largest.data() + dim);
    impl_->build(std::move(kernel));

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

std::span<const std::int32_t> KMeansAssignment::assign(const Matrix& centroids, Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::Event write, read;
    s.send_centroids(centroids, write);
    const auto k = static_cast<cl_int>(centroids.rows());

    const KMeansKernel& cfg = s.kernel_config;
    const auto n = static_cast<cl_int>(s.n);  // also the points' ld: packed, one column after another
    if (cfg.variant == "naive") {
      set_args(s.kernel, s.points, n, n, s.centroids, k, s.labels);
    } else {
      const auto chunk = static_cast<cl_int>(s.chunk(k));
      const cl::LocalSpaceArg staged_centroids = cl::Local(s.chunk_bytes(k));
      if (cfg.variant == "local_centroids_points")
        set_args(s.kernel, s.points, n, n, s.centroids, k, staged_centroids, chunk,
                 cl::Local(static_cast<std::size_t>(kmeans::staged_point_values(cfg, s.dim)) * real_size(s.precision)),
                 s.labels);
      else
        set_args(s.kernel, s.points, n, n, s.centroids, k, staged_centroids, chunk, s.labels);
    }

    cl::CommandQueue& q = s.device.queue();
    std::vector<cl::Event> runs(static_cast<std::size_t>(cfg.launches));
    for (cl::Event& run : runs)
      q.enqueueNDRangeKernel(s.kernel, cl::NullRange, cl::NDRange(s.groups() * cfg.work_group_size),
                             cl::NDRange(cfg.work_group_size), nullptr, &run);
    q.enqueueReadBuffer(s.labels, CL_TRUE, 0, static_cast<std::size_t>(s.n) * sizeof(std::int32_t),
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

KMeansSums KMeansAssignment::assign_and_sum(const Matrix& centroids, Timings* timings) {
  Impl& s = *impl_;
  const KMeansKernel& cfg = s.kernel_config;
  if (cfg.update != "device")
    throw ParamError("kernel.update",
                     "assign_and_sum needs the device update; this assignment resolved \"" + cfg.update + "\"");
  try {
    if (!s.lloyd()) s.prepare_sums({});
    Stopwatch wall;
    cl::Event write, fill, kernel, read_sums, read_inertia;
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
    const auto n = static_cast<cl_int>(s.n);
    // Unweighted, the kernel never reads `weights`: any buffer stands in.
    set_args(s.lloyd, s.points, n, n, s.centroids, static_cast<cl_int>(k), cl::Local(s.chunk_bytes(k)),
             static_cast<cl_int>(s.chunk(k)), s.labels, s.weights() ? s.weights : s.scale, s.scale, s.sums,
             cl::Local(in_local ? local_sums : sizeof(cl_long)), static_cast<cl_int>(in_local), s.group_inertia);
    cl::CommandQueue& q = s.device.queue();
    q.enqueueFillBuffer(s.sums, cl_long{0}, 0, values * sizeof(cl_long), nullptr, &fill);
    q.enqueueNDRangeKernel(s.lloyd, cl::NullRange, cl::NDRange(s.groups() * cfg.work_group_size),
                           cl::NDRange(cfg.work_group_size), nullptr, &kernel);
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
      timings->kernel_s += event_seconds(kernel);
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
Eigen::Index KMeansAssignment::n_samples() const { return impl_->n; }
Eigen::Index KMeansAssignment::n_features() const { return impl_->dim; }

}  // namespace itercl
