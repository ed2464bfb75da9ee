// SmacofDevice's setup: the kernel resolved and checked against the device's memory, cl/smacof.cl's
// kernels built, every buffer allocated, and the loop-invariant data (delta, weights, V+) uploaded or
// built on the device once.
#include "smacof/smacof_device.hpp"

#include <algorithm>
#include <vector>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device_impl.hpp"
#include "smacof/smacof_steps.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::smacof {

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

// Ordinary memory for the one-time transfers: pinning N^2 values could fail, and would save little once.
std::vector<unsigned char> staging(std::string_view what, std::size_t bytes) {
  return allocate_host(what, bytes, [&] { return std::vector<unsigned char>(bytes); });
}

// Over ranks, what the block's buffers need: refused with the number of ranks that would fit, when one
// allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE) or the device's memory is too small for them.
void check_block_memory(const DeviceInfo& info, const SmacofKernel& k, const Problem& problem, const RowBlock& b) {
  const auto n = static_cast<std::uint64_t>(problem.n), rows = static_cast<std::uint64_t>(b.rows);
  const std::uint64_t real = real_size(problem.precision), dim = static_cast<std::uint64_t>(problem.dim);
  const std::uint64_t block = rows * n * real;
  const std::uint64_t total = block + (n + rows * (1 + static_cast<std::uint64_t>(k.slices))) * dim * real +
                              n * static_cast<std::uint64_t>(problem.features) * real;
  if (block <= info.max_allocation && total <= info.global_memory) return;
  const std::uint64_t fits_rows = std::max<std::uint64_t>(
      std::min(info.max_allocation, info.global_memory / 2) / std::max<std::uint64_t>(n * real, 1), 1);
  throw InputError("data: rank " + std::to_string(b.comm->rank()) + "'s block of " + std::to_string(rows) + " x " +
                   std::to_string(n) + " dissimilarities needs " + gib(block) + " in one buffer and " + gib(total) +
                   " in all; device '" + info.name + "' allocates at most " + gib(info.max_allocation) +
                   " in one buffer and has " + gib(info.global_memory) + ". Run on at least " +
                   std::to_string((n + fits_rows - 1) / fits_rows) + " ranks (" + std::to_string(fits_rows) +
                   " rows each)");
}

SmacofDevice::SmacofDevice(const Device& device, const SmacofKernel& kernel, const Problem& problem, RowBlock block) {
  device.require(problem.precision);
  const DeviceInfo& info = device.info();
  std::vector<std::string> sources;
  SmacofKernel requested = kernel;
  if (block.comm && !requested.packed) requested.packed = false;  // over ranks, storage left open is full
  const SmacofKernel k = resolve(requested, info, problem, sources);
  if (block.comm) {
    // The seed's variants read whole rows and columns of the square, packed storage holds it whole.
    if (!is_fused(k.variant))
      throw ParamError("kernel.variant",
                       "over several MPI ranks SMACOF runs the fused variants (fused, fused_rows), "
                       "each rank reading its block of rows in one pass; got \"" +
                           k.variant + "\"");
    if (*k.packed)
      throw ParamError("kernel.packed",
                       "over several MPI ranks each rank holds a block of full rows; packed storage "
                       "keeps the whole matrix on one device (leave it false)");
    check_block_memory(info, k, problem, block);
  } else {
    check_memory(info, k, problem);
  }
  const auto n = static_cast<std::size_t>(problem.n), dim = static_cast<std::size_t>(problem.dim);
  check_int_indexing("data", n * static_cast<std::size_t>(std::max<Eigen::Index>(problem.features, problem.dim)),
                     "coordinates");
  try {
    impl_ = std::make_unique<Impl>(device, k, problem, block);
    Impl& s = *impl_;
    s.tuning_sources = std::move(sources);
    s.options = defines(k, problem);
    const std::size_t rows = s.rows();
    const std::size_t row_groups = round_up(rows, k.work_group_size) / k.work_group_size;
    s.rows_global = row_groups * k.work_group_size;
    if (is_fused(k.variant)) {
      s.fused = device.kernel("smacof.cl", s.options, k.variant.c_str());
      s.finish = device.kernel("smacof.cl", s.options, "fused_finish");
      const auto fused_groups = static_cast<std::size_t>(fused_row_groups(static_cast<Eigen::Index>(rows), k));
      s.fused_global = fused_groups * k.work_group_size;
      s.stress_pairs = fused_groups * static_cast<std::size_t>(k.slices);
      s.partial_bx = cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                                std::max<std::size_t>(static_cast<std::size_t>(k.slices) * rows * dim, 1) * s.real());
    } else {
      s.bccalc = device.kernel("smacof.cl", s.options, ("bccalc_" + k.variant).c_str());
      s.stress = device.kernel("smacof.cl", s.options, ("stress_" + k.variant).c_str());
      s.stress_pairs = row_groups;
    }
    for (const cl::Kernel* kern : {&s.fused, &s.finish, &s.bccalc, &s.stress})
      if ((*kern)())
        check_kernel_work_group("kernel.work_group_size", k.work_group_size,
                                kern->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
    if (problem.weighted) {
      s.pinv_kernel = device.kernel("smacof.cl", s.options, "apply_pinv");
      s.bx = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    }
    s.delta = cl::Buffer(device.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(s.pair_values(), 1) * s.real());
    // Over ranks x[1] receives the block's rows only.
    s.x[0] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    s.x[1] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(rows, 1) * dim * s.real());
    if (is_fused(k.variant) && !block.comm)
      s.x[2] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    for (cl::Buffer& b : s.partial_stress)
      b = cl::Buffer(device.context(), CL_MEM_WRITE_ONLY, std::max<std::size_t>(s.stress_bytes(), 1));
    s.x_host = PinnedHostBuffer(device, n * dim * s.real());
    s.stress_host = PinnedHostBuffer(device, std::max<std::size_t>(2 * s.stress_bytes(), 1));
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
    std::vector<unsigned char> values = staging("the dissimilarities' staging copy", s.pair_values() * s.real());
    // A block of rows is laid out as its variant reads it (cl/smacof.cl's banner).
    if (s.over_ranks() && s.k.variant == "fused_rows")
      pack_row_major(delta, s.problem.precision, values.data());
    else if (s.over_ranks())
      pack_column_major(delta, s.problem.precision, values.data());
    else
      with_real(s.problem.precision,
                [&](auto zero) { pack_pairs(delta, s.packed(), reinterpret_cast<decltype(zero)*>(values.data())); });
    cl::Event e;
    if (!values.empty())
      s.device.queue().enqueueWriteBuffer(s.delta, CL_TRUE, 0, values.size(), values.data(), nullptr, &e);
    s.upload.transfer_s += values.empty() ? 0 : event_seconds(e);
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void SmacofDevice::build_dissimilarities(const RowsView& vectors) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    const std::size_t bytes = static_cast<std::size_t>(vectors.rows() * vectors.cols()) * s.real();
    std::vector<unsigned char> values = staging("the vectors' staging copy", bytes);
    // Centred before rounding to the device's precision: distances do not change, rounding shrinks.
    pack_column_major(vectors, s.problem.precision, values.data(), vectors.column_mean());
    cl::Buffer v(s.device.context(), CL_MEM_READ_ONLY, std::max<std::size_t>(bytes, 1));
    cl::Event write;
    s.device.queue().enqueueWriteBuffer(v, CL_TRUE, 0, bytes, values.data(), nullptr, &write);
    s.upload.transfer_s += event_seconds(write);
    s.upload.wall_s += wall.seconds();
    build_dissimilarities(v, vectors.cols());
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void SmacofDevice::build_dissimilarities(const cl::Buffer& v, Eigen::Index features) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::Kernel build = s.device.kernel("smacof.cl", s.options, "build_delta");
    cl::Event run;
    cl::CommandQueue& q = s.device.queue();
    const cl_int along_rows = s.over_ranks() && s.k.variant == "fused_rows";
    set_args(build, v, static_cast<cl_int>(s.problem.n), static_cast<cl_int>(features),
             static_cast<cl_int>(s.block.first), static_cast<cl_int>(s.rows()), along_rows, s.delta);
    const auto columns = static_cast<std::size_t>(s.packed() ? s.problem.n / 2 : s.problem.n);
    if (columns > 0 && s.rows() > 0)
      q.enqueueNDRangeKernel(build, cl::NullRange, cl::NDRange(s.rows_global, columns),
                             cl::NDRange(static_cast<std::size_t>(s.k.work_group_size), 1), nullptr, &run);
    q.finish();
    s.upload.kernel_s += columns > 0 && s.rows() > 0 ? event_seconds(run) : 0;
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix SmacofDevice::read_dissimilarities() const {
  const Impl& s = *impl_;
  const Eigen::Index n = s.problem.n;
  try {
    Matrix d =
        allocate_host("the dissimilarities read back", square_bytes(n), [&] { return Matrix(Matrix::Zero(n, n)); });
    std::vector<unsigned char> values = staging("the dissimilarities' staging copy", s.pair_values() * s.real());
    if (!values.empty()) s.device.queue().enqueueReadBuffer(s.delta, CL_TRUE, 0, values.size(), values.data());
    with_real(s.problem.precision, [&](auto zero) {
      const auto* v = reinterpret_cast<const decltype(zero)*>(values.data());
      if (!s.packed()) {
        for (Eigen::Index k = 0; k < d.size(); ++k) d.data()[k] = v[k];
        return;
      }
      for (Eigen::Index k = 1; k <= n / 2; ++k)
        for (Eigen::Index i = 0; i < n; ++i) d(i, (i + k) % n) = d((i + k) % n, i) = v[(k - 1) * n + i];
    });
    return d;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

void SmacofDevice::upload_weights(const Matrix& weights, const Matrix& pinv) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    cl::CommandQueue& q = s.device.queue();
    std::vector<unsigned char> w = staging("the weights' staging copy", s.pair_values() * s.real());
    std::vector<unsigned char> p = staging("V+'s staging copy", static_cast<std::size_t>(pinv.size()) * s.real());
    with_real(s.problem.precision, [&](auto zero) {
      using T = decltype(zero);
      pack_pairs(weights, s.packed(), reinterpret_cast<T*>(w.data()));
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

bool SmacofDevice::ahead_pays() const {
  return !impl_->over_ranks() && is_fused(impl_->k.variant) && impl_->device.info().type != "cpu";
}

const SmacofKernel& SmacofDevice::kernel() const { return impl_->k; }
const std::string& SmacofDevice::build_options() const { return impl_->options; }
const std::vector<std::string>& SmacofDevice::tuning_sources() const { return impl_->tuning_sources; }
Timings SmacofDevice::upload_timings() const { return impl_->upload; }

}  // namespace itercl::smacof
