// Splitting host loops over the CPU's cores (internal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>

namespace itercl {

// Workers worth starting for n items: one below a size where threads cost more than they save,
// else one per hardware thread.
inline int worker_count(std::size_t n) {
  constexpr std::size_t kMinPerWorker = 16384;
  const auto hardware = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<std::size_t>(n / kMinPerWorker, 1, hardware));
}

namespace core {
// Calls task(w) for w in [0, workers): 0 on the calling thread, the others on the process's pool of
// threads, started once and kept (a fit calls this a few dozen times, and starting 16 threads each time
// costs about half a millisecond). From a pool thread, or while another thread has the pool, the tasks
// run on threads of their own, as before there was a pool. Returns when every task has.
void run_workers(int workers, const std::function<void(int)>& task);
}  // namespace core

// Calls body(begin, end, worker) for `workers` contiguous blocks covering [0, n), worker 0 on the
// calling thread. The blocks depend only on n and workers, so per-worker partial results (and their
// rounding) are the same on every run. body must not throw.
template <class Body>
void parallel_blocks(std::size_t n, int workers, Body&& body) {
  auto bounds = [&](int w) { return n * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers); };
  if (workers <= 1) {
    if (workers == 1) body(std::size_t{0}, n, 0);
    return;
  }
  core::run_workers(workers, [&](int w) { body(bounds(w), bounds(w + 1), w); });
}

}  // namespace itercl
