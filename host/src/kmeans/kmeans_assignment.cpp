// KMeansAssignment: points resident on the device, centroids down and labels up each call.
#include "itercl/kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/device_data.hpp"
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
};

KMeansAssignment::KMeansAssignment(const Device& device, const Matrix& points, Precision precision, KMeansKernel kernel,
                                   const Eigen::RowVectorXd* origin) {
  const Eigen::Index n = points.rows(), dim = points.cols();
  if (n < 1 || dim < 1)
    throw InputError("data: no points (shape " + std::to_string(n) + " x " + std::to_string(dim) + ")");
  device.require(precision);
  const std::size_t bytes = static_cast<std::size_t>(n) * dim * real_size(precision);
  check_int_indexing("data", static_cast<std::uint64_t>(n) * dim, "values");
  if (bytes > device.info().max_allocation)
    throw InputError("data: " + std::to_string(n) + " x " + std::to_string(dim) + " values in " +
                     std::string(precision_name(precision)) + " need " + std::to_string(bytes) + " bytes; device '" +
                     device.info().name + "' allocates at most " + std::to_string(device.info().max_allocation) +
                     " in one buffer");
  // Squared distances must not overflow the device's precision (a float overflow would tie all
  // centroids at infinity and silently label everything 0): a centred point's difference from a centroid
  // inside the data is at most twice the largest centred value, and D of them are summed squared.
  const Eigen::RowVectorXd mean = origin ? *origin : Eigen::RowVectorXd(points.colwise().mean());
  const double largest = (points.rowwise() - mean).cwiseAbs().maxCoeff();
  const double limit =
      std::sqrt((precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max()) /
                static_cast<double>(dim)) /
      2;
  if (largest >= limit)
    throw InputError("data: values up to " + std::to_string(largest) + " overflow squared distances in " +
                     std::string(precision_name(precision)) + "; rescale the data or use precision double");

  try {
    impl_ = std::make_unique<Impl>(device, precision, n, dim);
    impl_->shift = mean;
    const kmeans::Problem problem{dim, precision};
    impl_->kernel_config = kmeans::resolve(std::move(kernel), device.info(), problem, impl_->tuning_sources);
    impl_->options = kmeans::defines(impl_->kernel_config, problem);
    impl_->kernel = device.kernel("kmeans.cl", impl_->options, ("assign_" + impl_->kernel_config.variant).c_str());
    check_kernel_work_group("kernel.work_group_size", impl_->kernel_config.work_group_size,
                            impl_->kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));

    Stopwatch wall;
    // Ordinary memory for the one-time upload: pinning a copy of the whole data set could fail for
    // large data, and would save only milliseconds once.
    std::vector<unsigned char> staging =
        host_array<unsigned char>(bytes, 0,
                                  "the upload's copy of " + std::to_string(n) + " x " + std::to_string(dim) +
                                      " values in " + std::string(precision_name(precision)));
    pack_column_major(points, precision, staging.data(), impl_->shift);
    impl_->points = cl::Buffer(device.context(), CL_MEM_READ_ONLY, bytes);
    cl::Event upload;
    device.queue().enqueueWriteBuffer(impl_->points, CL_TRUE, 0, bytes, staging.data(), nullptr, &upload);
    impl_->labels = cl::Buffer(device.context(), CL_MEM_WRITE_ONLY, static_cast<std::size_t>(n) * sizeof(std::int32_t));
    impl_->labels_host = PinnedHostBuffer(device, static_cast<std::size_t>(n) * sizeof(std::int32_t));
    impl_->upload.transfer_s = event_seconds(upload);
    impl_->upload.wall_s = wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

KMeansAssignment::~KMeansAssignment() = default;
KMeansAssignment::KMeansAssignment(KMeansAssignment&&) noexcept = default;
KMeansAssignment& KMeansAssignment::operator=(KMeansAssignment&&) noexcept = default;

std::span<const std::int32_t> KMeansAssignment::assign(const Matrix& centroids, Timings* timings) {
  Impl& s = *impl_;
  const Eigen::Index k = centroids.rows();
  if (k < 1) throw ParamError("centroids", "expected at least one centroid");
  if (centroids.cols() != s.dim)
    throw ParamError("centroids",
                     "have " + std::to_string(centroids.cols()) + " features, the points " + std::to_string(s.dim));
  check_int_indexing("centroids", static_cast<std::uint64_t>(k) * s.dim, "values");
  try {
    Stopwatch wall;
    const std::size_t bytes = static_cast<std::size_t>(k) * s.dim * real_size(s.precision);
    if (static_cast<std::size_t>(k) > s.centroid_capacity) {
      s.centroids = cl::Buffer(s.device.context(), CL_MEM_READ_ONLY, bytes);
      s.centroids_host = PinnedHostBuffer(s.device, bytes);
      s.centroid_capacity = static_cast<std::size_t>(k);
    }
    pack_row_major(centroids, s.precision, s.centroids_host.data(), s.shift);

    const KMeansKernel& cfg = s.kernel_config;
    const auto n = static_cast<cl_int>(s.n);  // also the points' ld: packed, one column after another
    if (cfg.variant == "naive") {
      set_args(s.kernel, s.points, n, n, s.centroids, static_cast<cl_int>(k), s.labels);
    } else {
      const int chunk = std::min<int>(cfg.centroids_per_chunk, static_cast<int>(k));
      const cl::LocalSpaceArg staged_centroids = cl::Local(
          static_cast<std::size_t>(chunk) * kmeans::staged_centroid_values(cfg, s.dim) * real_size(s.precision));
      if (cfg.variant == "local_centroids_points")
        set_args(s.kernel, s.points, n, n, s.centroids, static_cast<cl_int>(k), staged_centroids,
                 static_cast<cl_int>(chunk),
                 cl::Local(static_cast<std::size_t>(kmeans::staged_point_values(cfg, s.dim)) * real_size(s.precision)),
                 s.labels);
      else
        set_args(s.kernel, s.points, n, n, s.centroids, static_cast<cl_int>(k), staged_centroids,
                 static_cast<cl_int>(chunk), s.labels);
    }

    const std::size_t per_group = static_cast<std::size_t>(cfg.work_group_size) * cfg.points_per_item;
    const std::size_t groups = (static_cast<std::size_t>(s.n) + per_group - 1) / per_group;
    cl::CommandQueue& q = s.device.queue();
    cl::Event write, read;
    std::vector<cl::Event> runs(static_cast<std::size_t>(cfg.launches));
    q.enqueueWriteBuffer(s.centroids, CL_FALSE, 0, bytes, s.centroids_host.data(), nullptr, &write);
    for (cl::Event& run : runs)
      q.enqueueNDRangeKernel(s.kernel, cl::NullRange, cl::NDRange(groups * cfg.work_group_size),
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

const KMeansKernel& KMeansAssignment::kernel() const { return impl_->kernel_config; }
const std::string& KMeansAssignment::build_options() const { return impl_->options; }
const std::vector<std::string>& KMeansAssignment::tuning_sources() const { return impl_->tuning_sources; }
Timings KMeansAssignment::upload_timings() const { return impl_->upload; }
Eigen::Index KMeansAssignment::n_samples() const { return impl_->n; }
Eigen::Index KMeansAssignment::n_features() const { return impl_->dim; }

}  // namespace itercl
