// SmacofDevice's setup: the kernel resolved and checked against the device's memory, cl/smacof.clh's
// kernels built, every buffer allocated, and the loop-invariant data (delta, weights, V+) uploaded or
// built on the device once.
#include "smacof/smacof_device.hpp"

#include <algorithm>
#include <vector>

#include "core/centring.hpp"
#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device_impl.hpp"
#include "smacof/smacof_memory.hpp"
#include "smacof/smacof_parts.hpp"
#include "smacof/smacof_steps.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::smacof {

// Ordinary memory for the one-time transfers: pinning them could fail, and would save little once.
std::vector<unsigned char> staging(std::string_view what, std::size_t bytes) {
  return allocate_host(what, bytes, [&] { return std::vector<unsigned char>(bytes); });
}

// A one-time transfer's staging copy holds at most this much, so that the host never holds delta whole in
// the device's precision beside the caller's values.
constexpr std::size_t kStagingBytes = 64 << 20;

// Writes `buffers`, cut as s.layout says, a bounded chunk at a time: rect(r0, rows, c0, columns) gives the
// layout's rows [r0, r0 + rows) (the block's rows in full storage, i packed) x columns [c0, c0 + columns)
// (delta's j, or k - 1 packed). A chunk is whole lines of a buffer (its rows when read along the rows, else
// its columns), which lie one after another. Adds the transfers' time to s.upload.
template <class Rect>
void SmacofDevice::Impl::write_parts(const std::vector<cl::Buffer>& buffers, const Rect& rect) {
  const DeltaLayout& l = layout;
  for (std::size_t b = 0; b < l.parts.size(); ++b) {
    const DeltaPart& part = l.parts[b];
    const std::uint64_t lines = l.along_rows ? l.column_values : part.columns;
    const std::uint64_t length = l.along_rows ? part.columns : l.column_values;
    if (lines == 0 || length == 0) continue;
    const std::uint64_t per_chunk = std::max<std::uint64_t>(kStagingBytes / (length * real()), 1);
    std::vector<unsigned char> values =
        staging("the dissimilarities' staging copy", std::min(per_chunk, lines) * length * real());
    for (std::uint64_t first = 0; first < lines; first += per_chunk) {
      const auto count = static_cast<Eigen::Index>(std::min(per_chunk, lines - first));
      const auto whole = static_cast<Eigen::Index>(length), at = static_cast<Eigen::Index>(first);
      const auto c0 = static_cast<Eigen::Index>(part.column_first);
      // Along the rows: rows [first, first + count) of the part's columns, row-major; else columns
      // [first, first + count) of the part, all rows, column-major.
      if (l.along_rows)
        pack_row_major(rect(at, count, c0, whole), problem.precision, values.data());
      else
        pack_column_major(rect(0, whole, c0 + at, count), problem.precision, values.data());
      cl::Event e;
      device.queue().enqueueWriteBuffer(buffers[b], CL_TRUE, first * length * real(),
                                        static_cast<std::uint64_t>(count) * length * real(), values.data(), nullptr,
                                        &e);
      upload.transfer_s += event_seconds(e);
    }
  }
}

// The rectangle rect(r0, rows, c0, columns) of the layout's values from the whole matrix m: full storage,
// m's own; packed, value (i, k - 1) is the pair (i, i + k mod N).
Matrix layout_rectangle(const Matrix& m, bool packed, Eigen::Index r0, Eigen::Index rows, Eigen::Index c0,
                        Eigen::Index columns) {
  if (!packed) return m.block(r0, c0, rows, columns);
  const Eigen::Index n = m.rows();
  Matrix out(rows, columns);
  for (Eigen::Index c = 0; c < columns; ++c)
    for (Eigen::Index r = 0; r < rows; ++r) out(r, c) = m(r0 + r, (r0 + r + c0 + c + 1) % n);
  return out;
}

SmacofDevice::SmacofDevice(const Device& device, const SmacofKernel& kernel, const Problem& given, RowBlock block) {
  device.require(given.precision);
  const DeviceInfo& info = device.info();
  std::vector<std::string> sources;
  Problem problem = given;
  problem.ranks = block.comm ? block.comm->size() : 1;
  const SmacofKernel k = resolve(kernel, info, problem, sources);
  SliceRange share{0, -1};  // all the slices
  if (block.comm) {
    // The seed's variants read whole rows and columns of the square.
    if (!is_fused(k.variant))
      throw ParamError("kernel.variant",
                       "over several MPI ranks SMACOF runs the fused variants (fused, fused_rows), "
                       "each rank reading its share of delta in one pass; got \"" +
                           k.variant + "\"");
    if (k.packed == YesNo::yes) {  // every row of the rank's range of the slices
      block.first = 0;
      block.rows = problem.n;
      share = rank_slices(k.slices, block.comm->rank(), block.comm->size());
    }
    check_rank_memory(info, k, problem, block.comm->rank(), static_cast<std::uint64_t>(block.rows));
  } else {
    check_memory(info, k, problem);
  }
  const auto n = static_cast<std::size_t>(problem.n), dim = static_cast<std::size_t>(problem.dim);
  check_int_indexing("data", n * static_cast<std::size_t>(std::max<Eigen::Index>(problem.features, problem.dim)),
                     "coordinates");
  try {
    impl_ = std::make_unique<Impl>(device, k, problem, block);
    Impl& s = *impl_;
    s.slice_base = share.first;
    s.slices_held = share.count < 0 ? k.slices : share.count;
    s.tuning_sources = std::move(sources);
    s.options = defines(k, problem);
    const std::size_t rows = s.rows();
    const std::size_t row_groups = round_up(rows, k.work_group_size) / k.work_group_size;
    s.rows_global = row_groups * k.work_group_size;
    if (is_fused(k.variant)) {
      s.fused = device.kernel(kernels(k).file, s.options, kernels(k).pass);
      s.finish = device.kernel(kernels(k).file, s.options, kernels(k).finish);
      const auto fused_groups = static_cast<std::size_t>(fused_row_groups(static_cast<Eigen::Index>(rows), k));
      s.fused_global = fused_groups * k.work_group_size;
      s.stress_pairs = fused_groups * static_cast<std::size_t>(s.slices_held);
      s.partial_bx =
          cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                     std::max<std::size_t>(static_cast<std::size_t>(s.slices_held) * rows * dim, 1) * s.real());
    } else {
      s.bccalc = device.kernel(kernels(k).file, s.options, kernels(k).pass);
      s.stress = device.kernel(kernels(k).file, s.options, kernels(k).finish);
      s.stress_pairs = row_groups;
    }
    for (const cl::Kernel* kern : {&s.fused, &s.finish, &s.bccalc, &s.stress})
      if ((*kern)())
        check_kernel_work_group("kernel.work_group_size", k.work_group_size,
                                kern->getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device()));
    if (problem.weighted) {
      s.pinv_kernel = device.kernel("smacof_pinv.cl", s.options, "apply_pinv");
      s.bx = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    }
    // delta in buffers of whole slices, each within one allocation; the seed variants' one slice is all.
    s.layout = delta_layout(static_cast<std::uint64_t>(s.packed() ? n / 2 : n), s.packed() ? n : rows,
                            is_fused(k.variant) ? k.slices : 1, s.real(), info.max_allocation,
                            variant(k.variant).along_rows, share);
    for (const DeltaPart& part : s.layout.parts)
      s.delta.emplace_back(device.context(), CL_MEM_READ_WRITE,
                           std::max<std::size_t>(s.layout.values(part), 1) * s.real());
    if (s.symmetric()) {  // each work-group's window sums of each slice held; the pass's last argument
      s.partial_ring = cl::Buffer(
          device.context(), CL_MEM_READ_WRITE,
          std::max<std::size_t>(static_cast<std::size_t>(s.slices_held) * (s.fused_global / k.work_group_size) *
                                    ring_span(k.work_group_size, s.layout.per_slice) * dim,
                                1) *
              s.real());
      s.fused.setArg(14, s.partial_ring);
    }
    // Over ranks x[1] receives the block's rows only (packed: every row, the rank's slices' sum).
    s.x[0] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    s.x[1] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(rows, 1) * dim * s.real());
    if (is_fused(k.variant) && !block.comm)
      s.x[2] = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * dim * s.real());
    for (cl::Buffer& b : s.partial_stress)
      b = cl::Buffer(device.context(), CL_MEM_WRITE_ONLY, std::max<std::size_t>(s.stress_bytes(), 1));
    s.x_host = PinnedHostBuffer(device, n * dim * s.real());
    if (block.comm)
      for (PinnedHostBuffer* b : {&s.x_all, &s.x_gathered}) *b = PinnedHostBuffer(device, n * dim * s.real());
    if (block.comm && s.packed()) s.rank_sums.resize(n * dim + 2);
    if (block.comm && !s.packed())
      s.own_queue = cl::CommandQueue(device.context(), device.device(), CL_QUEUE_PROFILING_ENABLE);
    s.stress_host = PinnedHostBuffer(device, std::max<std::size_t>(2 * s.stress_bytes(), 1));
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

SmacofDevice::~SmacofDevice() = default;
SmacofDevice::SmacofDevice(SmacofDevice&&) noexcept = default;

void SmacofDevice::upload_dissimilarities(const Matrix& delta) {
  const bool packed = impl_->packed();
  upload_dissimilarities([&](Eigen::Index r0, Eigen::Index rows, Eigen::Index c0, Eigen::Index columns) {
    return layout_rectangle(delta, packed, r0, rows, c0, columns);
  });
}

void SmacofDevice::upload_dissimilarities(const Rectangle& read) {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    s.write_parts(s.delta, read);
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
    const Eigen::RowVectorXd mean = vectors.column_mean();
    pack_column_major(vectors, s.problem.precision, values.data(),
                      core::centring_origin(mean, vectors.largest_per_column(mean)));
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
    cl::Kernel build = s.device.kernel("smacof_delta.cl", s.options, "build_delta");
    cl::Event run;
    cl::CommandQueue& q = s.device.queue();
    std::vector<cl::Event> runs;
    for (std::size_t b = 0; b < s.layout.parts.size(); ++b) {
      const DeltaPart& part = s.layout.parts[b];
      if (part.columns == 0 || s.rows() == 0) continue;
      set_args(build, v, static_cast<cl_int>(s.problem.n), static_cast<cl_int>(features),
               static_cast<cl_int>(s.block.first), static_cast<cl_int>(s.rows()),
               static_cast<cl_int>(part.column_first), static_cast<cl_int>(part.columns),
               static_cast<cl_int>(s.layout.along_rows), s.delta[b]);
      q.enqueueNDRangeKernel(build, cl::NullRange, cl::NDRange(s.rows_global, part.columns),
                             cl::NDRange(static_cast<std::size_t>(s.k.work_group_size), 1), nullptr, &run);
      runs.push_back(run);
    }
    q.finish();
    for (const cl::Event& e : runs) s.upload.kernel_s += event_seconds(e);
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix SmacofDevice::read_dissimilarities() const {
  const Impl& s = *impl_;
  const Eigen::Index n = s.problem.n;
  const DeltaLayout& l = s.layout;
  try {
    Matrix d =
        allocate_host("the dissimilarities read back", square_bytes(n), [&] { return Matrix(Matrix::Zero(n, n)); });
    for (std::size_t b = 0; b < l.parts.size(); ++b) {
      const DeltaPart& part = l.parts[b];
      std::vector<unsigned char> values = staging("the dissimilarities' staging copy", l.values(part) * s.real());
      if (values.empty()) continue;
      s.device.queue().enqueueReadBuffer(s.delta[b], CL_TRUE, 0, values.size(), values.data());
      with_real(s.problem.precision, [&](auto zero) {
        const auto* v = reinterpret_cast<const decltype(zero)*>(values.data());
        for (std::uint64_t c = part.column_first; c < part.column_first + part.columns; ++c)
          for (std::uint64_t r = 0; r < l.column_values; ++r) {
            const double value = v[l.offset(part, r, c)];
            const auto i = static_cast<Eigen::Index>(r), j = static_cast<Eigen::Index>(c);
            if (s.packed())  // (i, k - 1): the pair (i, i + k mod N)
              d(i, (i + j + 1) % n) = d((i + j + 1) % n, i) = value;
            else
              d(i, j) = value;
          }
      });
    }
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
    for (const DeltaPart& part : s.layout.parts)
      s.weights.emplace_back(s.device.context(), CL_MEM_READ_ONLY,
                             std::max<std::size_t>(s.layout.values(part), 1) * s.real());
    s.write_parts(s.weights, [&](Eigen::Index r0, Eigen::Index rows, Eigen::Index c0, Eigen::Index columns) {
      return layout_rectangle(weights, s.packed(), r0, rows, c0, columns);
    });
    // V+ is symmetric: row-major is its layout.
    std::vector<unsigned char> p = staging("V+'s staging copy", static_cast<std::size_t>(pinv.size()) * s.real());
    pack_row_major(pinv, s.problem.precision, p.data());
    s.pinv = cl::Buffer(s.device.context(), CL_MEM_READ_ONLY, p.size());
    cl::Event ep;
    q.enqueueWriteBuffer(s.pinv, CL_TRUE, 0, p.size(), p.data(), nullptr, &ep);
    s.upload.transfer_s += event_seconds(ep);
    s.upload.wall_s += wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

bool SmacofDevice::ahead_pays() const {
  return !impl_->over_ranks() && is_fused(impl_->k.variant) && impl_->device.info().type != "cpu";
}

const SmacofKernel& SmacofDevice::kernel() const { return impl_->k; }
std::size_t SmacofDevice::delta_buffers() const { return impl_->delta.size(); }
const std::string& SmacofDevice::build_options() const { return impl_->options; }
const std::vector<std::string>& SmacofDevice::tuning_sources() const { return impl_->tuning_sources; }
Timings SmacofDevice::upload_timings() const { return impl_->upload; }

}  // namespace itercl::smacof
