// SmacofDevice's state (internal to smacof_device.cpp, which sets it up and uploads, and
// smacof_iteration.cpp, which enqueues the iterations).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/pinned_buffer.hpp"
#include "itercl/opencl.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_parts.hpp"

namespace itercl::smacof {

inline std::size_t round_up(std::size_t n, std::size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

struct SmacofDevice::Impl {
  Impl(Device d, SmacofKernel kernel, Problem p, RowBlock b)
      : device(std::move(d)), k(std::move(kernel)), problem(p), block(b) {
    if (!block.comm) block.rows = problem.n;
  }

  Device device;
  SmacofKernel k;
  Problem problem;
  RowBlock block;  // rows = N without a communicator
  std::vector<std::string> tuning_sources;
  std::string options;
  cl::Kernel bccalc, stress, fused, finish, pinv_kernel;
  // delta and the weights (empty unless weighted) in the buffers `layout` cuts them into; the seed
  // variants read one buffer.
  DeltaLayout layout;
  // The slices whose partial rows this device holds, from slice_base: all of them, but for packed storage
  // over ranks (the rank's range, rank_slices; maybe none).
  int slice_base = 0, slices_held = 0;
  std::vector<cl::Buffer> delta, weights;
  cl::Buffer pinv, bx, partial_bx;
  cl::Buffer partial_ring;       // the symmetric pass's window sums (cl/smacof.clh's banner)
  cl::Buffer partial_stress[2];  // two slots: a pass enqueued ahead writes the one not being read
  // The embeddings: x[0] and x[1] swapped each iteration; a fused pass on one device also uses x[2], so
  // that the pass one iteration ahead writes neither the iterate returned nor the one it reads.
  cl::Buffer x[3];
  int current = 0;  // the buffer holding the latest iterate's embedding
  int latest = 1;   // fused, one device: the buffer holding the next iterate (current's transform)
  int slot = 0;     // fused, one device: the stress slot the next pass writes
  // A fused pass on one device, enqueued with the non-blocking read of its stress partials.
  struct Pass {
    std::vector<cl::Event> events;
    cl::Event read;
    int slot = 0, dst = 0;
  };
  std::optional<Pass> ahead;  // the next iteration's pass, enqueued before this one's stress was read
  // Over ranks, full storage: the next pass's slices over the block's own columns, queued before the
  // exchange of X (own_slices) on a queue of their own, so that the rest of the pass, queued after the
  // exchange, can start while they run (one queue would hold it back until their last work-groups end);
  // and their launches.
  cl::CommandQueue own_queue;
  bool own_ahead = false;
  std::vector<cl::Event> own_events;
  // Over ranks: x[0] holds the whole X_m, x[1] the block's rows of X_{m+1} (packed: the rank's part of it);
  // the host keeps X_m (for embedding()) and the gathered X_{m+1}, in the device's precision, page-locked:
  // both cross the bus every iteration.
  std::size_t rows_global = 0, fused_global = 0, stress_pairs = 0;
  PinnedHostBuffer x_host, stress_host, x_all, x_gathered;
  // Packed over ranks: the allreduce's N x D row sums and two stress sums in double, allocated once (a
  // fresh vector each iteration paid its page faults and zeroing every time).
  std::vector<double> rank_sums;
  Timings upload;

  std::size_t real() const { return real_size(problem.precision); }
  bool packed() const { return k.packed == YesNo::yes; }
  bool symmetric() const { return k.symmetric == YesNo::yes; }
  std::size_t stress_bytes() const { return 2 * stress_pairs * real(); }
  bool over_ranks() const { return block.comm != nullptr; }
  std::size_t rows() const { return static_cast<std::size_t>(block.rows); }
  cl::NDRange local() const { return cl::NDRange(static_cast<std::size_t>(k.work_group_size)); }
  // Part p's buffer of weights the kernels take: delta's itself when unweighted (WEIGHTED 0 never reads it).
  const cl::Buffer& weights_or_delta(std::size_t p) const { return weights.empty() ? delta[p] : weights[p]; }
  // Writes `buffers` as `layout` cuts them, a bounded rectangle of values at a time from rect(r0, rows, c0,
  // columns) (smacof_device.cpp, which alone calls it).
  template <class Rect>
  void write_parts(const std::vector<cl::Buffer>& buffers, const Rect& rect);

  // B(X) X's scale: 1/N unweighted; weighted, 1 (V+ is applied after); 1 for packed storage over ranks,
  // whose host scales the ranks' sum.
  double transform_scale() const {
    return problem.weighted || (over_ranks() && packed()) ? 1.0 : 1.0 / static_cast<double>(problem.n);
  }

  // Weighted: applies V+ to B(X) X, into x[dst]; unweighted, nothing (the scale did it).
  void transform_tail(int dst, std::vector<cl::Event>& events);
  // A fused pass from x[src] into x[dst], its stress partials into stress slot `slot`: the fused kernel over
  // every slice held (fused_slices: those of `range` but not of `skip`), then the finish that adds the slices' partial
  // rows (fused_finish).
  void fused_pass(int src, int dst, int slot, std::vector<cl::Event>& events);
  // On `queue` (the device's by default), after `after` where given.
  void fused_slices(int src, int slot, SliceRange range, SliceRange skip, std::vector<cl::Event>& events,
                    cl::CommandQueue* queue = nullptr, const std::vector<cl::Event>* after = nullptr);
  void fused_finish(int dst, std::vector<cl::Event>& events);
  // Over ranks, full storage: the slices whose columns all lie in the block's own rows, whose pass needs
  // no other rank's rows of X (empty when the block holds no whole slice).
  SliceRange own_slices() const;
  // Reads stress slot 0 (blocking) and adds its partials: the kernels in `events` made them.
  StressSums read_stress(std::vector<cl::Event>& events, Timings* timings, const Stopwatch& wall);
  // Adds the partials of a slot already read (by `read`), and the pass's times to `timings`.
  StressSums stress_sums(const std::vector<cl::Event>& events, const cl::Event& read, int slot, Timings* timings,
                         const Stopwatch& wall);
  // One device, fused: the pass from x[latest] into the buffer neither current nor latest holds, and the
  // non-blocking read of its stress partials; the pass is waited for by finish_pass.
  Pass enqueue_pass();
  StressSums finish_pass(Pass& pass, Timings* timings, const Stopwatch& wall);
  // Over ranks: a fused pass from x[0] (the whole X_m) into the block's rows of X_{m+1} (x[1]), read back
  // with the stress partials, gathered from every rank into x_gathered and written to x[0]; returns
  // sigma(X_m) summed over the ranks (in rank order, the same on every rank). Before the exchange it queues
  // the next pass's own slices on the block's rows of X_{m+1} (own_queue), so that the device computes
  // while the host waits for the other ranks.
  StressSums block_pass(Timings* timings);
  // Over ranks, packed: a fused pass over the rank's slices from x[0] (the whole X_m) into x[1] (their part
  // of sum_j r_ij (x_i - x_j) for every row), read back and summed over the ranks with the stress sums in
  // one allreduce (in double); X_{m+1}, that sum / N, into x_gathered and x[0]. Returns sigma(X_m).
  StressSums slices_pass(Timings* timings);
};

}  // namespace itercl::smacof
