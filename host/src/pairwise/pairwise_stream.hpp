// PairwiseDistances' state (internal): each device's worker, with its two queues and two tile slots, and
// the rectangles streamed through them (pairwise_stream.cpp), apart from the setup and the results'
// assembly (pairwise.cpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/pinned_buffer.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pair_space.hpp"
#include "pairwise/pairwise_reduce.hpp"

namespace itercl {
namespace pairwise {

// One device's share of the work: the kernel resolved for it, the inputs uploaded to it, two tile slots
// on the device (and on the host once a run brings tiles there), and what it computed.
class FusedKnn;

struct DistanceWorker {
  explicit DistanceWorker(Device d) : device(std::move(d)) {}
  Device device;
  std::string name;
  PairwiseKernel kernel;
  std::vector<std::string> tuning_sources;
  std::string options;
  cl::CommandQueue compute, transfer;
  cl::Kernel program;
  cl::Buffer x, y, xaux, yaux;
  std::array<cl::Buffer, 2> tile;
  std::array<PinnedHostBuffer, 2> host;
  DeviceShare share;
};

}  // namespace pairwise

struct PairwiseDistances::Impl {
  PairwiseParams params;
  Metric metric;  // as computed (minkowski 1 and 2 by their special forms)
  Eigen::Index n1 = 0, n2 = 0, dim = 0;
  bool symmetric = false;
  Eigen::Index block_rows = 0, block_cols = 0;
  std::vector<pairwise::DistanceWorker> workers;
  Timings upload;

  // Everything but the inputs' buffers: checks, kernels, rectangle sizes, queues, tiles (pairwise.cpp).
  // `cols` null: one input.
  void setup(const std::vector<Device>& devices, const PairwiseParams& p, Eigen::Index rows, const Eigen::Index* cols,
             Eigen::Index features);
  bool inner_products() const;  // whether the kernels read xaux / yaux

  // Each rectangle to `sink`, or with `reducers` (one per worker) reduced on the device and merged, or with
  // `fused` (one per worker) its k nearest computed by the fused kernel instead of its distances.
  void work(pairwise::DistanceWorker& w, pairwise::RectangleQueue& queue, const PairSink& sink,
            pairwise::TileReducer* reducer, pairwise::FusedKnn* fused);
  PairwiseRun run(const PairSink& sink, std::vector<pairwise::TileReducer>* reducers,
                  std::vector<pairwise::FusedKnn>* fused = nullptr);
};

}  // namespace itercl
