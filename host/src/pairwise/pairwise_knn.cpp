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

// Default row blocks per worker when several share the rows (first come first served, as the tiles).
constexpr Eigen::Index kBlocksPerWorker = 8;
constexpr Eigen::Index kRowAlign = 64;

// Local memory of cl/pairwise_knn.cl: two buffers of staged slices, or (the same memory, later) one
// work-item column's lists of a tile's TILE_R rows for the last merge, at the largest k (so that whether
// fused runs does not depend on k).
std::size_t local_bytes(const PairwiseKernel& k, std::size_t real) {
  const auto rows = static_cast<std::size_t>(k.knn_tile_rows) * static_cast<std::size_t>(k.knn_subtiles);
  const auto cols = static_cast<std::size_t>(k.knn_tile_cols) * static_cast<std::size_t>(k.knn_cols_per_item);
  const std::size_t stage = 2 * static_cast<std::size_t>(k.knn_slice) * (rows + cols) * real;
  const std::size_t merge =
      static_cast<std::size_t>(k.knn_tile_rows) * static_cast<std::size_t>(kMaxNeighbours) * (real + sizeof(cl_int));
  return std::max(stage, (merge + 15) / 16 * 16);
}

}  // namespace

void resolve_knn(PairwiseKernel& k, const std::string& tuned, bool expanded_ok, const DeviceInfo& info,
                 Precision precision) {
  const bool runs_of_4 = k.knn_subtiles % 4 == 0 && k.knn_cols_per_item % 4 == 0;
  const long long items = static_cast<long long>(k.knn_tile_rows) * k.knn_tile_cols;
  const bool launches = static_cast<std::uint64_t>(items) <= info.max_work_group_size;
  const bool fits = local_bytes(k, real_size(precision)) <= info.local_memory;
  if (k.knn == "auto") k.knn = expanded_ok && runs_of_4 && launches && fits ? tuned : "tiles";
  if (k.knn != "fused") return;
  if (!expanded_ok)
    throw ParamError("kernel.knn",
                     "fused computes euclidean and sqeuclidean in the expanded form, with variant "
                     "auto or expanded; use tiles");
  if (!runs_of_4)
    throw ParamError("kernel.knn", "fused needs knn_subtiles and knn_cols_per_item in multiples of 4, got " +
                                       std::to_string(k.knn_subtiles) + " and " + std::to_string(k.knn_cols_per_item));
  check_device_work_group("kernel.knn_tile_rows x knn_tile_cols", items, info);
  if (!fits)
    throw ParamError("kernel.knn", "fused needs " + std::to_string(local_bytes(k, real_size(precision))) +
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
      .add("TILE_R", t.knn_tile_rows)
      .add("TILE_C", t.knn_tile_cols)
      .add("ROWS_PER_ITEM", t.knn_subtiles)
      .add("COLS_PER_ITEM", t.knn_cols_per_item)
      .add("SLICE", t.knn_slice);
  options_ = o.str();
  kernel_ = w.device.kernel("pairwise_knn.cl", options_, "knn_fused");
  check_kernel_work_group("kernel.knn_tile_rows x knn_tile_cols",
                          static_cast<long long>(t.knn_tile_rows) * t.knn_tile_cols,
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
  const auto tile_rows = static_cast<std::size_t>(tile_.knn_tile_rows);
  const auto tile_cols = static_cast<std::size_t>(tile_.knn_tile_cols);
  const std::size_t per_group = tile_rows * static_cast<std::size_t>(tile_.knn_subtiles);
  const std::size_t groups = (static_cast<std::size_t>(r.rows) + per_group - 1) / per_group;
  compute.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(tile_cols, groups * tile_rows),
                               cl::NDRange(tile_cols, tile_rows), nullptr, &s.kernel);
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
