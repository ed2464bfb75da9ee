// The host's loops over all cores: every block once, the same blocks whatever runs them, from one thread
// or several at once, and nested; the counting sort on the cores, against a stable sort; a rank's share
// of the cores.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

#include "core/parallel.hpp"

namespace core_tests {

// Each item's worker, and every item covered once.
std::vector<int> owners(std::size_t n, int workers) {
  std::vector<int> owner(n, -1);
  std::atomic<int> calls{0};
  itercl::parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    ++calls;
    for (std::size_t i = begin; i < end; ++i) owner[i] += w + 1;  // -1 + w + 1 = w where covered once
  });
  CHECK(calls == workers);
  return owner;
}

TEST_CASE("parallel blocks: contiguous, each item once, the same split every time") {
  for (const int workers : {1, 2, 3, 16, 64}) {
    const std::vector<int> first = owners(1000, workers);
    for (int w = 0; w < workers; ++w)  // block w is [n w / workers, n (w + 1) / workers)
      for (std::size_t i = 1000 * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers);
           i < 1000 * static_cast<std::size_t>(w + 1) / static_cast<std::size_t>(workers); ++i)
        CHECK(first[i] == w);
    CHECK(owners(1000, workers) == first);
  }
}

TEST_CASE("parallel blocks: nested calls and calls from several threads at once finish, each correct") {
  std::vector<std::int64_t> sums(8, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        std::vector<std::int64_t> partial(4, 0);
        itercl::parallel_blocks(4000, 4, [&](std::size_t begin, std::size_t end, int w) {
          std::vector<std::int64_t> inner(3, 0);  // a nested loop inside each block
          itercl::parallel_blocks(end - begin, 3, [&](std::size_t b, std::size_t e, int v) {
            for (std::size_t i = begin + b; i < begin + e; ++i)
              inner[static_cast<std::size_t>(v)] += static_cast<std::int64_t>(i);
          });
          partial[static_cast<std::size_t>(w)] = std::accumulate(inner.begin(), inner.end(), std::int64_t{0});
        });
        sums[static_cast<std::size_t>(t)] += std::accumulate(partial.begin(), partial.end(), std::int64_t{0});
      }
    });
  for (std::thread& c : callers) c.join();
  for (int t = 0; t < 4; ++t) CHECK(sums[static_cast<std::size_t>(t)] == 50 * (std::int64_t{3999} * 4000 / 2));
}

TEST_CASE("parallel blocks: a child of fork() runs them on threads of its own, not the parent's pool") {
  std::vector<int> warm(1000);  // the pool exists, and its threads are the parent's alone
  itercl::parallel_blocks(warm.size(), 4, [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) warm[i] = 1;
  });
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    alarm(20);  // a hang ends the child with SIGALRM, which the parent sees
    std::atomic<int> calls{0};
    itercl::parallel_blocks(1000, 4, [&](std::size_t, std::size_t, int) { ++calls; });
    _exit(calls == 4 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("counting scatter: the places of a stable sort by key, whatever the workers") {
  std::mt19937 rng(4);
  for (const std::size_t keys : {std::size_t{1}, std::size_t{2}, std::size_t{37}}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{100003}}) {
      std::vector<std::size_t> key(n);
      for (std::size_t& k : key) k = std::uniform_int_distribution<std::size_t>(0, keys - 1)(rng);
      std::vector<std::size_t> sorted(n);  // the reference: the items' indices, stably sorted by key
      std::iota(sorted.begin(), sorted.end(), std::size_t{0});
      std::stable_sort(sorted.begin(), sorted.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
      std::vector<std::size_t> totals(keys, 0);
      for (const std::size_t k : key) ++totals[k];
      for (const int workers : {1, 2, 3, 7, 16}) {
        CAPTURE(keys);
        CAPTURE(n);
        CAPTURE(workers);
        std::vector<std::size_t> placed(n, n);  // placed[at]: the item put at `at`
        const std::vector<std::size_t> counts = itercl::core::counting_scatter(
            n, keys, workers, [&](std::size_t i) { return key[i]; },
            [&](std::size_t i, std::size_t at) { placed[at] = i; });
        CHECK(placed == sorted);
        CHECK(counts == totals);
      }
    }
  }
}

TEST_CASE("a rank's share of the host's cores: the hardware threads over the ranks on the host, at least one") {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  CHECK(itercl::core::host_cores() == hardware);  // no MPI here: one rank
  itercl::core::set_host_ranks(2);
  CHECK(itercl::core::host_cores() == std::max(1u, hardware / 2));
  CHECK(itercl::worker_count(std::size_t{1} << 30) == static_cast<int>(std::max(1u, hardware / 2)));
  itercl::core::set_host_ranks(static_cast<int>(hardware) * 4);
  CHECK(itercl::core::host_cores() == 1);
  itercl::core::set_host_ranks(1);
  CHECK(itercl::core::host_cores() == hardware);
}

}  // namespace core_tests
