#include "pairwise/pair_space.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace itercl::pairwise {

// Seed 003, section 3: many more batches than devices, so that the slower ones cannot hold up the end;
// about 8 each (docs/pairwise.md).
constexpr double kRectanglesPerWorker = 8;

std::vector<Rect> cut_pair_space(Eigen::Index n1, Eigen::Index n2, bool symmetric, Eigen::Index block_rows,
                                 Eigen::Index block_cols) {
  if (symmetric) block_cols = block_rows;
  std::vector<Rect> rects;
  for (Eigen::Index r0 = 0; r0 < n1; r0 += block_rows)
    for (Eigen::Index c0 = symmetric ? r0 : 0; c0 < n2; c0 += block_cols)
      rects.push_back({r0, c0, std::min(block_rows, n1 - r0), std::min(block_cols, n2 - c0), symmetric && r0 == c0});
  return rects;
}

std::vector<Rect> part_of(const std::vector<Rect>& rects, int part, int parts) {
  std::vector<Rect> mine;
  for (std::size_t k = static_cast<std::size_t>(part); k < rects.size(); k += static_cast<std::size_t>(parts))
    mine.push_back(rects[k]);
  return mine;
}

Eigen::Index default_block(Eigen::Index n1, Eigen::Index n2, bool symmetric, double max_entries, int workers,
                           Eigen::Index align) {
  const Eigen::Index longest = std::max(n1, n2);
  Eigen::Index side =
      static_cast<double>(n1) * static_cast<double>(n2) <= max_entries
          ? longest
          : std::max<Eigen::Index>(align, static_cast<Eigen::Index>(std::sqrt(max_entries)) / align * align);
  if (workers > 1) {
    const double wanted = kRectanglesPerWorker * workers;
    while (side > align) {
      const double across = std::ceil(static_cast<double>(n1) / side), down = std::ceil(static_cast<double>(n2) / side);
      if ((symmetric ? across * (across + 1) / 2 : across * down) >= wanted) break;
      side = std::max(align, (side / 2 + align - 1) / align * align);
    }
  }
  return std::min(side, longest);
}

void run_workers(int workers, RectangleQueue& queue, const std::function<void(int)>& body) {
  std::exception_ptr first;
  std::mutex mutex;
  auto guarded = [&](int w) {
    try {
      body(w);
    } catch (...) {
      queue.stop();
      std::lock_guard lock(mutex);
      if (!first) first = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(guarded, w);
    guarded(0);
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace itercl::pairwise
