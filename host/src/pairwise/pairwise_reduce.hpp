// The on-device reductions of the all-pairs rectangles (cl/pairwise_reduce.cl) and their merge on the
// host across rectangles and devices (internal; PairwiseDistances::reduce drives them).
#pragma once

#include <array>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pair_space.hpp"

namespace itercl::pairwise {

// Every rectangle's reduced lines, merged from any worker's thread into the result for D's rows.
class ReductionMerge {
 public:
  ReductionMerge(const PairwiseReduction& reduction, Eigen::Index rows);
  // Row `row`'s candidates in one rectangle: index -1 where it had none.
  void stats(Eigen::Index row, double lo, int at_lo, double hi, int at_hi, double sum);
  // Row `row`'s k nearest in one rectangle, ascending, index -1 past the ones it had.
  void nearest(Eigen::Index row, const std::vector<double>& d, const std::vector<int>& at);
  // `lines` rows' k nearest as a device wrote them (k values, k cl_int columns a line, line l being row
  // row_of(l)), each merged as above.
  void nearest_lines(const std::vector<unsigned char>& values, const std::vector<unsigned char>& indices,
                     Precision precision, int lines, const std::function<Eigen::Index(int)>& row_of);
  void pairs(const std::vector<NearPair>& found);
  ReducedDistances finish();

 private:
  PairwiseReduction reduction_;
  std::mutex mutex_;
  std::vector<double> lo_, hi_, sum_, near_;
  std::vector<std::int64_t> at_lo_, at_hi_, near_at_;
  std::vector<NearPair> pairs_;
};

// One worker's reduction kernel and its output buffers for the two tile slots.
class TileReducer {
 public:
  TileReducer(const Device& device, const PairwiseReduction& reduction, Precision precision, Eigen::Index block_rows,
              Eigen::Index block_cols, bool symmetric, ReductionMerge& merge);
  // Enqueues the reduction of `tile` (slot `slot`, holding rectangle `r`) on `compute`, after the distances
  // there, and the reads of its results on `transfer`; returns the last read's event.
  cl::Event enqueue(int slot, const cl::Buffer& tile, const Rect& r, cl::CommandQueue& compute,
                    cl::CommandQueue& transfer);
  // Once that event completed: merges the slot's lines (threshold: first grows the buffers and runs again
  // on the same tile if pairs overflowed), and adds the kernels' and reads' times to `t`.
  void drain(int slot, const Rect& r, Timings& t);

 private:
  struct Output {
    cl::Buffer device;
    std::vector<unsigned char> host;
    std::size_t item;  // bytes per line
  };
  struct Slot {
    std::vector<Output> outputs;
    std::vector<cl::Event> kernels, reads;
    int lines = 0;
    int capacity = 0;  // threshold: pairs its buffers hold
    cl::Buffer tile;   // the rectangle it reduced last, and the queue that computed it
    cl::CommandQueue compute;
  };

  void launch(Slot& s, const cl::Buffer& tile, const Rect& r, cl::CommandQueue& compute);
  void merge_threshold(Slot& s, const Rect& r);

  PairwiseReduction reduction_;
  Precision precision_;
  bool symmetric_;
  ReductionMerge& merge_;
  cl::Context context_;
  cl::Kernel kernel_;
  std::array<Slot, 2> slots_;
};

// Form knn's largest k: cl/pairwise_reduce.cl and cl/pairwise_knn.cl keep the lists in private arrays.
constexpr int kMaxNeighbours = 64;

// The reduction forms, as PairwiseReduction::form names them.
inline const std::initializer_list<std::string_view> kReductionForms = {"row_min", "row_max", "row_sum", "knn",
                                                                        "threshold"};

// The -D options of cl/pairwise_reduce.cl.
std::string reduce_defines(const PairwiseReduction& reduction, Precision precision);

}  // namespace itercl::pairwise
