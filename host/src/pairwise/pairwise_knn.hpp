// Form knn with the selection fused into the distance computation (cl/pairwise_knn.cl, issue 13): the
// kernel's resolution and options, and one worker's launches over its rectangles (internal).
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

// Each form's knn tile where neither the config nor the database gives one, the fastest the H200 measured
// at d = 64 (benchmarks/results/nvidia-h200/knn-fused/): fused 32 x 8 work-items of 4 x 8, slice 8; rows
// 128 work-items of 2 rows, 4 columns a step (it has no slice).
inline const PairwiseKernel kFusedTile{
    .knn_tile_rows = 32, .knn_tile_cols = 8, .knn_subtiles = 4, .knn_cols_per_item = 8, .knn_slice = 8};
inline const PairwiseKernel kRowsTile{
    .knn_tile_rows = 128, .knn_tile_cols = 1, .knn_subtiles = 2, .knn_cols_per_item = 4};

// Resolves k.knn and its knn tile once the distances' tile is. "auto" takes the database's form (`tuned`:
// tiles, fused or rows) where it computes what was asked (`expanded_ok`: euclidean or sqeuclidean, no
// direct-sum variant named) and its knn tile can run it on the device for this problem (fused: runs of 4
// rows and columns; rows: one work-item a row set and few dimensions; both: the work-group and local
// memory); where rows cannot, fused; else "tiles". Each knn tile field is as given, else the database's
// where it names that form, else the form's own default (kFusedTile, kRowsTile). A form named where it
// cannot run is a ParamError naming kernel.knn and why.
void resolve_knn(PairwiseKernel& k, const PairwiseKernel& tuned, bool expanded_ok, const DistanceProblem& problem,
                 const DeviceInfo& info);

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
  // Enqueues rectangle `r`'s kernel on `compute` (rows with split columns: then knn_merge) and the reads of
  // its rows' neighbours on `transfer`; returns the last read's event.
  cl::Event enqueue(int slot, const Rect& r, cl::CommandQueue& compute, cl::CommandQueue& transfer);
  // Once that event completed: merges the slot's rows and adds the kernel's and reads' times to `t`.
  void drain(int slot, const Rect& r, Timings& t);
  const std::string& options() const { return options_; }

 private:
  struct Slot {
    cl::Buffer values, indices;
    std::vector<unsigned char> host_values, host_indices;
    cl::Event kernel, merge, read_values, read_indices;
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
  // rows: the columns' splits (SPLITS), their lists and knn_merge, where splits_ > 1.
  std::size_t splits_ = 1;
  cl::Kernel merge_kernel_;
  cl::Buffer split_values_, split_indices_;
  std::array<Slot, 2> slots_;
};

}  // namespace itercl::pairwise
