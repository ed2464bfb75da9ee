// PairwiseDistances: inputs resident on every device, rectangles of D computed and streamed out with the
// transfers of one overlapping the kernel of the next (seed 003, section 4.3.4: two queues per device,
// buffers allocated once).
#include "itercl/pairwise.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "core/device_data.hpp"
#include "core/pinned_buffer.hpp"
#include "itercl/error.hpp"
#include "pairwise/pair_space.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "pairwise/pairwise_reduce.hpp"

namespace itercl {
namespace {

bool translation_invariant(Metric m) { return m != Metric::cosine && m != Metric::dot; }

// minkowski with p = 1 or 2 is cityblock or euclidean: the same values without pow's cost and rounding.
Metric effective_metric(const PairwiseParams& p) {
  if (p.metric == Metric::minkowski && p.p == 1) return Metric::cityblock;
  if (p.metric == Metric::minkowski && p.p == 2) return Metric::euclidean;
  return p.metric;
}

// The largest |value| whose accumulated terms stay finite in `precision` over `dim` dimensions.
void check_range(const Matrix& m, const char* name, Metric metric, double p, Precision precision) {
  const double largest = m.cwiseAbs().maxCoeff();
  const double max =
      precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double terms = static_cast<double>(m.cols());
  double power = 2;  // squared differences and products
  if (metric == Metric::cityblock || metric == Metric::chebyshev) power = 1;
  if (metric == Metric::minkowski) power = p;
  // log-space, so that the check itself cannot overflow
  if (std::log(terms) + power * std::log(2 * largest) >= std::log(max))
    throw InputError(std::string(name) + ": values up to " + std::to_string(largest) + " overflow the " +
                     std::string(metric_name(metric)) + " sums in " + std::string(precision_name(precision)) +
                     "; rescale the data or use precision double");
}

struct Inputs {
  std::vector<unsigned char> x, y, xaux, yaux;  // in the device's precision, x and y column-major
};

// Per-vector values for the inner-product forms, from the values as the device holds them.
std::vector<unsigned char> aux_values(const std::vector<unsigned char>& packed, Eigen::Index n, Eigen::Index dim,
                                      Precision precision, Metric metric, const char* name) {
  std::vector<unsigned char> out(static_cast<std::size_t>(n) * real_size(precision));
  with_real(precision, [&](auto zero) {
    using T = decltype(zero);
    const T* v = reinterpret_cast<const T*>(packed.data());
    T* o = reinterpret_cast<T*>(out.data());
    for (Eigen::Index i = 0; i < n; ++i) {
      double sq = 0;
      for (Eigen::Index k = 0; k < dim; ++k) sq += static_cast<double>(v[k * n + i]) * v[k * n + i];
      if (metric == Metric::cosine) {
        if (sq == 0)
          throw InputError(std::string(name) + ": row " + std::to_string(i) +
                           " is all zeros; the cosine distance is undefined for it");
        o[i] = static_cast<T>(1 / std::sqrt(sq));
      } else {
        o[i] = static_cast<T>(sq);
      }
    }
  });
  return out;
}

struct Pending {
  cl::Event run, read;
  Rect rect{};
  bool active = false;
};

}  // namespace

void PairwiseParams::validate() const {
  if (!(p > 0) || !std::isfinite(p))
    throw ParamError("p", "expected a finite number > 0 (minkowski's order), got " + std::to_string(p));
  if (block_rows < 0) throw ParamError("block_rows", "expected an integer >= 1 (or 0 for the default)");
  if (block_cols < 0) throw ParamError("block_cols", "expected an integer >= 1 (or 0 for the default)");
  kernel.validate();
}

struct PairwiseDistances::Impl {
  // One device's share of the work: nested here, since the library's sources are built in batches.
  struct Worker {
    explicit Worker(Device d) : device(std::move(d)) {}
    Device device;
    std::string name;
    PairwiseKernel kernel;
    std::vector<std::string> tuning_sources;
    std::string options;
    cl::CommandQueue compute, transfer;
    cl::Kernel program;
    cl::Buffer x, y, xaux, yaux;
    std::array<cl::Buffer, 2> tile;
    std::array<PinnedHostBuffer, 2> host;
    DeviceShare share;
  };

  PairwiseParams params;
  Metric metric;  // as computed (minkowski 1 and 2 by their special forms)
  Eigen::Index n1 = 0, n2 = 0, dim = 0;
  bool symmetric = false;
  Eigen::Index block_rows = 0, block_cols = 0;
  std::vector<Worker> workers;
  Timings upload;

  // Each rectangle to `sink`, or with `reducers` (one per worker) reduced on the device and merged.
  void work(Worker& w, RectangleQueue& queue, const PairSink& sink, TileReducer* reducer);
  PairwiseRun run(const PairSink& sink, std::vector<TileReducer>* reducers);
};

PairwiseDistances::PairwiseDistances(const std::vector<Device>& devices, const Matrix& X, const Matrix* Y,
                                     PairwiseParams params) {
  params.validate();
  if (devices.empty()) throw ParamError("devices", "expected at least one device");
  if (X.rows() < 1 || X.cols() < 1)
    throw InputError("data: no vectors (shape " + std::to_string(X.rows()) + " x " + std::to_string(X.cols()) + ")");
  if (Y && (Y->rows() < 1 || Y->cols() != X.cols()))
    throw InputError("second input: shape " + std::to_string(Y->rows()) + " x " + std::to_string(Y->cols()) +
                     "; expected at least one vector of " + std::to_string(X.cols()) + " features");
  const Precision precision = params.precision;
  for (const Device& d : devices) d.require(precision);
  for (const Matrix* m : {&X, Y}) {
    if (m &&
        static_cast<std::uint64_t>(m->rows()) * m->cols() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      throw InputError("data: " + std::to_string(m->rows()) + " x " + std::to_string(m->cols()) +
                       " values exceed the kernels' 32-bit indexing (2^31 - 1 values)");
  }

  auto s = std::make_unique<Impl>();
  s->params = params;
  s->metric = effective_metric(params);
  s->n1 = X.rows();
  s->n2 = Y ? Y->rows() : X.rows();
  s->dim = X.cols();
  s->symmetric = Y == nullptr;

  // Translation-invariant metrics see the data centred on X's mean before the rounding to the device's
  // precision: distances do not change, their rounding error shrinks with the magnitudes (and the
  // expanded form's cancellation with them).
  Eigen::RowVectorXd shift = Eigen::RowVectorXd::Zero(X.cols());
  if (translation_invariant(s->metric)) shift = X.colwise().mean();
  const Matrix Xs = X.rowwise() - shift;
  check_range(Xs, "data", s->metric, params.p, precision);
  Inputs in;
  in.x.resize(static_cast<std::size_t>(X.size()) * real_size(precision));
  pack_column_major(X, precision, in.x.data(), shift);
  if (Y) {
    const Matrix Ys = Y->rowwise() - shift;
    check_range(Ys, "second input", s->metric, params.p, precision);
    in.y.resize(static_cast<std::size_t>(Y->size()) * real_size(precision));
    pack_column_major(*Y, precision, in.y.data(), shift);
  }

  try {
    std::map<cl_device_id, int> seen;
    double max_entries = std::numeric_limits<int>::max();
    for (const Device& d : devices) {
      Impl::Worker w(d);
      w.name = d.info().name + " (" + d.info().id() + ")";
      if (const int k = ++seen[d.device()()]; k > 1) w.name += " #" + std::to_string(k);
      w.kernel = resolve_pairwise_kernel(params.kernel, d.info(), s->metric, precision, w.tuning_sources);
      w.options = pairwise_options(w.kernel, s->metric, precision);
      w.program = d.kernel("pairwise.cl", w.options,
                           ("pairs_" + std::string(w.kernel.variant == "naive" ? "naive" : "tiled")).c_str());
      const auto limit = w.program.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(d.device());
      if (static_cast<std::size_t>(w.kernel.tile_rows) * w.kernel.tile_cols > limit)
        throw ParamError("kernel.tile_rows",
                         "tile_rows x tile_cols = " + std::to_string(w.kernel.tile_rows * w.kernel.tile_cols) +
                             " exceeds what this kernel can launch on the device (" + std::to_string(limit) + ")");
      // Two output slots per device, each at most 1/8 of its memory and one allocation.
      max_entries =
          std::min(max_entries,
                   static_cast<double>(std::min<std::uint64_t>(d.info().max_allocation, d.info().global_memory / 8)) /
                       real_size(precision));
      s->workers.push_back(std::move(w));
    }
    const bool inner = uses_inner_products(s->workers.front().kernel, s->metric);
    if (inner) {
      in.xaux = aux_values(in.x, s->n1, s->dim, precision, s->metric, "data");
      if (Y) in.yaux = aux_values(in.y, s->n2, s->dim, precision, s->metric, "second input");
    }

    const int n_workers = static_cast<int>(s->workers.size());
    const Eigen::Index side = default_block(s->n1, s->n2, s->symmetric, max_entries, n_workers, 64);
    s->block_rows = params.block_rows ? std::min(params.block_rows, s->n1) : std::min(side, s->n1);
    s->block_cols =
        s->symmetric ? s->block_rows : (params.block_cols ? std::min(params.block_cols, s->n2) : std::min(side, s->n2));
    if (static_cast<double>(s->block_rows) * static_cast<double>(s->block_cols) > max_entries)
      throw ParamError("block_rows", std::to_string(s->block_rows) + " x " + std::to_string(s->block_cols) +
                                         " entries per rectangle exceed the devices' budget of " +
                                         std::to_string(static_cast<long long>(max_entries)));

    Stopwatch wall;
    const std::size_t tile_bytes = static_cast<std::size_t>(s->block_rows * s->block_cols) * real_size(precision);
    for (Impl::Worker& w : s->workers) {
      const cl::Context& ctx = w.device.context();
      w.compute = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      w.transfer = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      auto upload = [&](const std::vector<unsigned char>& bytes) {
        cl::Buffer b(ctx, CL_MEM_READ_ONLY, bytes.empty() ? real_size(precision) : bytes.size());
        cl::Event e;
        if (!bytes.empty()) {
          w.transfer.enqueueWriteBuffer(b, CL_TRUE, 0, bytes.size(), bytes.data(), nullptr, &e);
          s->upload.transfer_s += event_seconds(e);
        }
        return b;
      };
      w.x = upload(in.x);
      w.y = Y ? upload(in.y) : w.x;
      w.xaux = upload(in.xaux);
      w.yaux = Y ? upload(in.yaux) : w.xaux;
      for (auto& tile : w.tile) tile = cl::Buffer(ctx, CL_MEM_READ_WRITE, tile_bytes);  // read by the reductions
      w.share.device = w.name;
    }
    s->upload.wall_s = wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
  impl_ = std::move(s);
}

PairwiseDistances::~PairwiseDistances() = default;
PairwiseDistances::PairwiseDistances(PairwiseDistances&&) noexcept = default;
PairwiseDistances& PairwiseDistances::operator=(PairwiseDistances&&) noexcept = default;

void PairwiseDistances::Impl::work(Worker& w, RectangleQueue& queue, const PairSink& sink, TileReducer* reducer) {
  Stopwatch wall;
  const Precision precision = params.precision;
  const double p = params.p, inv_p = 1 / params.p;
  std::array<Pending, 2> pending;
  auto drain = [&](Pending& slot, int k) {
    slot.read.wait();
    w.share.timings.kernel_s += event_seconds(slot.run);
    Stopwatch host;
    const Rect& r = slot.rect;
    if (reducer) {
      reducer->drain(k, r, w.share.timings);  // adds its kernels' and reads' times
    } else {
      w.share.timings.transfer_s += event_seconds(slot.read);
      sink(PairTile{r.row0, r.col0, r.rows, r.cols, r.cols, symmetric, precision, w.host[k].data()});
    }
    w.share.timings.host_s += host.seconds();
    slot.active = false;
  };
  const PairwiseKernel& k = w.kernel;
  int slot = 0;
  while (const Rect* r = queue.next()) {
    Pending& pend = pending[slot];
    if (pend.active) drain(pend, slot);
    int arg = 0;
    w.program.setArg(arg++, w.x);
    w.program.setArg(arg++, static_cast<cl_int>(n1));
    w.program.setArg(arg++, w.y);
    w.program.setArg(arg++, static_cast<cl_int>(n2));
    w.program.setArg(arg++, static_cast<cl_int>(dim));
    w.program.setArg(arg++, static_cast<cl_int>(r->row0));
    w.program.setArg(arg++, static_cast<cl_int>(r->col0));
    w.program.setArg(arg++, static_cast<cl_int>(r->rows));
    w.program.setArg(arg++, static_cast<cl_int>(r->cols));
    w.program.setArg(arg++, w.xaux);
    w.program.setArg(arg++, w.yaux);
    with_real(precision, [&](auto zero) {
      using T = decltype(zero);
      w.program.setArg(arg++, static_cast<T>(p));
      w.program.setArg(arg++, static_cast<T>(inv_p));
    });
    w.program.setArg(arg++, static_cast<cl_int>(r->diagonal));
    w.program.setArg(arg++, w.tile[slot]);
    w.program.setArg(arg++, static_cast<cl_int>(r->cols));
    const std::size_t per_x = static_cast<std::size_t>(k.tile_cols) * k.cols_per_item;
    const std::size_t per_y = static_cast<std::size_t>(k.tile_rows) * k.subtiles;
    const std::size_t groups_x = (static_cast<std::size_t>(r->cols) + per_x - 1) / per_x;
    const std::size_t groups_y = (static_cast<std::size_t>(r->rows) + per_y - 1) / per_y;
    w.compute.enqueueNDRangeKernel(w.program, cl::NullRange,
                                   cl::NDRange(groups_x * k.tile_cols, groups_y * k.tile_rows),
                                   cl::NDRange(k.tile_cols, k.tile_rows), nullptr, &pend.run);
    if (reducer) {
      pend.read = reducer->enqueue(slot, w.tile[slot], *r, w.compute, w.transfer);
    } else {
      const std::vector<cl::Event> after{pend.run};
      w.transfer.enqueueReadBuffer(w.tile[slot], CL_FALSE, 0,
                                   static_cast<std::size_t>(r->rows * r->cols) * real_size(precision),
                                   w.host[slot].data(), &after, &pend.read);
    }
    w.compute.flush();
    w.transfer.flush();
    pend.rect = *r;
    pend.active = true;
    ++w.share.rectangles;
    w.share.pairs += r->diagonal ? r->pairs() + static_cast<double>(r->rows) : static_cast<double>(r->rows * r->cols);
    slot ^= 1;
  }
  // The older of the two first, so the sink sees this worker's rectangles in the order they were taken.
  for (int k2 : {slot, slot ^ 1})
    if (pending[k2].active) drain(pending[k2], k2);
  w.share.timings.wall_s += wall.seconds();
}

PairwiseRun PairwiseDistances::run(const PairSink& sink) { return impl_->run(sink, nullptr); }

PairwiseRun PairwiseDistances::Impl::run(const PairSink& sink, std::vector<TileReducer>* reducers) {
  Impl& s = *this;
  try {
    Stopwatch wall;
    RectangleQueue queue(cut_pair_space(s.n1, s.n2, s.symmetric, s.block_rows, s.block_cols));
    for (Impl::Worker& w : s.workers) w.share = DeviceShare{.device = w.name, .timings = {}};
    // The tiles come to the host only when they are not reduced on the device: the pinned buffers they
    // land in, as large as the tiles, are allocated by the first run that needs them.
    if (!reducers) {
      const std::size_t tile_bytes =
          static_cast<std::size_t>(s.block_rows * s.block_cols) * real_size(params.precision);
      for (Impl::Worker& w : s.workers)
        for (PinnedHostBuffer& host : w.host)
          if (!host.data()) host = PinnedHostBuffer(w.device, tile_bytes);
    }
    run_workers(static_cast<int>(s.workers.size()), queue, [&](int k) {
      const auto at = static_cast<std::size_t>(k);
      s.work(s.workers[at], queue, sink, reducers ? &(*reducers)[at] : nullptr);
    });
    PairwiseRun r;
    r.kernel = s.workers.front().kernel;
    r.tuning_sources = s.workers.front().tuning_sources;
    r.build_options = s.workers.front().options;
    r.block_rows = s.block_rows;
    r.block_cols = s.block_cols;
    r.upload = s.upload;
    for (const Impl::Worker& w : s.workers) {
      r.shares.push_back(w.share);
      r.pairs += w.share.pairs;
      r.total.kernel_s += w.share.timings.kernel_s;
      r.total.transfer_s += w.share.timings.transfer_s;
      r.total.host_s += w.share.timings.host_s;
    }
    r.total.wall_s = wall.seconds();
    return r;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

Matrix PairwiseDistances::matrix(PairwiseRun* run_info) {
  Matrix D(impl_->n1, impl_->n2);
  const PairwiseRun r = run([&](const PairTile& t) {
    for (Eigen::Index i = 0; i < t.rows; ++i)
      for (Eigen::Index j = 0; j < t.cols; ++j) {
        D(t.row0 + i, t.col0 + j) = t(i, j);
        if (t.symmetric && t.row0 != t.col0) D(t.col0 + j, t.row0 + i) = t(i, j);
      }
  });
  if (run_info) *run_info = r;
  return D;
}

ReducedDistances PairwiseDistances::reduce(const PairwiseReduction& reduction, PairwiseRun* run_info) {
  Impl& s = *impl_;
  reduction.validate();
  const Eigen::Index candidates = s.symmetric ? s.n1 - 1 : s.n2;  // per row: pdist leaves out i == j
  if (reduction.form != "threshold" && candidates < 1)
    throw InputError("form " + reduction.form + ": one input of one vector has no pairs to reduce");
  if (reduction.form == "knn" && reduction.k > candidates)
    throw ParamError("k", std::to_string(reduction.k) + " neighbours, but each row has " + std::to_string(candidates) +
                              " candidates");
  try {
    ReductionMerge merge(reduction, s.n1);
    std::vector<TileReducer> reducers;
    for (const Impl::Worker& w : s.workers)
      reducers.emplace_back(w.device, reduction, s.params.precision, s.block_rows, s.block_cols, s.symmetric, merge);
    const PairwiseRun r = s.run([](const PairTile&) {}, &reducers);
    if (run_info) *run_info = r;
    return merge.finish();
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

const PairwiseKernel& PairwiseDistances::kernel() const { return impl_->workers.front().kernel; }
const std::string& PairwiseDistances::build_options() const { return impl_->workers.front().options; }
Eigen::Index PairwiseDistances::rows() const { return impl_->n1; }
Eigen::Index PairwiseDistances::cols() const { return impl_->n2; }
bool PairwiseDistances::symmetric() const { return impl_->symmetric; }

}  // namespace itercl
