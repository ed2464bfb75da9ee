// Splitting host loops over the CPU's cores (internal).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace itercl {

namespace core {
// The ranks of this run on this host (share_host_cores, core/comm.hpp, sets it once, when MPI starts; 1
// without MPI): each rank's loops take its share of the cores, so that two ranks of one host do not both
// start one thread per core and run twice as many threads as there are cores.
void set_host_ranks(int ranks);
// The host's hardware threads over its ranks, at least one.
unsigned host_cores();
}  // namespace core

// Workers worth starting for n items: one below a size where threads cost more than they save,
// else one per hardware thread of this rank's share of the host (core::host_cores).
inline int worker_count(std::size_t n) {
  constexpr std::size_t kMinPerWorker = 16384;
  return static_cast<int>(std::clamp<std::size_t>(n / kMinPerWorker, 1, core::host_cores()));
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

namespace core {
// A stable counting sort of the items [0, n) by key(i) in [0, keys), on `workers` threads: calls put(i, at)
// once per item, `at` its place among the items ordered by key, the items of one key in index order (each
// worker's block of items after the blocks before it), so the places are the serial pass's whatever the
// workers. Returns how many items have each key. Each worker counts every key: the caller bounds
// workers x keys. key is called twice per item; key and put must not throw.
template <class Key, class Put>
std::vector<std::size_t> counting_scatter(std::size_t n, std::size_t keys, int workers, Key&& key, Put&& put) {
  workers = std::max(workers, 1);
  const auto uw = static_cast<std::size_t>(workers);
  std::vector<std::size_t> at(uw * keys, 0);  // [worker][key]: the counts, then each worker's next place
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    std::size_t* count = at.data() + static_cast<std::size_t>(w) * keys;
    for (std::size_t i = begin; i < end; ++i) ++count[key(i)];
  });
  std::vector<std::size_t> totals(keys, 0);
  std::size_t running = 0;
  for (std::size_t k = 0; k < keys; ++k)
    for (std::size_t w = 0; w < uw; ++w) {
      const std::size_t count = at[w * keys + k];
      at[w * keys + k] = running;
      running += count, totals[k] += count;
    }
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    std::size_t* next = at.data() + static_cast<std::size_t>(w) * keys;
    for (std::size_t i = begin; i < end; ++i) put(i, next[key(i)]++);
  });
  return totals;
}
}  // namespace core

}  // namespace itercl
