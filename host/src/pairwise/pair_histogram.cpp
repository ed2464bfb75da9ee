// PairHistogram: points resident on every device, the pair space's rectangles handed out to them
// dynamically, each device's counts kept in 64-bit totals on the device and read once at the end.
#include "itercl/pair_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/centring.hpp"
#include "core/comm.hpp"
#include "core/device_data.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "pairwise/pair_histogram_binning.hpp"
#include "pairwise/pair_histogram_description.hpp"
#include "pairwise/pair_histogram_kernel.hpp"
#include "pairwise/pair_space.hpp"

namespace itercl {
namespace pairwise {

// Rectangles in flight on one device. A rectangle's launch ends in a last wave of work-groups that leaves
// most of a GPU idle for one group's pass over its columns: on an H200, 4 M points cut into 36 rectangles
// took 8.5% longer than as one (benchmarks/results/nvidia-h200-x4/README.md). Two lanes, each a queue with
// its own counters (and per-group histograms, each within kPartialBudget), let the next rectangle's groups
// fill what the last one's tail leaves.
constexpr int kLanes = 2;

struct HistogramLane {
  cl::CommandQueue queue;
  cl::Buffer counters, partial, totals;
  const Rect* rect = nullptr;  // in flight, until retired
  cl::Event run, merged;
};

// One device's share of the histogram: its kernels, its buffers, its counts.
struct HistogramWorker {
  explicit HistogramWorker(Device d) : device(std::move(d)) {}
  Device device;
  PairHistogramKernel kernel;
  std::vector<std::string> tuning_sources;
  std::string options;
  cl::Kernel count, merge;
  cl::Buffer points, box, table;
  std::vector<double> frame;     // the kernel's lo, hi and inv_width (DeviceBinning)
  std::size_t partial_rows = 0;  // each lane's per-group histograms (private variants)
  HistogramLane lanes[kLanes];
  double busy_until = 0;  // the device clock (ns) up to which the retired rectangles' kernel time is counted
  DeviceShare share;
  cl::CommandQueue& queue() { return lanes[0].queue; }
};

// `values` in the device's precision, in one row.
std::vector<unsigned char> packed_row(const std::vector<double>& values, Precision precision, const char* what) {
  const Matrix m = Eigen::Map<const Matrix>(values.data(), 1, static_cast<Eigen::Index>(values.size()));
  std::vector<unsigned char> bytes = host_bytes(what, values.size() * real_size(precision));
  pack_row_major(m, precision, bytes.data());
  return bytes;
}

}  // namespace pairwise

struct PairHistogram::Impl {
  PairHistogramParams params;
  Eigen::Index n = 0, dim = 0, block = 0;
  int buckets = 0;
  std::vector<pairwise::HistogramWorker> workers;
  Timings upload;

  void work(pairwise::HistogramWorker& w, pairwise::RectangleQueue& queue);
};

PairHistogram::PairHistogram(const std::vector<Device>& devices, const Matrix& points, PairHistogramParams params) {
  params.validate(points.cols());
  if (devices.empty()) throw ParamError("devices", "expected at least one device");
  if (points.rows() < 1 || points.cols() < 1)
    throw InputError("data: no points (shape " + std::to_string(points.rows()) + " x " + std::to_string(points.cols()) +
                     ")");
  if (static_cast<std::uint64_t>(points.size()) > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw InputError("data: " + std::to_string(points.size()) + " values exceed the kernels' 32-bit indexing");
  const Precision precision = params.precision;
  for (const Device& d : devices) d.require(precision);

  auto s = std::make_unique<Impl>();
  s->params = params;
  s->n = points.rows();
  s->dim = points.cols();
  const Binning& b = params.binning;
  s->buckets = b.buckets();

  // Centred before rounding: differences (and minimum images) do not change, their rounding shrinks.
  const Eigen::RowVectorXd mean = points.colwise().mean();
  const Eigen::RowVectorXd shift =
      core::centring_origin(mean, (points.rowwise() - mean).cwiseAbs().colwise().maxCoeff());
  const double largest = (points.rowwise() - shift).cwiseAbs().maxCoeff();
  core::check_resolved(largest, precision, "data", "the largest |coordinate - centre|");
  const double limit =
      std::sqrt((precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max()) /
                static_cast<double>(s->dim)) /
      2;
  if (largest >= limit)
    throw InputError("data: coordinates up to " + std::to_string(largest) + " overflow squared distances in " +
                     std::string(precision_name(precision)) + "; rescale the data or use precision double");
  std::vector<unsigned char> packed = host_bytes("the points in the device's precision",
                                                 static_cast<std::size_t>(points.size()) * real_size(precision));
  pack_column_major(points, precision, packed.data(), shift);
  const std::vector<unsigned char> box_bytes =
      pairwise::packed_row(params.box.empty() ? std::vector<double>(static_cast<std::size_t>(s->dim), 1.0) : params.box,
                           precision, "the box");
  const pairwise::HistogramProblem problem{.dim = s->dim,
                                           .buckets = s->buckets,
                                           .place = pairwise::device_binning(b, precision, true),
                                           .lookup = pairwise::device_binning(b, precision, false),
                                           .periodic = !params.box.empty(),
                                           .precision = precision};

  try {
    std::map<cl_device_id, int> seen;
    Eigen::Index side_limit = s->n;
    for (const Device& d : devices) {
      pairwise::HistogramWorker w(d);
      w.share.device = d.info().name + " (" + d.info().id() + ")";
      if (const int k = ++seen[d.device()()]; k > 1) w.share.device += " #" + std::to_string(k);
      w.kernel = pairwise::resolve(params.kernel, d, problem, w.tuning_sources);
      w.options = pairwise::defines(w.kernel, problem, d.info().local_memory);
      const pairwise::HistogramVariant& v = pairwise::histogram_variant(w.kernel.variant);
      w.count = d.kernel(v.file, w.options, v.entry);
      w.merge = d.kernel("pair_histogram.cl", w.options, "hist_merge");
      side_limit = std::min(side_limit, pairwise::max_rectangle_side(w.kernel, problem));
      s->workers.push_back(std::move(w));
    }
    // Rectangles aligned to every worker's block, so that a diagonal rectangle's blocks line up.
    Eigen::Index align = 1;
    for (const pairwise::HistogramWorker& w : s->workers)
      align = std::lcm(align, static_cast<Eigen::Index>(w.kernel.work_group_size));
    side_limit = std::max(align, side_limit / align * align);
    const Eigen::Index fallback =
        pairwise::default_block(s->n, s->n, true, static_cast<double>(side_limit) * static_cast<double>(side_limit),
                                static_cast<int>(s->workers.size()) * params.parts, align);
    s->block = std::min(params.block ? params.block : fallback, s->n);
    if (s->block < s->n && s->block % align)
      throw ParamError("block",
                       std::to_string(s->block) + " is not a multiple of the work-group size " + std::to_string(align));
    if (s->block > side_limit)
      throw ParamError("block",
                       std::to_string(s->block) + " exceeds the counters' limit of " + std::to_string(side_limit));

    Stopwatch wall;
    const auto buckets = static_cast<std::size_t>(s->buckets);
    for (pairwise::HistogramWorker& w : s->workers) {
      const cl::Context& ctx = w.device.context();
      for (pairwise::HistogramLane& lane : w.lanes)
        lane.queue = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      auto upload = [&](const std::vector<unsigned char>& bytes) {
        cl::Buffer buffer(ctx, CL_MEM_READ_ONLY, bytes.size());
        cl::Event e;
        w.queue().enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes.size(), bytes.data(), nullptr, &e);
        s->upload.transfer_s += event_seconds(e);
        return buffer;
      };
      w.points = upload(packed);
      w.box = upload(box_bytes);
      const pairwise::DeviceBinning& binning = pairwise::kernel_binning(w.kernel, problem);
      w.table = upload(pairwise::packed_row(binning.table, precision, "the bucket edges"));
      w.frame = binning.frame;
      const std::size_t groups =
          static_cast<std::size_t>((s->block + w.kernel.work_group_size - 1) / w.kernel.work_group_size);
      w.partial_rows = pairwise::partial_rows(w.kernel, problem, groups, w.device.info().compute_units);
      for (pairwise::HistogramLane& lane : w.lanes) {
        lane.totals = cl::Buffer(ctx, CL_MEM_READ_WRITE, buckets * sizeof(cl_ulong));
        if (pairwise::private_histogram(w.kernel)) {
          lane.partial = cl::Buffer(ctx, CL_MEM_READ_WRITE, w.partial_rows * buckets * sizeof(cl_uint));
        } else if (w.kernel.global_counter_bits == 32) {
          lane.counters = cl::Buffer(ctx, CL_MEM_READ_WRITE, buckets * sizeof(cl_uint));
          lane.queue.enqueueFillBuffer(lane.counters, cl_uint{0}, 0, buckets * sizeof(cl_uint));
        }
        lane.queue.finish();
      }
    }
    s->upload.wall_s = wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
  impl_ = std::move(s);
}

PairHistogram::~PairHistogram() = default;
PairHistogram::PairHistogram(PairHistogram&&) noexcept = default;
PairHistogram& PairHistogram::operator=(PairHistogram&&) noexcept = default;

void PairHistogram::Impl::work(pairwise::HistogramWorker& w, pairwise::RectangleQueue& queue) {
  Stopwatch wall;
  const int wg = w.kernel.work_group_size;
  const bool private_hist = pairwise::private_histogram(w.kernel);
  const bool global64 = w.kernel.global_counter_bits == 64;
  // Waits for a lane's rectangle and counts it; kernel time is the device's busy time, so that two
  // rectangles running at once count once.
  auto retire = [&](pairwise::HistogramLane& lane) {
    if (!lane.rect) return;
    const cl::Event& last = lane.merged() ? lane.merged : lane.run;
    last.wait();
    const auto start = static_cast<double>(lane.run.getProfilingInfo<CL_PROFILING_COMMAND_START>());
    const auto end = static_cast<double>(last.getProfilingInfo<CL_PROFILING_COMMAND_END>());
    w.share.timings.kernel_s += std::max(0.0, end - std::max(start, w.busy_until)) * 1e-9;
    w.busy_until = std::max(w.busy_until, end);
    ++w.share.rectangles;
    w.share.pairs += lane.rect->pairs();
    lane.rect = nullptr;
  };
  int next_lane = 0;
  while (const pairwise::Rect* r = queue.next()) {
    pairwise::HistogramLane& lane = w.lanes[next_lane];
    next_lane = (next_lane + 1) % pairwise::kLanes;
    retire(lane);
    const std::size_t groups = static_cast<std::size_t>((r->rows + wg - 1) / wg);
    const std::size_t splits =
        pairwise::column_splits(w.kernel, groups, static_cast<std::size_t>((r->cols + wg - 1) / wg), w.partial_rows,
                                w.device.info().compute_units);
    with_real(params.precision, [&](auto zero) {
      using T = decltype(zero);
      const auto lo = static_cast<T>(w.frame[0]), hi = static_cast<T>(w.frame[1]), scale = static_cast<T>(w.frame[2]);
      auto common = [&](const auto&... out) {
        set_args(w.count, w.points, static_cast<cl_int>(n), static_cast<cl_int>(r->row0), static_cast<cl_int>(r->rows),
                 static_cast<cl_int>(r->col0), static_cast<cl_int>(r->cols), static_cast<cl_int>(r->diagonal), w.box,
                 lo, hi, scale, w.table, out...);
      };
      if (private_hist)
        common(lane.partial);
      else
        common(global64 ? lane.totals : lane.counters);
    });
    lane.merged = cl::Event();
    lane.queue.enqueueNDRangeKernel(w.count, cl::NullRange, cl::NDRange(groups * static_cast<std::size_t>(wg), splits),
                                    cl::NDRange(static_cast<std::size_t>(wg), 1), nullptr, &lane.run);
    if (private_hist || !global64) {  // seed 000's reduction of the private histograms into the totals
      set_args(w.merge, private_hist ? lane.partial : lane.counters,
               static_cast<cl_int>(private_hist ? groups * splits : 1), lane.totals);
      const std::size_t merge_items = (static_cast<std::size_t>(buckets) + pairwise::kMergeGroup - 1) /
                                      pairwise::kMergeGroup * pairwise::kMergeGroup;
      lane.queue.enqueueNDRangeKernel(w.merge, cl::NullRange, cl::NDRange(merge_items),
                                      cl::NDRange(pairwise::kMergeGroup), nullptr, &lane.merged);
    }
    lane.queue.flush();
    lane.rect = r;
  }
  for (pairwise::HistogramLane& lane : w.lanes) retire(lane);
  w.share.timings.wall_s += wall.seconds();
}

PairHistogramResult PairHistogram::run() {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    const auto buckets = static_cast<std::size_t>(s.buckets);
    for (pairwise::HistogramWorker& w : s.workers) {
      w.share = DeviceShare{.device = w.share.device, .timings = {}};
      w.busy_until = 0;
      for (pairwise::HistogramLane& lane : w.lanes) {
        lane.rect = nullptr;  // a run that failed may have left one in flight: its counts are not this run's
        lane.queue.finish();
        lane.queue.enqueueFillBuffer(lane.totals, cl_ulong{0}, 0, buckets * sizeof(cl_ulong));
      }
    }
    pairwise::RectangleQueue queue(
        pairwise::part_of(pairwise::cut_pair_space(s.n, s.n, true, s.block, s.block), s.params.part, s.params.parts),
        s.params.progress, "pair histogram");
    pairwise::run_workers(static_cast<int>(s.workers.size()), queue,
                          [&](int k) { s.work(s.workers[static_cast<std::size_t>(k)], queue); });
    PairHistogramResult r;
    r.counts.assign(buckets, 0);
    std::vector<cl_ulong> part(buckets);
    for (pairwise::HistogramWorker& w : s.workers) {
      for (pairwise::HistogramLane& lane : w.lanes) {
        cl::Event read;
        lane.queue.enqueueReadBuffer(lane.totals, CL_TRUE, 0, part.size() * sizeof(cl_ulong), part.data(), nullptr,
                                     &read);
        w.share.timings.transfer_s += event_seconds(read);
        for (std::size_t k = 0; k < part.size(); ++k) r.counts[k] += part[k];
      }
      r.shares.push_back(w.share);
      r.total.kernel_s += w.share.timings.kernel_s;
      r.total.transfer_s += w.share.timings.transfer_s;
    }
    if (s.params.binning.kind == Binning::Kind::radii)  // bucket k holds r_k-1 < d <= r_k: sum for d <= r_k
      for (std::size_t k = 1; k < r.counts.size(); ++k) r.counts[k] += r.counts[k - 1];
    r.edges = s.params.binning.bucket_edges();
    r.pairs = pairwise::histogram_pairs(s.n);
    r.kernel = s.workers.front().kernel;
    r.tuning_sources = s.workers.front().tuning_sources;
    r.build_options = s.workers.front().options;
    r.block = s.block;
    r.upload = s.upload;
    r.total.wall_s = wall.seconds();
    return r;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

PairHistogramResult pair_histogram_over_ranks(const Ranks& ranks, const std::vector<Device>& devices,
                                              const Matrix& points, PairHistogramParams params) {
  core::Comm& comm = ranks.comm();
  // Every rank holds all the points and counts its part of the pair space, as `itercl run` over ranks.
  const core::Comm::RowsPlace place = comm.place_rows(points.rows());
  const std::vector<double> values =
      comm.allgatherv<double>(std::span<const double>(points.data(), static_cast<std::size_t>(points.size())));
  const Matrix all = Eigen::Map<const Matrix>(values.data(), place.total, points.cols());
  params.part = comm.rank();
  params.parts = comm.size();
  PairHistogramResult r = PairHistogram(devices, all, params).run();
  const double before = comm.seconds();
  std::vector<std::int64_t> counts(r.counts.begin(), r.counts.end());
  comm.allreduce_sum(counts);  // exact: integers
  r.counts.assign(counts.begin(), counts.end());
  r.total.comm_s = comm.seconds() - before;
  r.total.wall_s += r.total.comm_s;
  return r;
}

}  // namespace itercl
