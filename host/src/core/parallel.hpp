// Splitting host loops over the CPU's cores (internal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace itercl {

// Workers worth starting for n items: one below a size where threads cost more than they save,
// else one per hardware thread.
inline int worker_count(std::size_t n) {
  constexpr std::size_t kMinPerWorker = 16384;
  const auto hardware = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<std::size_t>(n / kMinPerWorker, 1, hardware));
}

// Calls body(begin, end, worker) for `workers` contiguous blocks covering [0, n), worker 0 on the
// calling thread. The blocks depend only on n and workers, so per-worker partial results (and their
// rounding) are the same on every run. body must not throw.
template <class Body>
void parallel_blocks(std::size_t n, int workers, Body&& body) {
  auto bounds = [&](int w) { return n * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers); };
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<std::size_t>(workers > 0 ? workers - 1 : 0));
  for (int w = 1; w < workers; ++w) threads.emplace_back([&, w] { body(bounds(w), bounds(w + 1), w); });
  if (workers > 0) body(bounds(0), bounds(1), 0);
}

}  // namespace itercl
