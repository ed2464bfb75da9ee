// The all-pairs reductions: their parameters, the kernels' launch and reads per tile slot, and the merge of
// every rectangle's lines on the host (lower index first among equal values, so that the result is the same
// for any rectangles and devices).
#include "pairwise/pairwise_reduce.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/device_data.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl {
namespace pairwise {

// Pairs a threshold slot's buffers hold at first (1 MiB of (i, j, d) in double: small next to a tile); a rectangle that
// finds more grows them to 1.5 times its count and runs again.
constexpr int kInitialPairs = 1 << 16;

template <typename T>
T read_item(const std::vector<unsigned char>& bytes, std::size_t k) {
  T value;
  std::memcpy(&value, bytes.data() + k * sizeof(T), sizeof(T));
  return value;
}

double read_real(const std::vector<unsigned char>& bytes, std::size_t k, Precision p) {
  return p == Precision::f32 ? read_item<float>(bytes, k) : read_item<double>(bytes, k);
}

// (d, i) before (d', i'): the smaller value, then the lower index; index -1 (no candidate) after all, as the
// largest unsigned index.
bool ranks_before(double d, std::int64_t i, double d2, std::int64_t i2) {
  return d < d2 || (d == d2 && static_cast<std::uint64_t>(i) < static_cast<std::uint64_t>(i2));
}

}  // namespace pairwise

void PairwiseReduction::validate() const {
  check_choice("form", form, pairwise::kReductionForms, false);
  if (form == "knn" && (k < 1 || k > pairwise::kMaxNeighbours))
    throw ParamError("k", "expected an integer from 1 to " + std::to_string(pairwise::kMaxNeighbours) + ", got " +
                              std::to_string(k));
  if (form == "threshold" && !std::isfinite(threshold))
    throw ParamError("threshold", "expected a finite number, got " + std::to_string(threshold));
}

namespace pairwise {

std::string reduce_defines(const PairwiseReduction& reduction, Precision precision) {
  Defines o(precision);
  if (reduction.form == "knn") o.add("K", reduction.k);
  return o.str();
}

ReductionMerge::ReductionMerge(const PairwiseReduction& reduction, Eigen::Index rows) : reduction_(reduction) {
  const auto n = static_cast<std::size_t>(rows);
  const double inf = std::numeric_limits<double>::infinity();
  const auto k = static_cast<std::size_t>(reduction.k);
  const std::size_t bytes = reduction.form == "knn"         ? n * k * (sizeof(double) + sizeof(std::int64_t))
                            : reduction.form == "threshold" ? 0
                                                            : n * (3 * sizeof(double) + 2 * sizeof(std::int64_t));
  allocate_host("the reduced rows", bytes, [&] {
    if (reduction.form == "knn") {
      near_.assign(n * k, inf);
      near_at_.assign(near_.size(), -1);
    } else if (reduction.form != "threshold") {
      lo_.assign(n, inf), hi_.assign(n, -inf), sum_.assign(n, 0);
      at_lo_.assign(n, -1), at_hi_.assign(n, -1);
    }
  });
}

void ReductionMerge::stats(Eigen::Index row, double lo, int at_lo, double hi, int at_hi, double sum) {
  const auto r = static_cast<std::size_t>(row);
  std::lock_guard lock(mutex_);
  sum_[r] += sum;
  if (at_lo >= 0 && ranks_before(lo, at_lo, lo_[r], at_lo_[r])) lo_[r] = lo, at_lo_[r] = at_lo;
  // The maximum ranks by -d, so that equal values keep the lower index too.
  if (at_hi >= 0 && ranks_before(-hi, at_hi, -hi_[r], at_hi_[r])) hi_[r] = hi, at_hi_[r] = at_hi;
}

void ReductionMerge::nearest(Eigen::Index row, const std::vector<double>& d, const std::vector<int>& at) {
  const auto k = static_cast<std::size_t>(reduction_.k);
  const std::size_t first = static_cast<std::size_t>(row) * k;
  std::vector<double> d_out(k);
  std::vector<std::int64_t> at_out(k);
  std::lock_guard lock(mutex_);
  // Both lists ascending: a merge of their heads.
  for (std::size_t q = 0, a = 0, b = 0; q < k; ++q) {
    if (ranks_before(d[b], at[b], near_[first + a], near_at_[first + a])) {
      d_out[q] = d[b], at_out[q] = at[b], ++b;
    } else {
      d_out[q] = near_[first + a], at_out[q] = near_at_[first + a], ++a;
    }
  }
  std::copy(d_out.begin(), d_out.end(), near_.begin() + static_cast<std::ptrdiff_t>(first));
  std::copy(at_out.begin(), at_out.end(), near_at_.begin() + static_cast<std::ptrdiff_t>(first));
}

void ReductionMerge::nearest_lines(const std::vector<unsigned char>& values, const std::vector<unsigned char>& indices,
                                   Precision precision, int lines, const std::function<Eigen::Index(int)>& row_of) {
  const auto k = static_cast<std::size_t>(reduction_.k);
  std::vector<double> d(k);
  std::vector<int> at(k);
  for (int line = 0; line < lines; ++line) {
    for (std::size_t q = 0; q < k; ++q) {
      d[q] = read_real(values, static_cast<std::size_t>(line) * k + q, precision);
      at[q] = read_item<cl_int>(indices, static_cast<std::size_t>(line) * k + q);
    }
    nearest(row_of(line), d, at);
  }
}

void ReductionMerge::pairs(const std::vector<NearPair>& found) {
  std::lock_guard lock(mutex_);
  pairs_.insert(pairs_.end(), found.begin(), found.end());
}

ReducedDistances ReductionMerge::finish() {
  ReducedDistances out;
  const std::string& form = reduction_.form;
  if (form == "threshold") {
    out.pairs = std::move(pairs_);
    std::sort(out.pairs.begin(), out.pairs.end(),
              [](const NearPair& a, const NearPair& b) { return a.i < b.i || (a.i == b.i && a.j < b.j); });
    return out;
  }
  out.width = form == "knn" ? reduction_.k : 1;
  if (form == "knn") out.values = std::move(near_), out.indices = std::move(near_at_);
  if (form == "row_min") out.values = std::move(lo_), out.indices = std::move(at_lo_);
  if (form == "row_max") out.values = std::move(hi_), out.indices = std::move(at_hi_);
  if (form == "row_sum") out.values = std::move(sum_);
  return out;
}

}  // namespace pairwise

ReducedDistances merge_reduced_parts(const PairwiseReduction& reduction, Eigen::Index rows,
                                     const std::vector<ReducedDistances>& parts) {
  pairwise::ReductionMerge merge(reduction, rows);
  const std::string& form = reduction.form;
  const auto k = static_cast<std::size_t>(reduction.k);
  for (const ReducedDistances& p : parts) {
    if (form == "threshold") {
      merge.pairs(p.pairs);
      continue;
    }
    std::vector<double> d(k);
    std::vector<int> at(k);
    for (Eigen::Index row = 0; row < rows; ++row) {
      const auto r = static_cast<std::size_t>(row);
      if (form == "knn") {
        for (std::size_t q = 0; q < k; ++q) d[q] = p.values[r * k + q], at[q] = static_cast<int>(p.indices[r * k + q]);
        merge.nearest(row, d, at);
      } else if (form == "row_sum") {
        merge.stats(row, 0, -1, 0, -1, p.values[r]);
      } else if (form == "row_min") {
        merge.stats(row, p.values[r], static_cast<int>(p.indices[r]), 0, -1, 0);
      } else {
        merge.stats(row, 0, -1, p.values[r], static_cast<int>(p.indices[r]), 0);
      }
    }
  }
  return merge.finish();
}

namespace pairwise {

TileReducer::TileReducer(const Device& device, const PairwiseReduction& reduction, Precision precision,
                         Eigen::Index block_rows, Eigen::Index block_cols, bool symmetric, ReductionMerge& merge)
    : reduction_(reduction), precision_(precision), symmetric_(symmetric), merge_(merge), context_(device.context()) {
  const std::string& form = reduction.form;
  const char* name = form == "knn" ? "reduce_knn" : form == "threshold" ? "reduce_threshold" : "reduce_stats";
  kernel_ = device.kernel("pairwise_reduce.cl", reduce_defines(reduction, precision), name);
  const std::size_t real = real_size(precision), lines = static_cast<std::size_t>(block_rows + block_cols);
  std::vector<std::size_t> items;  // bytes per line of each output, in the kernel's argument order
  if (form == "knn") {
    const auto k = static_cast<std::size_t>(reduction.k);
    items = {k * real, k * sizeof(cl_int)};
  } else if (form == "threshold") {
    items = {sizeof(cl_int), sizeof(cl_int), sizeof(cl_int), real};  // the count, then i, j, d per pair
  } else {
    items = {real, sizeof(cl_int), real, sizeof(cl_int), real};
  }
  for (Slot& s : slots_) {
    s.capacity = form == "threshold" ? kInitialPairs : 0;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const std::size_t count = form != "threshold" ? lines : k == 0 ? 1 : static_cast<std::size_t>(s.capacity);
      s.outputs.push_back({cl::Buffer(context_, CL_MEM_READ_WRITE, count * items[k]), {}, items[k]});
    }
  }
}

void TileReducer::launch(Slot& s, const cl::Buffer& tile, const Rect& r, cl::CommandQueue& compute) {
  s.tile = tile;
  s.compute = compute;
  // A rectangle off the diagonal of one input stands for its mirror: its columns are rows of D too.
  const bool mirrored = symmetric_ && !r.diagonal;
  s.lines = static_cast<int>(r.rows + (mirrored ? r.cols : 0));
  // ld first: the tile is packed, its leading dimension is its width.
  const auto ld = static_cast<cl_int>(r.cols), rows = static_cast<cl_int>(r.rows), cols = static_cast<cl_int>(r.cols),
             row0 = static_cast<cl_int>(r.row0), col0 = static_cast<cl_int>(r.col0),
             lines = static_cast<cl_int>(s.lines), symmetric = static_cast<cl_int>(symmetric_);
  const std::vector<Output>& o = s.outputs;
  if (reduction_.form == "threshold") {
    with_real(precision_, [&](auto zero) {
      set_args(kernel_, tile, ld, rows, cols, row0, col0, symmetric, static_cast<decltype(zero)>(reduction_.threshold),
               o[0].device, static_cast<cl_int>(s.capacity), o[1].device, o[2].device, o[3].device);
    });
    compute.enqueueFillBuffer(o[0].device, cl_int{0}, 0, sizeof(cl_int));
  } else if (reduction_.form == "knn") {
    set_args(kernel_, tile, ld, rows, cols, row0, col0, lines, symmetric, o[0].device, o[1].device);
  } else {
    set_args(kernel_, tile, ld, rows, cols, row0, col0, lines, symmetric, o[0].device, o[1].device, o[2].device,
             o[3].device, o[4].device);
  }
  const std::size_t global =
      reduction_.form == "threshold" ? static_cast<std::size_t>(r.rows) : static_cast<std::size_t>(s.lines);
  s.kernels.emplace_back();
  compute.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(global), cl::NullRange, nullptr, &s.kernels.back());
}

cl::Event TileReducer::enqueue(int slot, const cl::Buffer& tile, const Rect& r, cl::CommandQueue& compute,
                               cl::CommandQueue& transfer) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  s.kernels.clear();
  s.reads.clear();
  launch(s, tile, r, compute);
  const std::vector<cl::Event> after{s.kernels.back()};
  // Threshold: the count first; the pairs once the host knows how many.
  const std::size_t outputs = reduction_.form == "threshold" ? 1 : s.outputs.size();
  for (std::size_t k = 0; k < outputs; ++k) {
    Output& o = s.outputs[k];
    const std::size_t bytes = (reduction_.form == "threshold" ? 1 : static_cast<std::size_t>(s.lines)) * o.item;
    o.host.resize(bytes);
    s.reads.emplace_back();
    transfer.enqueueReadBuffer(o.device, CL_FALSE, 0, bytes, o.host.data(), &after, &s.reads.back());
  }
  transfer.flush();
  return s.reads.back();
}

void TileReducer::merge_threshold(Slot& s, const Rect& r) {
  auto count = static_cast<std::size_t>(read_item<cl_int>(s.outputs[0].host, 0));
  if (count > static_cast<std::size_t>(s.capacity)) {
    // Too many pairs for this slot's buffers: larger ones, and this tile again (its distances are still on
    // the device: the next rectangle for this slot waits for this drain). The other slot's kernel may be
    // writing its own buffers now; it grows when it overflows.
    if (count > static_cast<std::size_t>(std::numeric_limits<int>::max() / 2))
      throw InputError("threshold: " + std::to_string(count) +
                       " pairs in one rectangle exceed the reduction's 32-bit counter; lower params.threshold");
    s.capacity = static_cast<int>(count + count / 2);
    for (std::size_t k = 1; k < s.outputs.size(); ++k)
      s.outputs[k].device =
          cl::Buffer(context_, CL_MEM_READ_WRITE, static_cast<std::size_t>(s.capacity) * s.outputs[k].item);
    launch(s, s.tile, r, s.compute);
    s.reads.emplace_back();
    s.compute.enqueueReadBuffer(s.outputs[0].device, CL_TRUE, 0, sizeof(cl_int), s.outputs[0].host.data(), nullptr,
                                &s.reads.back());
    count = static_cast<std::size_t>(read_item<cl_int>(s.outputs[0].host, 0));
  }
  if (count > 0) {
    for (std::size_t k = 1; k < s.outputs.size(); ++k) {
      Output& o = s.outputs[k];
      o.host.resize(count * o.item);
      s.reads.emplace_back();
      s.compute.enqueueReadBuffer(o.device, CL_FALSE, 0, o.host.size(), o.host.data(), nullptr, &s.reads.back());
    }
    s.compute.finish();
  }
  std::vector<NearPair> found(count);
  for (std::size_t q = 0; q < count; ++q)
    found[q] = {read_item<cl_int>(s.outputs[1].host, q), read_item<cl_int>(s.outputs[2].host, q),
                read_real(s.outputs[3].host, q, precision_)};
  merge_.pairs(found);
}

void TileReducer::drain(int slot, const Rect& r, Timings& t) {
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  if (reduction_.form == "threshold") {
    merge_threshold(s, r);
  } else {
    auto row_of = [&](int line) { return line < r.rows ? r.row0 + line : r.col0 + (line - r.rows); };
    const std::vector<Output>& o = s.outputs;
    if (reduction_.form == "knn") {
      merge_.nearest_lines(o[0].host, o[1].host, precision_, s.lines, row_of);
    } else {
      for (int line = 0; line < s.lines; ++line) {
        const auto l = static_cast<std::size_t>(line);
        merge_.stats(row_of(line), read_real(o[0].host, l, precision_), read_item<cl_int>(o[1].host, l),
                     read_real(o[2].host, l, precision_), read_item<cl_int>(o[3].host, l),
                     read_real(o[4].host, l, precision_));
      }
    }
  }
  for (const cl::Event& e : s.kernels) t.kernel_s += event_seconds(e);
  for (const cl::Event& e : s.reads) t.transfer_s += event_seconds(e);
}

}  // namespace pairwise
}  // namespace itercl
