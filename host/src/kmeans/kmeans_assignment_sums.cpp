// KMeansAssignment's device update: each call assigns the points and adds up, per cluster, the weights
// and weighted coordinates in fixed point (lloyd_expanded or lloyd_gemm), so that only K (D + 1) sums
// cross the bus instead of the labels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_assignment_impl.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl {

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
  const cl::Buffer labs = part(labels, first, rows, sizeof(std::int32_t));
  // Unweighted, the kernel never reads `weights`: any buffer stands in.
  const cl::Buffer w = weights() ? part(weights, first, rows, sizeof(double)) : scale;
  const cl::Buffer& inertia = stream ? chunk_inertia : group_inertia;
  auto args = [&](const auto&... prepared_layout) {  // mma's kernels take it after the common arguments
    set_args(lloyd, pts, r, r, centroids, static_cast<cl_int>(k), cl::Local(chunk_bytes(k)),
             static_cast<cl_int>(chunk(k)), labs, w, scale, sums, cl::Local(local_sums), static_cast<cl_int>(in_local),
             inertia, prepared_layout...);
  };
  prepare() ? args(prepared) : args();
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
    std::vector<cl::Event> kernels;
    s.send_centroids(centroids, write, kernels);
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
        s.chunk_bytes(k) + local_sums + kmeans::lloyd_fixed_local_bytes(cfg) <= s.device.info().local_memory;
    cl::CommandQueue& q = s.device.queue();
    q.enqueueFillBuffer(s.sums, cl_long{0}, 0, values * sizeof(cl_long), nullptr, &fill);
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

}  // namespace itercl
