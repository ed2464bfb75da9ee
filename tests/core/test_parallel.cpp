// The host's loops over all cores: every block once, the same blocks whatever runs them, from one thread
// or several at once, and nested.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <numeric>
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

}  // namespace core_tests
