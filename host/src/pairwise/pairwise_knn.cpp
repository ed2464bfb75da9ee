// Form knn fused into the distance tiles: which kernel form knn runs on a device, the fused kernel's
// options and local memory, and its launches and reads per rectangle, merged as the tiles' reductions are.
#include "pairwise/pairwise_knn.hpp"

#include <algorithm>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "pairwise/pairwise_stream.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::pairwise {

namespace {

// Candidates queued per row and round at most: the first tile's TILE_COLS candidates of a row take
// TILE_COLS / 16 rounds; later tiles seldom queue any.
constexpr int kMaxQueue = 16;
// Default row blocks per worker when several share the rows (first come first served, as the tiles).
constexpr Eigen::Index kBlocksPerWorker = 8;
constexpr Eigen::Index kRowAlign = 64;

// Local memory of cl/pairwise_knn.cl for `queue` candidates a row: the staged slices, the queues, each
// row's K-th best (value and column) and queue length, two flags.
std::size_t local_bytes(const PairwiseKernel& k, std::size_t real, int queue) {
  const auto rows = static_cast<std::size_t>(k.tile_rows) * static_cast<std::size_t>(k.subtiles);
  const auto cols = static_cast<std::size_t>(k.tile_cols) * static_cast<std::size_t>(k.cols_per_item);
  const auto q = static_cast<std::size_t>(queue);
  return static_cast<std::size_t>(k.slice) * (rows + cols) * real + rows * q * (real + sizeof(cl_int)) +
         rows * (real + 2 * sizeof(cl_int)) + 2 * sizeof(cl_int);
}

// The largest power of two up to kMaxQueue whose queues fit beside the staged slices; 0 if none does.
int queue_length(const PairwiseKernel& k, Precision precision, std::size_t local_memory) {
  for (int q = kMaxQueue; q >= 1; q /= 2)
    if (local_bytes(k, real_size(precision), q) <= local_memory) return q;
  return 0;
}

}  // namespace

void resolve_knn(PairwiseKernel& k, const std::string& tuned, bool expanded_ok, const DeviceInfo& info,
                 Precision precision) {
  const bool runs_of_4 = k.subtiles % 4 == 0 && k.cols_per_item % 4 == 0;
  const bool fits = queue_length(k, precision, info.local_memory) > 0;
  if (k.knn == "auto") k.knn = expanded_ok && runs_of_4 && fits ? tuned : "tiles";
  if (k.knn != "fused") return;
  if (!expanded_ok)
    throw ParamError("kernel.knn",
                     "fused computes euclidean and sqeuclidean in the expanded form, with variant "
                     "auto or expanded; use tiles");
  if (!runs_of_4)
    throw ParamError("kernel.knn", "fused needs subtiles and cols_per_item in multiples of 4, got " +
                                       std::to_string(k.subtiles) + " and " + std::to_string(k.cols_per_item));
  if (!fits)
    throw ParamError("kernel.knn", "fused needs " + std::to_string(local_bytes(k, real_size(precision), 1)) +
                                       " bytes of local memory for this tile; the device has " +
                                       std::to_string(info.local_memory));
}

std::pair<Eigen::Index, Eigen::Index> fused_blocks(const PairwiseParams& params, Eigen::Index n1, Eigen::Index n2,
                                                   Eigen::Index block_rows, Eigen::Index block_cols, int workers) {
  if (params.block_rows || params.block_cols) return {block_rows, block_cols};
  if (workers <= 1) return {n1, n2};
  const Eigen::Index blocks = kBlocksPerWorker * workers;
  const Eigen::Index side = (n1 + blocks - 1) / blocks;
  return {std::min(n1, (side + kRowAlign - 1) / kRowAlign * kRowAlign), n2};
}

FusedKnn::FusedKnn(const DistanceWorker& w, const PairwiseReduction& reduction, const DistanceProblem& problem,
                   Eigen::Index n1, Eigen::Index n2, Eigen::Index dim, bool skip_self, Eigen::Index block_rows,
                   ReductionMerge& merge)
    : worker_(w),
      k_(reduction.k),
      precision_(problem.precision),
      tile_(w.kernel),
      n1_(n1),
      n2_(n2),
      dim_(dim),
      skip_self_(skip_self),
      merge_(merge) {
  const PairwiseKernel& t = tile_;
  Defines o(precision_);
  o.add("K", k_)
      .add("SQRT", problem.metric == Metric::euclidean ? 1 : 0)
      .add("TILE_R", t.tile_rows)
      .add("TILE_C", t.tile_cols)
      .add("ROWS_PER_ITEM", t.subtiles)
      .add("COLS_PER_ITEM", t.cols_per_item)
      .add("SLICE", t.slice)
      .add("QUEUE", queue_length(t, precision_, w.device.info().local_memory));
  options_ = o.str();
  kernel_ = w.device.kernel("pairwise_knn.cl", options_, "knn_fused");
  check_kernel_work_group("kernel.tile_rows x tile_cols", static_cast<long long>(t.tile_rows) * t.tile_cols,
                          kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(w.device.device()));
  const cl::Context& ctx = w.device.context();
  const std::size_t entries = static_cast<std::size_t>(block_rows) * static_cast<std::size_t>(k_);
  for (Slot& s : slots_) {
    s.values = cl::Buffer(ctx, CL_MEM_READ_WRITE, entries * real_size(precision_));
    s.indices = cl::Buffer(ctx, CL_MEM_READ_WRITE, entries * sizeof(cl_int));
  }
}

cl::Event FusedKnn::enqueue(int slot, const Rect& r, cl::CommandQueue& compute, cl::CommandQueue& transfer) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  const DistanceWorker& w = worker_;
  set_args(kernel_, w.x, static_cast<cl_int>(n1_), w.y, static_cast<cl_int>(n2_), static_cast<cl_int>(dim_),
           static_cast<cl_int>(r.row0), static_cast<cl_int>(r.col0), static_cast<cl_int>(r.rows),
           static_cast<cl_int>(r.cols), w.xaux, w.yaux, static_cast<cl_int>(skip_self_), s.values, s.indices);
  const std::size_t per_group = static_cast<std::size_t>(tile_.tile_rows) * static_cast<std::size_t>(tile_.subtiles);
  const std::size_t groups = (static_cast<std::size_t>(r.rows) + per_group - 1) / per_group;
  compute.enqueueNDRangeKernel(
      kernel_, cl::NullRange, cl::NDRange(static_cast<std::size_t>(tile_.tile_cols), groups * tile_.tile_rows),
      cl::NDRange(static_cast<std::size_t>(tile_.tile_cols), tile_.tile_rows), nullptr, &s.kernel);
  const std::vector<cl::Event> after{s.kernel};
  const std::size_t entries = static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(k_);
  s.host_values.resize(entries * real_size(precision_));
  s.host_indices.resize(entries * sizeof(cl_int));
  transfer.enqueueReadBuffer(s.values, CL_FALSE, 0, s.host_values.size(), s.host_values.data(), &after, &s.read_values);
  transfer.enqueueReadBuffer(s.indices, CL_FALSE, 0, s.host_indices.size(), s.host_indices.data(), &after,
                             &s.read_indices);
  compute.flush();
  transfer.flush();
  return s.read_indices;
}

void FusedKnn::drain(int slot, const Rect& r, Timings& t) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  s.read_values.wait();
  merge_.nearest_lines(s.host_values, s.host_indices, precision_, static_cast<int>(r.rows),
                       [&](int line) { return r.row0 + line; });
  t.kernel_s += event_seconds(s.kernel);
  t.transfer_s += event_seconds(s.read_values) + event_seconds(s.read_indices);
}

}  // namespace itercl::pairwise
