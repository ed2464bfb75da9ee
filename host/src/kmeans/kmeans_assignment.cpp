// KMeansAssignment: points resident on the device, centroids down and labels up each call.
#include "itercl/kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "core/device_data.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"
#include "tuning/kernel_fields.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace kmeans {

const char* const kVariants[] = {"naive", "local_centroids", "local_centroids_points", "expanded"};

// Fills in every zero / "auto" field of `k` from the tuning database for this device (tuning/kmeans.json:
// the defaults there cite the measurements behind them), derives the problem-dependent ones, and checks
// them all. `sources` receives the database entries used.
KMeansKernel resolve(KMeansKernel k, const DeviceInfo& info, Eigen::Index dim, Precision precision,
                     std::vector<std::string>& sources) {
  k.validate();
  if (k.variant == "naive" &&
      (k.points_per_item > 1 || k.register_values || k.local_memory_bytes || k.centroids_per_chunk))
    throw ParamError("kernel.variant",
                     "naive takes one point per work-item and stages nothing: leave points_per_item, "
                     "register_values, local_memory_bytes and centroids_per_chunk unset");

  const auto db = tuned_kernel<KMeansKernel>("kmeans", info, sources, [](const KMeansKernel& t) {
    t.validate();
    if (t.variant == "auto" || !t.work_group_size || !t.register_values || !t.local_memory_bytes)
      throw ParamError("kmeans", "needs variant, work_group_size, register_values and local_memory_bytes");
  });
  const bool explicit_wg = k.work_group_size != 0;
  if (k.variant == "auto") k.variant = db.variant;
  if (!k.work_group_size) k.work_group_size = db.work_group_size;
  if (k.variant == "naive") {  // the seed's baseline: one point per work-item, nothing staged
    k.points_per_item = 1;
  } else {
    if (!k.register_values) k.register_values = db.register_values;
    if (!k.local_memory_bytes) k.local_memory_bytes = db.local_memory_bytes;
    // Short vectors: several points per work-item, so each staged centroid is reused from registers;
    // long ones: one, the registers being better spent on the vector itself.
    if (!k.points_per_item)
      k.points_per_item = static_cast<int>(std::clamp<Eigen::Index>(k.register_values / dim, 1, 16));
  }
  if (static_cast<std::size_t>(k.work_group_size) > info.max_work_group_size)
    throw ParamError("kernel.work_group_size", std::to_string(k.work_group_size) + " exceeds the device's maximum of " +
                                                   std::to_string(info.max_work_group_size));

  // A staged centroid: its DIM values, plus |c|^2 for the expanded variant.
  const std::size_t real = real_size(precision);
  const std::size_t centroid_bytes = static_cast<std::size_t>(dim + (k.variant == "expanded")) * real;
  const std::size_t point_bytes = static_cast<std::size_t>(dim) * real;
  const std::size_t local = info.local_memory;
  auto tile_bytes = [&] {
    return k.variant == "local_centroids_points"
               ? static_cast<std::size_t>(k.work_group_size) * k.points_per_item * point_bytes
               : 0;
  };
  // The points' tile must leave room for at least one centroid: shrink a defaulted work-group to fit.
  while (!explicit_wg && k.work_group_size > 1 && tile_bytes() + centroid_bytes > local) k.work_group_size /= 2;
  if (k.variant != "naive") {
    if (tile_bytes() + centroid_bytes > local)
      throw ParamError("kernel.work_group_size",
                       "variant " + k.variant + " needs " + std::to_string(tile_bytes() + centroid_bytes) +
                           " bytes of local memory for " + std::to_string(dim) + " features; the device has " +
                           std::to_string(local) + ". Use a smaller work group or variant local_centroids");
    const std::size_t available = local - tile_bytes();
    // The budget bounds the staged centroids (for occupancy), but always fits at least one.
    const std::size_t budget =
        std::min(std::max<std::size_t>(static_cast<std::size_t>(k.local_memory_bytes), centroid_bytes), available);
    if (budget < centroid_bytes)
      throw ParamError("kernel.local_memory_bytes", std::to_string(budget) + " bytes cannot hold one centroid of " +
                                                        std::to_string(dim) + " features (" +
                                                        std::to_string(centroid_bytes) + " bytes)");
    k.local_memory_bytes = static_cast<int>(budget);
    const int fits = static_cast<int>(budget / centroid_bytes);
    k.centroids_per_chunk = k.centroids_per_chunk ? std::min(k.centroids_per_chunk, fits) : fits;
  } else {
    k.register_values = k.local_memory_bytes = k.centroids_per_chunk = 0;
  }
  return k;
}

std::string options_for(const KMeansKernel& k, Eigen::Index dim, Precision precision) {
  std::ostringstream o;
  o << "-D REAL=" << precision_name(precision) << " -D DIM=" << dim << " -D WG_SIZE=" << k.work_group_size
    << " -D PPI=" << k.points_per_item;
  return o.str();
}

}  // namespace kmeans

void KMeansKernel::validate() const {
  if (variant != "auto" &&
      std::find(std::begin(kmeans::kVariants), std::end(kmeans::kVariants), variant) == std::end(kmeans::kVariants))
    throw ParamError(
        "kernel.variant",
        "expected one of auto, naive, local_centroids, local_centroids_points, expanded; got \"" + variant + "\"");
  auto non_negative = [](const char* field, int value) {
    if (value < 0)
      throw ParamError(std::string("kernel.") + field,
                       "expected a positive integer (or 0 for the default), got " + std::to_string(value));
  };
  non_negative("work_group_size", work_group_size);
  non_negative("register_values", register_values);
  non_negative("local_memory_bytes", local_memory_bytes);
  non_negative("centroids_per_chunk", centroids_per_chunk);
  if (launches < 1 || launches > 64)
    throw ParamError("kernel.launches", "expected an integer from 1 to 64, got " + std::to_string(launches));
  if (points_per_item < 0 || points_per_item > 16)
    throw ParamError("kernel.points_per_item",
                     "expected an integer from 1 to 16 (or 0 for the default), got " + std::to_string(points_per_item));
}

namespace kmeans {

const std::vector<KernelField<KMeansKernel>>& fields() {
  static const std::vector<KernelField<KMeansKernel>> table = {
      {"variant", &KMeansKernel::variant},
      {"work_group_size", &KMeansKernel::work_group_size},
      {"points_per_item", &KMeansKernel::points_per_item},
      {"register_values", &KMeansKernel::register_values},
      {"local_memory_bytes", &KMeansKernel::local_memory_bytes},
      {"centroids_per_chunk", &KMeansKernel::centroids_per_chunk},
      {"launches", &KMeansKernel::launches}};
  return table;
}

}  // namespace kmeans

void to_json(nlohmann::json& j, const KMeansKernel& k) { j = kernel_fields_json(k, kmeans::fields()); }

void from_json(const nlohmann::json& j, KMeansKernel& k) { read_kernel_fields(j, k, kmeans::fields()); }

std::ostream& operator<<(std::ostream& out, const KMeansKernel& k) { return out << nlohmann::json(k).dump(); }

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

KMeansAssignment::KMeansAssignment(const Device& device, const Matrix& points, Precision precision,
                                   KMeansKernel kernel) {
  const Eigen::Index n = points.rows(), dim = points.cols();
  if (n < 1 || dim < 1)
    throw InputError("data: no points (shape " + std::to_string(n) + " x " + std::to_string(dim) + ")");
  device.require(precision);
  const std::size_t bytes = static_cast<std::size_t>(n) * dim * real_size(precision);
  if (static_cast<std::uint64_t>(n) * dim > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw InputError("data: " + std::to_string(n) + " x " + std::to_string(dim) +
                     " values exceed the kernels' 32-bit indexing (2^31 - 1 values)");
  if (bytes > device.info().max_allocation)
    throw InputError("data: " + std::to_string(n) + " x " + std::to_string(dim) + " values in " +
                     std::string(precision_name(precision)) + " need " + std::to_string(bytes) + " bytes; device '" +
                     device.info().name + "' allocates at most " + std::to_string(device.info().max_allocation) +
                     " in one buffer");
  // Squared distances must not overflow the device's precision (a float overflow would tie all
  // centroids at infinity and silently label everything 0).
  const Eigen::RowVectorXd mean = points.colwise().mean();
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
    impl_->kernel_config = kmeans::resolve(std::move(kernel), device.info(), dim, precision, impl_->tuning_sources);
    impl_->options = kmeans::options_for(impl_->kernel_config, dim, precision);
    impl_->kernel = device.kernel("kmeans.cl", impl_->options, ("assign_" + impl_->kernel_config.variant).c_str());
    const auto limit_wg = impl_->kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
    if (static_cast<std::size_t>(impl_->kernel_config.work_group_size) > limit_wg)
      throw ParamError("kernel.work_group_size", std::to_string(impl_->kernel_config.work_group_size) +
                                                     " exceeds what this kernel can launch on the device (" +
                                                     std::to_string(limit_wg) + ")");

    Stopwatch wall;
    // Ordinary memory for the one-time upload: pinning a copy of the whole data set could fail for
    // large data, and would save only milliseconds once.
    std::vector<unsigned char> staging(bytes);
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
  if (k > std::numeric_limits<int>::max() / s.dim) throw ParamError("centroids", "too many centroids");
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
    int arg = 0;
    s.kernel.setArg(arg++, s.points);
    s.kernel.setArg(arg++, static_cast<cl_int>(s.n));
    s.kernel.setArg(arg++, static_cast<cl_int>(s.n));  // ld: the points are packed, one column after another
    s.kernel.setArg(arg++, s.centroids);
    s.kernel.setArg(arg++, static_cast<cl_int>(k));
    if (cfg.variant != "naive") {
      const int chunk = std::min<int>(cfg.centroids_per_chunk, static_cast<int>(k));
      const auto staged = static_cast<std::size_t>(s.dim + (cfg.variant == "expanded"));
      s.kernel.setArg(arg++, cl::Local(static_cast<std::size_t>(chunk) * staged * real_size(s.precision)));
      s.kernel.setArg(arg++, static_cast<cl_int>(chunk));
      if (cfg.variant == "local_centroids_points")
        s.kernel.setArg(arg++, cl::Local(static_cast<std::size_t>(cfg.work_group_size) * cfg.points_per_item * s.dim *
                                         real_size(s.precision)));
    }
    s.kernel.setArg(arg++, s.labels);

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
