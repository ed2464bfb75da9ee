// SmacofDevice: cl/smacof.cl's kernels over resident dissimilarities, one Guttman transform and one
// stress per iterate().
#include "smacof/smacof_device.hpp"

#include <limits>
#include <sstream>
#include <vector>

#include "core/device_data.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace {

std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// delta's storage (cl/smacof.cl's banner): full N x N, or each pair (i, i + k mod N) at (k - 1) N + i.
template <class T>
void pack_pairs(const Matrix& m, bool packed, T* out) {
  const Eigen::Index n = m.rows();
  if (!packed) {
    for (Eigen::Index k = 0; k < m.size(); ++k) out[k] = static_cast<T>(m.data()[k]);
    return;
  }
  for (Eigen::Index k = 1; k <= n / 2; ++k)
    for (Eigen::Index i = 0; i < n; ++i) out[(k - 1) * n + i] = static_cast<T>(m(i, (i + k) % n));
}

}  // namespace

struct SmacofDevice::Impl {
  Impl(Device d, Precision p, SmacofKernel kernel, SmacofShape s)
      : device(std::move(d)), precision(p), k(std::move(kernel)), shape(s) {}

  Device device;
  Precision precision;
  SmacofKernel k;
  SmacofShape shape;
  std::vector<std::string> tuning_sources;
  std::string options;
  cl::Kernel bccalc, stress, fused, finish, pinv_kernel;
  cl::Buffer delta, weights, pinv, bx, partial_bx, partial_stress;
  cl::Buffer x[2];
  int current = 0;  // the buffer holding the latest iterate's embedding
  std::size_t rows_global = 0, stress_pairs = 0;
  PinnedHostBuffer x_host, stress_host;
  Timings upload;

  std::size_t real() const { return real_size(precision); }
  bool is_fused() const { return k.variant == "fused" || k.variant == "fused_rows"; }
  std::size_t pair_values() const {
    const auto n = static_cast<std::size_t>(shape.n);
    return k.packed ? n * (n / 2) : n * n;
  }
  cl::NDRange local() const { return cl::NDRange(static_cast<std::size_t>(k.work_group_size)); }

  // scale B(X) X by 1/N (unweighted) or apply V+ to it (weighted), into x[dst].
  void transform_tail(const cl::Buffer& bx_or_x, int dst, std::vector<cl::Event>& events);
  void fused_pass(int src, int dst, std::vector<cl::Event>& events);
  StressSums read_stress(std::vector<cl::Event>& events, Timings* timings, const Stopwatch& wall);
};

SmacofDevice::SmacofDevice(const Device& device, Precision precision, const SmacofKernel& kernel,
                           const SmacofShape& shape) {
  device.require(precision);
  const DeviceInfo& info = device.info();
  std::vector<std::string> sources;
  SmacofKernel k = resolve_smacof_kernel(kernel, info, shape.n, sources);
  check_smacof_memory(info, precision, k, shape);
  const auto n = static_cast<std::size_t>(shape.n), dim = static_cast<std::size_t>(shape.dim);
  if (shape.n > std::numeric_limits<int>::max() / std::max<Eigen::Index>(shape.features, shape.dim))
    throw InputError("data: " + std::to_string(shape.n) + " points exceed the kernels' 32-bit indexing");
  try {
    impl_ = std::make_unique<Impl>(device, precision, k, shape);
    Impl& s = *impl_;
    s.tuning_sources = std::move(sources);
    std::ostringstream o;
    o << "-D REAL=" << precision_name(precision) << " -D DIM=" << shape.dim << " -D WG_SIZE=" << k.work_group_size
      << " -D PACKED=" << int(k.packed) << " -D WEIGHTED=" << int(shape.weighted);
    s.options = o.str();
    const std::size_t row_groups = round_up(n, k.work_group_size) / k.work_group_size;
    s.rows_global = row_groups * k.work_group_size;
    if (s.is_fused()) {
      s.fused = device.kernel("smacof.cl", s.options, k.variant.c_str());
      s.finish = device.kernel("smacof.cl", s.options, "fused_finish");
      s.stress_pairs = row_groups * static_cast<std::size_t>(k.slices);
      s.partial_bx =
          cl::Buffer(device.context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(k.slices) * n * dim * s.real());
    } else {
      s.bccalc = device.kernel("smacof.cl", s.options, ("bccalc_" + k.variant).c_str());
      s.stress = device.kernel("smacof.cl", s.options, ("stress_" + k.variant).c_str());
      s.stress_pairs = row_groups;
    }
    for (const cl::Kernel* kern : {&s.fused, &s.finish, &s.bccalc, &s.stress}) {
      if (!(*kern)()) continue;
      const auto limit = kern->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
      if (static_cast<std::size_t>(k.work_group_size) > limit)
        throw ParamError("kernel.work_group_size", std::to_string(k.work_group_size) +
                                                       " exceeds what this kernel can launch on the device (" +
                                                       std::to_string(limit) + ")");
    }
    if (shape.weighted) {
      s.pinv_kernel = device.kernel("smacof.cl", s.options, "apply_pinv");
      s.bx = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    }
    s.delta = cl::Buffer(device.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(s.pair_values(), 1) * s.real());
    for (auto& b : s.x) b = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    s.partial_stress = cl::Buffer(device.context(), CL_MEM_WRITE_ONLY, 2 * s.stress_pairs * s.real());
    s.x_host = PinnedHostBuffer(device, n * dim * s.real());
    s.stress_host = PinnedHostBuffer(device, 2 * s.stress_pairs * s.real());
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

SmacofDevice::~SmacofDevice() = default;
SmacofDevice::SmacofDevice(SmacofDevice&&) noexcept = default;

void SmacofDevice::upload_dissimilarities(const Matrix& delta) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    // Ordinary memory for the one-time upload: pinning N^2 values could fail, and would save little once.
    std::vector<unsigned char> staging(s.pair_values() * s.real());
    with_real(s.precision,
              [&](auto zero) { pack_pairs(delta, s.k.packed, reinterpret_cast<decltype(zero)*>(staging.data())); });
    cl::Event e;
    if (!staging.empty())
      s.device.queue().enqueueWriteBuffer(s.delta, CL_TRUE, 0, staging.size(), staging.data(), nullptr, &e);
    s.upload.transfer_s += staging.empty() ? 0 : event_seconds(e);
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void SmacofDevice::build_dissimilarities(const Matrix& vectors, Metric metric) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    const std::size_t bytes = static_cast<std::size_t>(vectors.size()) * s.real();
    std::vector<unsigned char> staging(bytes);
    // Centred before rounding to the device's precision: distances do not change, rounding shrinks.
    pack_column_major(vectors, s.precision, staging.data(), vectors.colwise().mean());
    cl::Buffer v(s.device.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(bytes, 1));
    cl::Kernel build = s.device.kernel("smacof.cl", s.options, "build_delta");
    cl::Event write, run;
    cl::CommandQueue& q = s.device.queue();
    q.enqueueWriteBuffer(v, CL_FALSE, 0, bytes, staging.data(), nullptr, &write);
    build.setArg(0, v);
    build.setArg(1, static_cast<cl_int>(s.shape.n));
    build.setArg(2, static_cast<cl_int>(vectors.cols()));
    build.setArg(3, static_cast<cl_int>(metric == Metric::euclidean ? 0 : metric == Metric::sqeuclidean ? 1 : 2));
    build.setArg(4, s.delta);
    const auto columns = static_cast<std::size_t>(s.k.packed ? s.shape.n / 2 : s.shape.n);
    if (columns > 0)
      q.enqueueNDRangeKernel(build, cl::NullRange, cl::NDRange(s.rows_global, columns),
                             cl::NDRange(static_cast<std::size_t>(s.k.work_group_size), 1), nullptr, &run);
    q.finish();
    s.upload.transfer_s += event_seconds(write);
    s.upload.kernel_s += columns > 0 ? event_seconds(run) : 0;
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix SmacofDevice::read_dissimilarities() const {
  const Impl& s = *impl_;
  const Eigen::Index n = s.shape.n;
  Matrix d = Matrix::Zero(n, n);
  try {
    std::vector<unsigned char> staging(s.pair_values() * s.real());
    if (!staging.empty()) s.device.queue().enqueueReadBuffer(s.delta, CL_TRUE, 0, staging.size(), staging.data());
    with_real(s.precision, [&](auto zero) {
      const auto* v = reinterpret_cast<const decltype(zero)*>(staging.data());
      if (!s.k.packed) {
        for (Eigen::Index k = 0; k < d.size(); ++k) d.data()[k] = v[k];
        return;
      }
      for (Eigen::Index k = 1; k <= n / 2; ++k)
        for (Eigen::Index i = 0; i < n; ++i) d(i, (i + k) % n) = d((i + k) % n, i) = v[(k - 1) * n + i];
    });
  } catch (...) {
    rethrow_as_itercl_error();
  }
  return d;
}

void SmacofDevice::upload_weights(const Matrix& weights, const Matrix& pinv) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::CommandQueue& q = s.device.queue();
    std::vector<unsigned char> w(s.pair_values() * s.real()), p(static_cast<std::size_t>(pinv.size()) * s.real());
    with_real(s.precision, [&](auto zero) {
      using T = decltype(zero);
      pack_pairs(weights, s.k.packed, reinterpret_cast<T*>(w.data()));
      pack_pairs(pinv, false, reinterpret_cast<T*>(p.data()));
    });
    s.weights = cl::Buffer(s.device.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(w.size(), 1));
    s.pinv = cl::Buffer(s.device.context(), CL_MEM_READ_ONLY, p.size());
    cl::Event ew, ep;
    if (!w.empty()) q.enqueueWriteBuffer(s.weights, CL_FALSE, 0, w.size(), w.data(), nullptr, &ew);
    q.enqueueWriteBuffer(s.pinv, CL_TRUE, 0, p.size(), p.data(), nullptr, &ep);
    q.finish();
    s.upload.transfer_s += (w.empty() ? 0 : event_seconds(ew)) + event_seconds(ep);
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void SmacofDevice::Impl::transform_tail(const cl::Buffer& source, int dst, std::vector<cl::Event>& events) {
  if (!shape.weighted) return;
  cl::Event e;
  pinv_kernel.setArg(0, pinv);
  pinv_kernel.setArg(1, source);
  pinv_kernel.setArg(2, static_cast<cl_int>(shape.n));
  pinv_kernel.setArg(3, x[dst]);
  device.queue().enqueueNDRangeKernel(pinv_kernel, cl::NullRange, cl::NDRange(rows_global), local(), nullptr, &e);
  events.push_back(e);
}

void SmacofDevice::Impl::fused_pass(int src, int dst, std::vector<cl::Event>& events) {
  cl::CommandQueue& q = device.queue();
  const std::size_t columns = static_cast<std::size_t>(k.packed ? shape.n / 2 : shape.n);
  const auto per_slice = static_cast<cl_int>((columns + k.slices - 1) / k.slices);
  fused.setArg(0, delta);
  fused.setArg(1, weights() ? weights : delta);
  fused.setArg(2, x[src]);
  fused.setArg(3, static_cast<cl_int>(shape.n));
  fused.setArg(4, per_slice);
  fused.setArg(5, partial_bx);
  fused.setArg(6, partial_stress);
  cl::Event run, tail;
  q.enqueueNDRangeKernel(fused, cl::NullRange, cl::NDRange(rows_global, static_cast<std::size_t>(k.slices)),
                         cl::NDRange(static_cast<std::size_t>(k.work_group_size), 1), nullptr, &run);
  events.push_back(run);
  const std::size_t values = static_cast<std::size_t>(shape.n) * shape.dim;
  finish.setArg(0, partial_bx);
  finish.setArg(1, static_cast<cl_int>(k.slices));
  finish.setArg(2, static_cast<cl_int>(shape.n));
  with_real(precision, [&](auto zero) {
    finish.setArg(3, static_cast<decltype(zero)>(shape.weighted ? 1.0 : 1.0 / static_cast<double>(shape.n)));
  });
  finish.setArg(4, shape.weighted ? bx : x[dst]);
  q.enqueueNDRangeKernel(finish, cl::NullRange, cl::NDRange(round_up(values, k.work_group_size)), local(), nullptr,
                         &tail);
  events.push_back(tail);
  transform_tail(bx, dst, events);
}

StressSums SmacofDevice::Impl::read_stress(std::vector<cl::Event>& events, Timings* timings, const Stopwatch& wall) {
  cl::Event read;
  device.queue().enqueueReadBuffer(partial_stress, CL_TRUE, 0, 2 * stress_pairs * real(), stress_host.data(), nullptr,
                                   &read);
  StressSums sums;
  with_real(precision, [&](auto zero) {
    const auto* p = static_cast<const decltype(zero)*>(stress_host.data());
    for (std::size_t g = 0; g < stress_pairs; ++g) sums.stress += p[2 * g], sums.squared_distances += p[2 * g + 1];
  });
  sums.stress /= 2;  // ordered pairs count each pair twice
  sums.squared_distances /= 2;
  if (timings) {
    for (const cl::Event& e : events) timings->kernel_s += event_seconds(e);
    timings->transfer_s += event_seconds(read);
    timings->wall_s += wall.seconds();
  }
  return sums;
}

void SmacofDevice::start(const Matrix& x0, Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    // Centred: distances, and so every later iterate, do not change; float rounding of X_0 shrinks.
    pack_row_major(x0, s.precision, s.x_host.data(), x0.colwise().mean());
    cl::Event write;
    s.device.queue().enqueueWriteBuffer(s.x[0], CL_FALSE, 0, s.x_host.size(), s.x_host.data(), nullptr, &write);
    s.current = 0;
    std::vector<cl::Event> events;
    if (s.is_fused()) {
      s.fused_pass(0, 1, events);  // X_1 into x[1]; sigma(X_0) is not needed
      s.read_stress(events, nullptr, wall);
    }
    s.device.queue().finish();
    if (timings) {
      timings->transfer_s += event_seconds(write);
      for (const cl::Event& e : events) timings->kernel_s += event_seconds(e);
      timings->wall_s += wall.seconds();
    }
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

StressSums SmacofDevice::iterate(Timings* timings) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    std::vector<cl::Event> events;
    const int src = s.current, dst = 1 - s.current;
    if (s.is_fused()) {
      // X_m is already in x[dst] (the last pass made it): this pass yields sigma(X_m) and X_{m+1}.
      s.fused_pass(dst, src, events);
    } else {
      cl::CommandQueue& q = s.device.queue();
      s.bccalc.setArg(0, s.delta);
      s.bccalc.setArg(1, s.weights() ? s.weights : s.delta);
      s.bccalc.setArg(2, s.x[src]);
      s.bccalc.setArg(3, static_cast<cl_int>(s.shape.n));
      with_real(s.precision, [&](auto zero) {
        s.bccalc.setArg(4, static_cast<decltype(zero)>(s.shape.weighted ? 1.0 : 1.0 / static_cast<double>(s.shape.n)));
      });
      s.bccalc.setArg(5, s.shape.weighted ? s.bx : s.x[dst]);
      cl::Event run, stress;
      q.enqueueNDRangeKernel(s.bccalc, cl::NullRange, cl::NDRange(s.rows_global), s.local(), nullptr, &run);
      events.push_back(run);
      s.transform_tail(s.bx, dst, events);
      s.stress.setArg(0, s.delta);
      s.stress.setArg(1, s.weights() ? s.weights : s.delta);
      s.stress.setArg(2, s.x[dst]);
      s.stress.setArg(3, static_cast<cl_int>(s.shape.n));
      s.stress.setArg(4, s.partial_stress);
      q.enqueueNDRangeKernel(s.stress, cl::NullRange, cl::NDRange(s.rows_global), s.local(), nullptr, &stress);
      events.push_back(stress);
    }
    s.current = dst;
    return s.read_stress(events, timings, wall);
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix SmacofDevice::embedding() const {
  const Impl& s = *impl_;
  Matrix x(s.shape.n, s.shape.dim);
  try {
    s.device.queue().enqueueReadBuffer(s.x[s.current], CL_TRUE, 0, s.x_host.size(), s.x_host.data());
    with_real(s.precision, [&](auto zero) {
      const auto* v = static_cast<const decltype(zero)*>(s.x_host.data());
      for (Eigen::Index k = 0; k < x.size(); ++k) x.data()[k] = v[k];
    });
  } catch (...) {
    rethrow_as_itercl_error();
  }
  return x;
}

const SmacofKernel& SmacofDevice::kernel() const { return impl_->k; }
const std::string& SmacofDevice::build_options() const { return impl_->options; }
const std::vector<std::string>& SmacofDevice::tuning_sources() const { return impl_->tuning_sources; }
Timings SmacofDevice::upload_timings() const { return impl_->upload; }

}  // namespace itercl
