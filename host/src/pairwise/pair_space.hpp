// The pair space cut into rectangles, handed out dynamically to the threads of several devices
// (seed 003, section 4.2: each device's management thread takes the next batch in a critical section,
// so a faster device takes more). Shared by the all-pairs and the histogram drivers (internal).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

#include "itercl/matrix.hpp"
#include "itercl/progress.hpp"
#include "itercl/timing.hpp"

namespace itercl::pairwise {

struct Rect {
  Eigen::Index row0, col0, rows, cols;
  bool diagonal;  // one input, row block == column block: only its pairs i < j count
  double pairs() const {
    return diagonal ? static_cast<double>(rows) * static_cast<double>(rows - 1) / 2
                    : static_cast<double>(rows) * static_cast<double>(cols);
  }
};

// Rectangles of block_rows x block_cols covering n1 x n2 row by row; with one input (symmetric) only
// the blocks on and above the diagonal, square (block_cols is taken equal to block_rows).
std::vector<Rect> cut_pair_space(Eigen::Index n1, Eigen::Index n2, bool symmetric, Eigen::Index block_rows,
                                 Eigen::Index block_cols);

// Part `part` of `parts` of the rectangles, every parts-th from the part-th: the fixed share of one of
// several processes (MPI ranks), each of which hands its own share out to its devices. Neighbouring
// rectangles, of about the same size, go to different parts.
std::vector<Rect> part_of(const std::vector<Rect>& rects, int part, int parts);

// A square block side for an n1 x n2 pair space: the whole space when it fits `max_entries` and one
// worker computes it; else the largest multiple of `align` that fits, made smaller until every one of
// `workers` (> 1) can take about 8 rectangles.
Eigen::Index default_block(Eigen::Index n1, Eigen::Index n2, bool symmetric, double max_entries, int workers,
                           Eigen::Index align);

// Hands out rectangles to worker threads, first come first served, telling `progress` (if any) of each
// rectangle started as step "rectangle" of `algorithm`, one call at a time.
class RectangleQueue {
 public:
  explicit RectangleQueue(std::vector<Rect> rects, ProgressCallback progress = {}, std::string_view algorithm = {})
      : rects_(std::move(rects)), progress_(std::move(progress)), algorithm_(algorithm) {}
  // The next rectangle, or nullptr when none is left or a worker failed.
  const Rect* next() {
    if (stopped_.load()) return nullptr;
    const std::size_t k = next_.fetch_add(1);
    if (k >= rects_.size()) return nullptr;
    if (progress_) {
      std::lock_guard lock(progress_mutex_);
      progress_(ProgressEvent{.algorithm = algorithm_,
                              .iteration = static_cast<int>(k + 1),
                              .max_iterations = static_cast<int>(rects_.size()),
                              .elapsed_s = clock_.seconds(),
                              .step = "rectangle"});
    }
    return &rects_[k];
  }
  void stop() { stopped_.store(true); }
  std::size_t size() const { return rects_.size(); }

 private:
  std::vector<Rect> rects_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
  ProgressCallback progress_;
  std::string_view algorithm_;
  std::mutex progress_mutex_;
  Stopwatch clock_;
};

// Runs body(w) for w in [0, workers), each on its own thread (worker 0 on the caller's), until the queue
// is empty. The first exception stops the queue and is rethrown once every worker has returned.
void run_workers(int workers, RectangleQueue& queue, const std::function<void(int)>& body);

}  // namespace itercl::pairwise
