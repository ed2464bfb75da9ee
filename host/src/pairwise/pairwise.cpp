// PairwiseDistances: the inputs uploaded to every device once, each device's kernel resolved and built, the
// rectangles' size chosen from the devices' memory; the whole matrix or its reductions assembled on the
// host from the rectangles streamed through the devices (pairwise_stream.cpp).
#include "itercl/pairwise.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/device_rows_pack.hpp"
#include "core/host_memory.hpp"
#include "itercl/error.hpp"
#include "pairwise/pairwise_inputs.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "pairwise/pairwise_knn.hpp"
#include "pairwise/pairwise_stream.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl {
namespace pairwise {

// Each of a device's two tile slots takes at most this fraction of its memory (and one allocation): a
// quarter for both, the rest left to the inputs, the reductions' outputs and whatever else runs there.
constexpr std::uint64_t kTileSlotsPerMemory = 8;

// Default rectangle sides are multiples of 64, so that tiles whose sides divide 64 (the tunings of up to
// 8 x 8 work-items with 8 x 8 accumulators) cover every rectangle but the last of a row or column whole.
constexpr Eigen::Index kBlockAlign = 64;

}  // namespace pairwise

void PairwiseParams::validate() const {
  if (!(p > 0) || !std::isfinite(p))
    throw ParamError("p", "expected a finite number > 0 (minkowski's order), got " + std::to_string(p));
  if (block_rows < 0) throw ParamError("block_rows", "expected an integer >= 1 (or 0 for the default)");
  if (block_cols < 0) throw ParamError("block_cols", "expected an integer >= 1 (or 0 for the default)");
  if (parts < 1 || part < 0 || part >= parts)
    throw ParamError("part",
                     "expected 0 <= part < parts, got part " + std::to_string(part) + " of " + std::to_string(parts));
  kernel.validate();
}

PairwiseDistances::PairwiseDistances(const std::vector<Device>& devices, const Matrix& X, const Matrix* Y,
                                     PairwiseParams params) {
  const RowsView y = Y ? RowsView(*Y) : RowsView(X);
  *this = PairwiseDistances(devices, RowsView(X), Y ? &y : nullptr, std::move(params));
}

// The parts of construction every input shares: checks, each worker's kernel, the rectangles' size, the
// queues and tile buffers. The inputs' buffers (x, y, xaux, yaux) are the caller's to fill.
void PairwiseDistances::Impl::setup(const std::vector<Device>& devices, const PairwiseParams& p, Eigen::Index rows,
                                    const Eigen::Index* cols, Eigen::Index features) {
  p.validate();
  if (devices.empty()) throw ParamError("devices", "expected at least one device");
  const Precision precision = p.precision;
  for (const Device& d : devices) d.require(precision);
  params = p;
  metric = pairwise::effective_metric(p);
  n1 = rows;
  n2 = cols ? *cols : rows;
  dim = features;
  symmetric = cols == nullptr;
  const pairwise::DistanceProblem problem{.metric = metric, .precision = precision, .dim = static_cast<int>(features)};
  try {
    std::map<cl_device_id, int> seen;
    double max_entries = std::numeric_limits<int>::max();
    for (const Device& d : devices) {
      pairwise::DistanceWorker w(d);
      w.name = d.info().name + " (" + d.info().id() + ")";
      if (const int k = ++seen[d.device()()]; k > 1) w.name += " #" + std::to_string(k);
      w.kernel = pairwise::resolve(p.kernel, d.info(), problem, w.tuning_sources);
      w.options = pairwise::defines(w.kernel, problem);
      w.program = d.kernel("pairwise.cl", w.options, pairwise::kernel_name(w.kernel));
      check_kernel_work_group("kernel.tile_rows x tile_cols",
                              static_cast<long long>(w.kernel.tile_rows) * w.kernel.tile_cols,
                              w.program.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(d.device()));
      max_entries =
          std::min(max_entries, static_cast<double>(std::min<std::uint64_t>(
                                    d.info().max_allocation, d.info().global_memory / pairwise::kTileSlotsPerMemory)) /
                                    real_size(precision));
      workers.push_back(std::move(w));
    }
    const int n_workers = static_cast<int>(workers.size()) * p.parts;
    const Eigen::Index side = pairwise::default_block(n1, n2, symmetric, max_entries, n_workers, pairwise::kBlockAlign);
    block_rows = p.block_rows ? std::min(p.block_rows, n1) : std::min(side, n1);
    block_cols = symmetric ? block_rows : (p.block_cols ? std::min(p.block_cols, n2) : std::min(side, n2));
    if (static_cast<double>(block_rows) * static_cast<double>(block_cols) > max_entries)
      throw ParamError("block_rows", std::to_string(block_rows) + " x " + std::to_string(block_cols) +
                                         " entries per rectangle exceed the devices' budget of " +
                                         std::to_string(static_cast<long long>(max_entries)));
    const std::size_t tile_bytes = static_cast<std::size_t>(block_rows * block_cols) * real_size(precision);
    for (pairwise::DistanceWorker& w : workers) {
      const cl::Context& ctx = w.device.context();
      w.compute = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      w.transfer = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      for (auto& tile : w.tile) tile = cl::Buffer(ctx, CL_MEM_READ_WRITE, tile_bytes);  // read by the reductions
      w.share.device = w.name;
    }
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

bool PairwiseDistances::Impl::inner_products() const {
  // The k nearest with the selection fused in (fused or rows) compute the expanded form whatever the
  // distances' variant.
  return pairwise::uses_inner_products(workers.front().kernel, metric) ||
         pairwise::fused_search(workers.front().kernel);
}

PairwiseDistances::PairwiseDistances(const std::vector<Device>& devices, const RowsView& X, const RowsView* Y,
                                     PairwiseParams params) {
  if (X.rows() < 1 || X.cols() < 1)
    throw InputError("data: no vectors (shape " + std::to_string(X.rows()) + " x " + std::to_string(X.cols()) + ")");
  if (Y && (Y->rows() < 1 || Y->cols() != X.cols()))
    throw InputError("second input: shape " + std::to_string(Y->rows()) + " x " + std::to_string(Y->cols()) +
                     "; expected at least one vector of " + std::to_string(X.cols()) + " features");
  for (const RowsView* m : {&X, Y}) {
    if (m &&
        static_cast<std::uint64_t>(m->rows()) * m->cols() > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      throw InputError("data: " + std::to_string(m->rows()) + " x " + std::to_string(m->cols()) +
                       " values exceed the kernels' 32-bit indexing (2^31 - 1 values)");
  }
  auto s = std::make_unique<Impl>();
  const Eigen::Index n2 = Y ? Y->rows() : 0;
  params.validate();
  pairwise::Inputs in = pairwise::pack_inputs(X, Y, pairwise::effective_metric(params), params.p, params.precision);
  s->setup(devices, params, X.rows(), Y ? &n2 : nullptr, X.cols());
  if (s->inner_products())
    pairwise::add_aux_values(in, s->n1, s->n2, s->dim, Y != nullptr, s->metric, params.precision);
  try {
    Stopwatch wall;
    for (pairwise::DistanceWorker& w : s->workers) {
      auto upload = [&](const std::vector<unsigned char>& bytes) {
        cl::Buffer b(w.device.context(), CL_MEM_READ_ONLY, bytes.empty() ? real_size(params.precision) : bytes.size());
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
    }
    s->upload.wall_s = wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
  impl_ = std::move(s);
}

PairwiseDistances::PairwiseDistances(const Device& device, const DeviceRows& X, const DeviceRows* Y,
                                     PairwiseParams params) {
  core::check_device_rows(device, X, "data");
  if (Y) core::check_device_rows(device, *Y, "second input");
  auto s = std::make_unique<Impl>();
  s->setup({device}, params, X.rows, Y ? &Y->rows : nullptr, X.cols);
  const bool shifted = pairwise::translation_invariant(s->metric);
  core::PackedDeviceRows x = core::pack_device_rows(device, X, params.precision, "data", shifted ? &X : nullptr);
  pairwise::check_range(x.largest, X.cols, "data", s->metric, params.p, params.precision);
  std::optional<core::PackedDeviceRows> y;
  if (Y) {
    y = core::pack_device_rows(device, *Y, params.precision, "second input", shifted ? &X : nullptr);
    pairwise::check_range(y->largest, X.cols, "second input", s->metric, params.p, params.precision);
  }
  pairwise::DistanceWorker& w = s->workers.front();
  w.x = x.columns;
  w.y = Y ? y->columns : w.x;
  s->upload = x.timings;
  if (Y) s->upload += y->timings;
  const bool aux = s->inner_products();
  w.xaux = aux ? pairwise::device_aux_values(device, w.x, s->n1, s->dim, s->metric, params.precision, "data")
               : cl::Buffer(device.context(), CL_MEM_READ_ONLY, real_size(params.precision));
  w.yaux = !Y    ? w.xaux
           : aux ? pairwise::device_aux_values(device, w.y, s->n2, s->dim, s->metric, params.precision, "second input")
                 : w.xaux;
  impl_ = std::move(s);
}

PairwiseDistances::~PairwiseDistances() = default;
PairwiseDistances::PairwiseDistances(PairwiseDistances&&) noexcept = default;
PairwiseDistances& PairwiseDistances::operator=(PairwiseDistances&&) noexcept = default;

PairwiseRun PairwiseDistances::run(const PairSink& sink) { return impl_->run(sink, nullptr); }

Matrix PairwiseDistances::matrix(PairwiseRun* run_info) {
  const auto entries = static_cast<std::size_t>(impl_->n1) * static_cast<std::size_t>(impl_->n2);
  Matrix D =
      allocate_host("the distance matrix", entries * sizeof(double), [&] { return Matrix(impl_->n1, impl_->n2); });
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
    pairwise::ReductionMerge merge(reduction, s.n1);
    // Every device runs a fused form or none: the norms they need were uploaded for the first's choice.
    if (reduction.form == "knn" && pairwise::fused_search(s.workers.front().kernel)) {
      const pairwise::DistanceProblem problem{
          .metric = s.metric, .precision = s.params.precision, .dim = static_cast<int>(s.dim)};
      const Eigen::Index rows = pairwise::fused_blocks(s.params, s.n1, s.n2, s.block_rows, s.block_cols,
                                                       static_cast<int>(s.workers.size()) * s.params.parts)
                                    .first;
      std::vector<pairwise::FusedKnn> fused;
      fused.reserve(s.workers.size());
      for (const pairwise::DistanceWorker& w : s.workers)
        fused.emplace_back(w, reduction, problem, s.n1, s.n2, s.dim, s.symmetric, rows, merge);
      const PairwiseRun r = s.run([](const PairTile&) {}, nullptr, &fused);
      if (run_info) *run_info = r;
      return merge.finish();
    }
    std::vector<pairwise::TileReducer> reducers;
    for (const pairwise::DistanceWorker& w : s.workers)
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
