// PairHistogram: points resident on every device, the pair space's rectangles handed out to them
// dynamically, each device's counts kept in 64-bit totals on the device and read once at the end.
#include "itercl/pair_histogram.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>

#include "core/device_data.hpp"
#include "itercl/error.hpp"
#include "pairwise/pair_space.hpp"
#include "tuning/tuned_kernel.hpp"

namespace itercl {
namespace {

constexpr std::uint64_t kCounterMax = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kPartialBudget = std::size_t{256} << 20;  // bytes of per-group histograms per launch

bool has_int64_atomics(const Device& d) {
  return d.device().getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_int64_base_atomics") != std::string::npos;
}

// Fills in every zero / "auto" field of `k` for this device (tuning/pair_histogram.json, with the
// measurements behind its values) and binning, and checks the rest. `sources` receives the database
// entries used.
PairHistogramKernel resolve(PairHistogramKernel k, const Device& device, int buckets, int table, Eigen::Index dim,
                            Precision precision, std::vector<std::string>& sources) {
  k.validate();
  const DeviceInfo& info = device.info();
  const auto db = tuned_kernel<PairHistogramKernel>("pair_histogram", info, sources, [](const PairHistogramKernel& t) {
    t.validate();
    if (t.variant == "auto" || !t.work_group_size)
      throw ParamError("pair_histogram", "needs variant and work_group_size");
    if (t.global_counter_bits) throw ParamError("pair_histogram", "global_counter_bits follows the device's atomics");
  });
  if (!k.work_group_size)
    k.work_group_size = static_cast<int>(std::min<std::size_t>(db.work_group_size, info.max_work_group_size));
  if (static_cast<std::size_t>(k.work_group_size) > info.max_work_group_size)
    throw ParamError("kernel.work_group_size", std::to_string(k.work_group_size) +
                                                   " exceeds the device's maximum work-group of " +
                                                   std::to_string(info.max_work_group_size));
  const std::size_t real = real_size(precision);
  const std::size_t staged = (static_cast<std::size_t>(k.work_group_size) * dim + table) * real;
  const std::size_t private_bytes = staged + static_cast<std::size_t>(buckets) * 4;
  if (k.variant == "auto")
    k.variant = db.variant.starts_with("private") && private_bytes > info.local_memory ? "tiled" : db.variant;
  const std::size_t needed = k.variant.starts_with("private") ? private_bytes : staged;
  if (needed > info.local_memory)
    throw ParamError("kernel.variant", k.variant + " needs " + std::to_string(needed) + " bytes of local memory for " +
                                           std::to_string(buckets) + " buckets; the device has " +
                                           std::to_string(info.local_memory) +
                                           (k.variant.starts_with("private") ? ": use variant tiled" : ""));
  const bool int64 = has_int64_atomics(device);
  if (!k.global_counter_bits) k.global_counter_bits = int64 ? 64 : 32;
  if (k.global_counter_bits == 64 && !int64)
    throw ParamError("kernel.global_counter_bits",
                     "64 needs cl_khr_int64_base_atomics, which '" + info.name + "' lacks");
  return k;
}

}  // namespace

struct PairHistogram::Impl {
  // One device's share of the work: nested here, since the library's sources are built in batches.
  struct Worker {
    explicit Worker(Device d) : device(std::move(d)) {}
    Device device;
    PairHistogramKernel kernel;
    std::vector<std::string> tuning_sources;
    std::string options;
    cl::CommandQueue queue;
    cl::Kernel count, merge;
    cl::Buffer points, box, table, counters, partial, totals;
    DeviceShare share;
  };

  PairHistogramParams params;
  Eigen::Index n = 0, dim = 0, block = 0;
  int buckets = 0;
  std::vector<double> uniform_frame;  // lo, hi, bins / (hi - lo)
  std::vector<Worker> workers;
  Timings upload;

  void work(Worker& w, RectangleQueue& queue);
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
  const Eigen::RowVectorXd shift = points.colwise().mean();
  const double largest = (points.rowwise() - shift).cwiseAbs().maxCoeff();
  const double limit =
      std::sqrt((precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max()) /
                static_cast<double>(s->dim)) /
      2;
  if (largest >= limit)
    throw InputError("data: coordinates up to " + std::to_string(largest) + " overflow squared distances in " +
                     std::string(precision_name(precision)) + "; rescale the data or use precision double");
  std::vector<unsigned char> packed(static_cast<std::size_t>(points.size()) * real_size(precision));
  pack_column_major(points, precision, packed.data(), shift);
  // Edges and radii go to the device squared, so that no root is taken; an edge below 0 lies below every
  // distance, and so does -1.
  std::vector<double> table{0};
  if (b.kind != Binning::Kind::uniform) {
    table.clear();
    for (double e : b.edges) table.push_back(e < 0 ? -1 : e * e);
  }
  Matrix table_m = Eigen::Map<const Matrix>(table.data(), 1, static_cast<Eigen::Index>(table.size()));
  std::vector<unsigned char> table_bytes(table.size() * real_size(precision));
  pack_row_major(table_m, precision, table_bytes.data());
  std::vector<double> box =
      params.box.empty() ? std::vector<double>(static_cast<std::size_t>(s->dim), 1.0) : params.box;
  Matrix box_m = Eigen::Map<const Matrix>(box.data(), 1, static_cast<Eigen::Index>(box.size()));
  std::vector<unsigned char> box_bytes(box.size() * real_size(precision));
  pack_row_major(box_m, precision, box_bytes.data());

  try {
    std::map<cl_device_id, int> seen;
    Eigen::Index side_limit = s->n;
    for (const Device& d : devices) {
      Impl::Worker w(d);
      w.share.device = d.info().name + " (" + d.info().id() + ")";
      if (const int k = ++seen[d.device()()]; k > 1) w.share.device += " #" + std::to_string(k);
      w.kernel =
          resolve(params.kernel, d, s->buckets, static_cast<int>(table.size()), s->dim, precision, w.tuning_sources);
      const char* binning = b.kind == Binning::Kind::uniform ? "BIN_UNIFORM"
                            : b.kind == Binning::Kind::edges ? "BIN_EDGES"
                                                             : "BIN_RADII";
      std::ostringstream o;
      o << "-D REAL=" << precision_name(precision) << " -D DIM=" << s->dim << " -D N_BINS=" << s->buckets
        << " -D BINNING=" << binning << " -D PERIODIC=" << !params.box.empty()
        << " -D WG_SIZE=" << w.kernel.work_group_size << " -D GLOBAL64=" << (w.kernel.global_counter_bits == 64);
      w.options = o.str();
      const std::string name = w.kernel.variant == "private_hist"            ? "hist_private"
                               : w.kernel.variant == "private_hist_balanced" ? "hist_private_balanced"
                                                                             : "hist_" + w.kernel.variant;
      w.count = d.kernel("pair_histogram.cl", w.options, name.c_str());
      w.merge = d.kernel("pair_histogram.cl", w.options, "hist_merge");
      // Rectangle sides within the counters' range: a work-group's 32-bit local counts stay below 2^32
      // (WG_SIZE anchors x side points), 32-bit global counters below 2^32 per launch (side^2), and the
      // per-group histograms within their budget.
      const auto wg = static_cast<Eigen::Index>(w.kernel.work_group_size);
      Eigen::Index limit = static_cast<Eigen::Index>(kCounterMax / static_cast<std::uint64_t>(wg));
      if (w.kernel.global_counter_bits == 32 && !w.kernel.variant.starts_with("private"))
        limit = std::min<Eigen::Index>(limit, static_cast<Eigen::Index>(std::sqrt(static_cast<double>(kCounterMax))));
      if (w.kernel.variant.starts_with("private"))
        limit = std::min<Eigen::Index>(
            limit, static_cast<Eigen::Index>(kPartialBudget / (static_cast<std::size_t>(s->buckets) * 4)) * wg);
      side_limit = std::min(side_limit, std::max(wg, limit / wg * wg));
      s->workers.push_back(std::move(w));
    }
    // Rectangles aligned to every worker's block, so that a diagonal rectangle's blocks line up.
    Eigen::Index align = 1;
    for (const Impl::Worker& w : s->workers)
      align = std::lcm(align, static_cast<Eigen::Index>(w.kernel.work_group_size));
    side_limit = std::max(align, side_limit / align * align);
    const Eigen::Index fallback =
        default_block(s->n, s->n, true, static_cast<double>(side_limit) * static_cast<double>(side_limit),
                      static_cast<int>(s->workers.size()), align);
    s->block = std::min(params.block ? params.block : fallback, s->n);
    if (s->block < s->n && s->block % align)
      throw ParamError("block",
                       std::to_string(s->block) + " is not a multiple of the work-group size " + std::to_string(align));
    if (s->block > side_limit)
      throw ParamError("block",
                       std::to_string(s->block) + " exceeds the counters' limit of " + std::to_string(side_limit));
    if (b.kind == Binning::Kind::uniform)
      s->uniform_frame = {b.lo, b.hi, b.bins / (b.hi - b.lo)};
    else
      s->uniform_frame = {0, 0, 0};

    Stopwatch wall;
    for (Impl::Worker& w : s->workers) {
      const cl::Context& ctx = w.device.context();
      w.queue = cl::CommandQueue(ctx, w.device.device(), CL_QUEUE_PROFILING_ENABLE);
      auto upload = [&](const std::vector<unsigned char>& bytes) {
        cl::Buffer buffer(ctx, CL_MEM_READ_ONLY, bytes.size());
        cl::Event e;
        w.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, bytes.size(), bytes.data(), nullptr, &e);
        s->upload.transfer_s += event_seconds(e);
        return buffer;
      };
      w.points = upload(packed);
      w.box = upload(box_bytes);
      w.table = upload(table_bytes);
      const auto buckets = static_cast<std::size_t>(s->buckets);
      const std::size_t groups =
          static_cast<std::size_t>((s->block + w.kernel.work_group_size - 1) / w.kernel.work_group_size);
      const bool private_hist = w.kernel.variant.starts_with("private");
      const std::size_t counter_bytes = w.kernel.global_counter_bits == 64 ? 8 : 4;
      w.totals = cl::Buffer(ctx, CL_MEM_READ_WRITE, buckets * 8);
      w.queue.enqueueFillBuffer(w.totals, cl_ulong{0}, 0, buckets * 8);
      if (private_hist) {
        w.partial = cl::Buffer(ctx, CL_MEM_READ_WRITE, groups * buckets * 4);
      } else if (counter_bytes == 4) {
        w.counters = cl::Buffer(ctx, CL_MEM_READ_WRITE, buckets * 4);
        w.queue.enqueueFillBuffer(w.counters, cl_uint{0}, 0, buckets * 4);
      }
      w.queue.finish();
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

void PairHistogram::Impl::work(Worker& w, RectangleQueue& queue) {
  Stopwatch wall;
  const int wg = w.kernel.work_group_size;
  const bool private_hist = w.kernel.variant.starts_with("private");
  const bool global64 = w.kernel.global_counter_bits == 64;
  while (const Rect* r = queue.next()) {
    int arg = 0;
    w.count.setArg(arg++, w.points);
    w.count.setArg(arg++, static_cast<cl_int>(n));
    w.count.setArg(arg++, static_cast<cl_int>(r->row0));
    w.count.setArg(arg++, static_cast<cl_int>(r->rows));
    w.count.setArg(arg++, static_cast<cl_int>(r->col0));
    w.count.setArg(arg++, static_cast<cl_int>(r->cols));
    w.count.setArg(arg++, static_cast<cl_int>(r->diagonal));
    w.count.setArg(arg++, w.box);
    with_real(params.precision, [&](auto zero) {
      using T = decltype(zero);
      for (double v : uniform_frame) w.count.setArg(arg++, static_cast<T>(v));
    });
    w.count.setArg(arg++, w.table);
    const std::size_t groups = static_cast<std::size_t>((r->rows + wg - 1) / wg);
    if (private_hist) {
      w.count.setArg(arg++, cl::Local(static_cast<std::size_t>(buckets) * 4));
      w.count.setArg(arg++, w.partial);
    } else {
      w.count.setArg(arg++, global64 ? w.totals : w.counters);
    }
    cl::Event run, merged;
    w.queue.enqueueNDRangeKernel(w.count, cl::NullRange, cl::NDRange(groups * static_cast<std::size_t>(wg)),
                                 cl::NDRange(static_cast<std::size_t>(wg)), nullptr, &run);
    if (private_hist || !global64) {  // seed 000's reduction of the private histograms into the totals
      w.merge.setArg(0, private_hist ? w.partial : w.counters);
      w.merge.setArg(1, static_cast<cl_int>(private_hist ? groups : 1));
      w.merge.setArg(2, w.totals);
      w.queue.enqueueNDRangeKernel(w.merge, cl::NullRange,
                                   cl::NDRange((static_cast<std::size_t>(buckets) + 63) / 64 * 64), cl::NDRange(64),
                                   nullptr, &merged);
    }
    w.queue.finish();
    w.share.timings.kernel_s += event_seconds(run) + (merged() ? event_seconds(merged) : 0.0);
    ++w.share.rectangles;
    w.share.pairs += r->pairs();
  }
  w.share.timings.wall_s += wall.seconds();
}

PairHistogramResult PairHistogram::run() {
  Impl& s = *impl_;
  try {
    Stopwatch wall;
    for (Impl::Worker& w : s.workers) {
      w.share = DeviceShare{.device = w.share.device, .timings = {}};
      w.queue.enqueueFillBuffer(w.totals, cl_ulong{0}, 0, static_cast<std::size_t>(s.buckets) * 8);
    }
    RectangleQueue queue(cut_pair_space(s.n, s.n, true, s.block, s.block));
    run_workers(static_cast<int>(s.workers.size()), queue,
                [&](int k) { s.work(s.workers[static_cast<std::size_t>(k)], queue); });
    PairHistogramResult r;
    r.counts.assign(static_cast<std::size_t>(s.buckets), 0);
    std::vector<cl_ulong> part(static_cast<std::size_t>(s.buckets));
    for (Impl::Worker& w : s.workers) {
      cl::Event read;
      w.queue.enqueueReadBuffer(w.totals, CL_TRUE, 0, part.size() * 8, part.data(), nullptr, &read);
      w.share.timings.transfer_s += event_seconds(read);
      for (std::size_t k = 0; k < part.size(); ++k) r.counts[k] += part[k];
      r.shares.push_back(w.share);
      r.total.kernel_s += w.share.timings.kernel_s;
      r.total.transfer_s += w.share.timings.transfer_s;
    }
    if (s.params.binning.kind == Binning::Kind::radii)  // bucket k holds r_k-1 < d <= r_k: sum for d <= r_k
      for (std::size_t k = 1; k < r.counts.size(); ++k) r.counts[k] += r.counts[k - 1];
    r.edges = s.params.binning.bucket_edges();
    r.pairs = static_cast<double>(s.n) * static_cast<double>(s.n - 1) / 2;
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

}  // namespace itercl
