// The SMACOF iteration on a device (internal): dissimilarities (and weights) resident, the embedding in
// two device buffers swapped each iteration, only the stress partials read back. Over several MPI ranks
// the device holds a block of delta's rows: each iteration computes the block's rows of the next
// embedding and its part of the stress, and the ranks gather both (one allgather). With packed storage it
// holds a range of the slices (every row's values of some k's): each iteration computes their part of
// every row of the next embedding, and the ranks add the parts and the stress (one allreduce).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_kernel.hpp"

namespace itercl::smacof {

// Halved sums over ordered pairs: the raw stress and (1/2) sum w d^2, both of one embedding.
struct StressSums {
  double stress = 0;
  double squared_distances = 0;
};

// Rows [row, row + rows) (of a block: within it) x columns [column, column + columns) of the dissimilarities,
// checked: how a block too large for the host arrives, a bounded rectangle at a time.
using Rectangle = std::function<Matrix(Eigen::Index row, Eigen::Index rows, Eigen::Index column, Eigen::Index columns)>;

// The rows [first, first + rows) of delta one rank holds, and the communicator of the ranks (a fused
// variant, unweighted). The default, no communicator, is the whole matrix on one device. With packed storage
// the rows are ignored: each rank holds every row of a balanced range of the slices (rank_slices).
struct RowBlock {
  core::Comm* comm = nullptr;
  Eigen::Index first = 0, rows = 0;
};

class SmacofDevice {
 public:
  // Resolves the kernel (for the whole problem, so every rank resolves as one process does), checks
  // memory, builds the kernels and allocates every buffer.
  SmacofDevice(const Device& device, const SmacofKernel& kernel, const Problem& problem, RowBlock block = {});
  ~SmacofDevice();
  SmacofDevice(SmacofDevice&&) noexcept;

  void upload_dissimilarities(const Matrix& delta);    // N x N (a block: its rows x N), checked
  void upload_dissimilarities(const Rectangle& read);  // full storage, a bounded rectangle at a time
  void build_dissimilarities(const RowsView& vectors);
  // From vectors already packed on the device: N x features, column-major, in the device's precision.
  void build_dissimilarities(const cl::Buffer& vectors,
                             Eigen::Index features);               // N x features, by the problem's metric
                                                                   // (a block: its rows of delta only)
  Matrix read_dissimilarities() const;                             // N x N (classical init of vectors)
  void upload_weights(const Matrix& weights, const Matrix& pinv);  // both N x N

  // Uploads the start X_0; the fused variant also runs its first pass (X_1, and sigma(X_0) unused).
  void start(const Matrix& x0, Timings* timings);
  // One iteration: X_m = Guttman transform of X_{m-1}; returns the stress sums of X_m. `ahead` (a fused
  // variant on one device; ignored otherwise): enqueue the next iteration's pass before waiting for this
  // one's stress, for a caller that will iterate again unless the stress stops it (then that pass is
  // wasted).
  StressSums iterate(Timings* timings, bool ahead = false);
  // Whether passes enqueued ahead pay here: a fused variant on one device that is not a CPU, whose worker
  // threads would share the cores with the host thread that waits and adds. On the H200 they took the
  // wall time's excess over the kernels' from 0.034 to 0.014 ms per iteration at N = 16,384
  // (benchmarks/results/nvidia-h200/smacof-storage.csv against smacof-defaults-before.csv).
  bool ahead_pays() const;
  Matrix embedding() const;  // X_m of the last iterate()

  const SmacofKernel& kernel() const;
  std::size_t delta_buffers() const;  // the buffers delta is cut into (smacof_parts.hpp)
  const std::string& build_options() const;
  const std::vector<std::string>& tuning_sources() const;  // the database entries the defaults came from
  Timings upload_timings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace itercl::smacof
