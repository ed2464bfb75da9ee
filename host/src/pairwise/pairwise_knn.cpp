// Form knn with the selection fused into the distance computation: which kernel form knn runs on a device
// (tiles, fused or rows), the kernel's options and local memory, and its launches and reads per rectangle,
// merged as the tiles' reductions are.
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

// knn_rows: columns staged at a time, and the 32-bit registers a work-item's rows may take (its rows x
// the padded dimensions, twice that in double). On the H200 2 rows of 64 (128) built with 163 registers and
// no spill; 3 rows of 64 (192, the limit) ran, slower (179.6 ms against 160 at 200,000 points).
constexpr int kRowsColumns = 64;
constexpr int kMaxRowRegisters = 192;
// knn_rows' rows per work-item are halved while the rectangle's rows would fill fewer than this many work-groups
// per compute unit: on the H200 (d = 64, 128 work-items) 2 rows a work-item took 17.5 ms at 50,000 points
// (196 groups, 1.5 a unit) against 13.4 with 1, and 29.0 at 70,000 (274 groups, 2.1 a unit) against 33.2.
constexpr std::size_t kRowsGroupsPerUnit = 2;
// Where even 1 row a work-item leaves fewer groups than that, knn_rows cuts the columns into splits (up to
// this many, none under kRowsColumns columns), merged by knn_merge: at 5,000 points the H200's 132 units
// had 40 groups of 128 rows, 1.05 ms, and 7 splits took 0.40 (10,000: 1.86 to 0.95; 20,000: 4.31 to 2.96).
// Splitting past 2 groups a unit lost everywhere measured (50,000: 13.4 ms unsplit, 14.8 to 15.1 with 2 or
// 3 splits; 100,000: 41.1 against 43.4 to 48.3; benchmarks/results/nvidia-h200/knn-split/).
constexpr std::size_t kMaxSplits = 16;
constexpr std::size_t kMergeItems = 64;  // knn_merge's work-group: one row a work-item

int padded_dim(int dim) { return (dim + 3) / 4 * 4; }

// Local memory of knn_fused: two buffers of staged slices, or (the same memory, later) one work-item
// column's lists of a tile's TILE_R rows for the last merge, at the largest k (so that whether fused runs
// does not depend on k). Of knn_rows: the staged columns and their norms.
std::size_t local_bytes(const PairwiseKernel& k, int dim, std::size_t real) {
  if (knn_form(k.knn).rows_in_registers)
    return kRowsColumns * (static_cast<std::size_t>(padded_dim(dim)) + 4 + 1) * real;
  const auto rows = static_cast<std::size_t>(k.knn_tile_rows) * static_cast<std::size_t>(k.knn_subtiles);
  const auto cols = static_cast<std::size_t>(k.knn_tile_cols) * static_cast<std::size_t>(k.knn_cols_per_item);
  const std::size_t stage = 2 * static_cast<std::size_t>(k.knn_slice) * (rows + cols) * real;
  const std::size_t merge =
      static_cast<std::size_t>(k.knn_tile_rows) * static_cast<std::size_t>(kMaxNeighbours) * (real + sizeof(cl_int));
  return std::max(stage, (merge + 15) / 16 * 16);
}

// Why the knn tile of `k` cannot run its fused search (form k.knn) on this device and problem; empty if it can.
std::string cannot_run(const PairwiseKernel& k, const DistanceProblem& problem, const DeviceInfo& info) {
  const std::string& form = k.knn;
  const bool rows = knn_form(form).rows_in_registers;
  const long long items = static_cast<long long>(k.knn_tile_rows) * k.knn_tile_cols;
  if (!rows && (k.knn_subtiles % 4 || k.knn_cols_per_item % 4))
    return form + " needs knn_subtiles and knn_cols_per_item in multiples of 4, got " + std::to_string(k.knn_subtiles) +
           " and " + std::to_string(k.knn_cols_per_item);
  if (rows) {
    if (k.knn_tile_cols != 1) return form + " runs one work-item per row set: knn_tile_cols must be 1";
    const int registers = k.knn_subtiles * padded_dim(problem.dim) * static_cast<int>(real_size(problem.precision) / 4);
    if (registers > kMaxRowRegisters)
      return form +
             " holds knn_subtiles x the dimensions (rounded up to 4) in registers: " + std::to_string(k.knn_subtiles) +
             " x " + std::to_string(padded_dim(problem.dim)) + " is " + std::to_string(registers) +
             " registers, more than " + std::to_string(kMaxRowRegisters) + "; use fused or tiles";
    if (kRowsColumns % k.knn_cols_per_item)
      return form + " takes knn_cols_per_item columns a step of " + std::to_string(kRowsColumns) +
             ": a power of two, got " + std::to_string(k.knn_cols_per_item);
  }
  if (static_cast<std::uint64_t>(items) > info.max_work_group_size)
    return form + " needs " + std::to_string(items) +
           " work-items a group (knn_tile_rows x knn_tile_cols); the device has " +
           std::to_string(info.max_work_group_size);
  if (const std::size_t bytes = local_bytes(k, problem.dim, real_size(problem.precision)); bytes > info.local_memory)
    return form + " needs " + std::to_string(bytes) + " bytes of local memory for this tile; the device has " +
           std::to_string(info.local_memory);
  return {};
}

}  // namespace

void resolve_knn(PairwiseKernel& k, const PairwiseKernel& tuned, bool expanded_ok, const DistanceProblem& problem,
                 const DeviceInfo& info) {
  // k as asked, running `form` with its knn tile: each field as given, else the database's where the database
  // names this form (its tile was measured for it), else the form's own default.
  const auto with_tile = [&](const std::string& form) {
    PairwiseKernel t = k;
    t.knn = form;
    const PairwiseKernel& own = knn_form(form).rows_in_registers ? kRowsTile : kFusedTile;
    const auto fill = [measured = form == tuned.knn](int& field, int database, int fallback) {
      if (!field) field = measured && database ? database : fallback;
    };
    fill(t.knn_tile_rows, tuned.knn_tile_rows, own.knn_tile_rows);
    fill(t.knn_tile_cols, tuned.knn_tile_cols, own.knn_tile_cols);
    fill(t.knn_subtiles, tuned.knn_subtiles, own.knn_subtiles);
    fill(t.knn_cols_per_item, tuned.knn_cols_per_item, own.knn_cols_per_item);
    fill(t.knn_slice, tuned.knn_slice, own.knn_slice);
    return t;
  };
  if (k.knn == "auto") {
    // The database's form; where it cannot run (rows: too many dimensions for its registers), the forms its
    // table entry falls back to, down to one without a fused search (tiles), which runs anywhere.
    const KnnForm* form = &knn_form(tuned.knn);
    for (; form->entry && expanded_ok; form = &knn_form(form->fallback))
      if (PairwiseKernel t = with_tile(std::string(form->name)); cannot_run(t, problem, info).empty()) {
        k = t;
        return;
      }
    while (form->entry) form = &knn_form(form->fallback);
    k = with_tile(std::string(form->name));
    return;
  }
  k = with_tile(k.knn);
  if (!fused_search(k)) return;
  if (!expanded_ok)
    throw ParamError("kernel.knn", k.knn +
                                       " computes euclidean and sqeuclidean in the expanded form, with variant "
                                       "auto or expanded; use tiles");
  if (const std::string why = cannot_run(k, problem, info); !why.empty()) throw ParamError("kernel.knn", why);
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
  o.add("K", k_).add("SQRT", problem.metric == Metric::euclidean ? 1 : 0);
  if (knn_form(t.knn).rows_in_registers) {
    // Fewer rows a work-item where the rectangle's rows would leave the device's units short of work-groups
    // (the build options, not the resolved kernel, show the rows a work-item built).
    const auto groups = [&](int rows_per_item) {
      const auto per_group = static_cast<std::size_t>(t.knn_tile_rows) * static_cast<std::size_t>(rows_per_item);
      return (static_cast<std::size_t>(block_rows) + per_group - 1) / per_group;
    };
    const std::size_t wanted = kRowsGroupsPerUnit * w.device.info().compute_units;
    while (tile_.knn_subtiles > 1 && groups(tile_.knn_subtiles) < wanted) tile_.knn_subtiles /= 2;
    if (const std::size_t have = groups(tile_.knn_subtiles); have < wanted)
      splits_ = std::min({kMaxSplits, (wanted + have - 1) / have,
                          std::max<std::size_t>(1, static_cast<std::size_t>(n2) / kRowsColumns)});
    o.add("DIM", padded_dim(static_cast<int>(dim)))
        .add("WG", t.knn_tile_rows)
        .add("RPI", t.knn_subtiles)
        .add("COLS", kRowsColumns)
        .add("CPS", t.knn_cols_per_item)
        .add("SPLITS", static_cast<int>(splits_));
  } else
    o.add("TILE_R", t.knn_tile_rows)
        .add("TILE_C", t.knn_tile_cols)
        .add("ROWS_PER_ITEM", t.knn_subtiles)
        .add("COLS_PER_ITEM", t.knn_cols_per_item)
        .add("SLICE", t.knn_slice);
  options_ = o.str();
  const KnnForm& form = knn_form(t.knn);
  kernel_ = w.device.kernel(form.file, options_, form.entry);
  check_kernel_work_group("kernel.knn_tile_rows x knn_tile_cols",
                          static_cast<long long>(t.knn_tile_rows) * t.knn_tile_cols,
                          kernel_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(w.device.device()));
  const cl::Context& ctx = w.device.context();
  const std::size_t entries = static_cast<std::size_t>(block_rows) * static_cast<std::size_t>(k_);
  for (Slot& s : slots_) {
    s.values = cl::Buffer(ctx, CL_MEM_READ_WRITE, entries * real_size(precision_));
    s.indices = cl::Buffer(ctx, CL_MEM_READ_WRITE, entries * sizeof(cl_int));
  }
  if (splits_ > 1) {  // the splits' lists, merged before each read (one compute queue: one set serves both slots)
    merge_kernel_ = w.device.kernel("pairwise_knn.cl", options_, "knn_merge");
    split_values_ = cl::Buffer(ctx, CL_MEM_READ_WRITE, splits_ * entries * real_size(precision_));
    split_indices_ = cl::Buffer(ctx, CL_MEM_READ_WRITE, splits_ * entries * sizeof(cl_int));
  }
}

cl::Event FusedKnn::enqueue(int slot, const Rect& r, cl::CommandQueue& compute, cl::CommandQueue& transfer) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  const DistanceWorker& w = worker_;
  const bool split = splits_ > 1;
  set_args(kernel_, w.x, static_cast<cl_int>(n1_), w.y, static_cast<cl_int>(n2_), static_cast<cl_int>(dim_),
           static_cast<cl_int>(r.row0), static_cast<cl_int>(r.col0), static_cast<cl_int>(r.rows),
           static_cast<cl_int>(r.cols), w.xaux, w.yaux, static_cast<cl_int>(skip_self_),
           split ? split_values_ : s.values, split ? split_indices_ : s.indices);
  const auto tile_rows = static_cast<std::size_t>(tile_.knn_tile_rows);
  const auto tile_cols = static_cast<std::size_t>(tile_.knn_tile_cols);
  // A group owns tile_rows x knn_subtiles rows; knn_rows' groups are 1-D (its tile_cols is 1).
  const std::size_t per_group = tile_rows * static_cast<std::size_t>(tile_.knn_subtiles);
  const std::size_t groups = (static_cast<std::size_t>(r.rows) + per_group - 1) / per_group;
  const bool rows = knn_form(tile_.knn).rows_in_registers;
  const cl::NDRange global =
      rows ? cl::NDRange(groups * tile_rows, splits_) : cl::NDRange(tile_cols, groups * tile_rows);
  const cl::NDRange local = rows ? cl::NDRange(tile_rows, 1) : cl::NDRange(tile_cols, tile_rows);
  compute.enqueueNDRangeKernel(kernel_, cl::NullRange, global, local, nullptr, &s.kernel);
  s.merge = cl::Event();
  if (split) {
    set_args(merge_kernel_, split_values_, split_indices_, static_cast<cl_int>(r.rows), s.values, s.indices);
    compute.enqueueNDRangeKernel(
        merge_kernel_, cl::NullRange,
        cl::NDRange((static_cast<std::size_t>(r.rows) + kMergeItems - 1) / kMergeItems * kMergeItems),
        cl::NDRange(kMergeItems), nullptr, &s.merge);
  }
  const std::vector<cl::Event> after{split ? s.merge : s.kernel};
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
  t.kernel_s += event_seconds(s.kernel) + (s.merge() ? event_seconds(s.merge) : 0.0);
  t.transfer_s += event_seconds(s.read_values) + event_seconds(s.read_indices);
}

}  // namespace itercl::pairwise
