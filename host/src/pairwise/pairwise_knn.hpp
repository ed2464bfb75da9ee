// Form knn with the selection fused into the distance tiles (cl/pairwise_knn.cl, issue 13): the kernel's
// resolution and options, and one worker's launches over its rectangles (internal).
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pair_space.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "pairwise/pairwise_reduce.hpp"

namespace itercl::pairwise {

struct DistanceWorker;

// Resolves k.knn once the knn tile is: "auto" takes `tuned` (the database's choice) where the fused kernel
// computes what was asked (`expanded_ok`: euclidean or sqeuclidean, no direct-sum variant named) and its
// tile has runs of 4 rows and columns, fits the device's work-group and its local memory; else "tiles".
// "fused" where it cannot run is a ParamError naming the field.
void resolve_knn(PairwiseKernel& k, const std::string& tuned, bool expanded_ok, const DeviceInfo& info,
                 Precision precision);

// The fused kernel's rectangles: the rows cut in blocks (the whole rows for one worker; about 8 blocks a
// worker for several), each against every column; `block_rows` / `block_cols` as set in the params
// override both. With one input too: the fused kernel does not mirror, it skips the self-pair.
std::pair<Eigen::Index, Eigen::Index> fused_blocks(const PairwiseParams& params, Eigen::Index n1, Eigen::Index n2,
                                                   Eigen::Index block_rows, Eigen::Index block_cols, int workers);

// One worker's fused kernel and the outputs of its two slots.
class FusedKnn {
 public:
  FusedKnn(const DistanceWorker& w, const PairwiseReduction& reduction, const DistanceProblem& problem, Eigen::Index n1,
           Eigen::Index n2, Eigen::Index dim, bool skip_self, Eigen::Index block_rows, ReductionMerge& merge);
  // Enqueues rectangle `r`'s kernel on `compute` and the reads of its rows' neighbours on `transfer`;
  // returns the last read's event.
  cl::Event enqueue(int slot, const Rect& r, cl::CommandQueue& compute, cl::CommandQueue& transfer);
  // Once that event completed: merges the slot's rows and adds the kernel's and reads' times to `t`.
  void drain(int slot, const Rect& r, Timings& t);
  const std::string& options() const { return options_; }

 private:
  struct Slot {
    cl::Buffer values, indices;
    std::vector<unsigned char> host_values, host_indices;
    cl::Event kernel, read_values, read_indices;
  };
  const DistanceWorker& worker_;
  int k_;
  Precision precision_;
  PairwiseKernel tile_;
  Eigen::Index n1_, n2_, dim_;
  bool skip_self_;
  ReductionMerge& merge_;
  std::string options_;
  cl::Kernel kernel_;
  std::array<Slot, 2> slots_;
};

}  // namespace itercl::pairwise
