#include "core/parallel.hpp"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace itercl::core {

namespace {

// Hardware threads - 1 workers waiting on one job at a time; the caller is the job's worker 0.
class Pool {
 public:
  Pool() {
    // A child of fork() (Python's multiprocessing) inherits this object but none of its threads: there
    // the pool is never used, and every call starts threads of its own.
    pthread_atfork(nullptr, nullptr, [] { forked = true; });
    const int size = static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) - 1;
    for (int t = 0; t < size; ++t) threads_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
  }

  // False if another caller holds the pool, or `workers` exceeds it: the caller then does without.
  bool run(int workers, const std::function<void(int)>& task) {
    if (forked) return false;
    std::unique_lock hold(owner_, std::try_to_lock);
    if (!hold || workers - 1 > static_cast<int>(threads_.size())) return false;
    {
      std::lock_guard lock(mutex_);
      task_ = &task;
      next_ = 1;
      last_ = workers;
      running_ = workers - 1;
      ++generation_;
    }
    wake_.notify_all();
    pool_thread = true;  // a nested call from task 0 must not ask for the pool it holds
    task(0);
    pool_thread = false;
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
    task_ = nullptr;
    return true;
  }

  // A pool thread, or the caller while it runs its task 0.
  static bool on_pool_thread() { return pool_thread; }

 private:
  void serve() {
    pool_thread = true;
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && next_ < last_); });
      if (stopping_) return;
      const int w = next_++;
      if (next_ >= last_) seen = generation_;
      lock.unlock();
      (*task_)(w);
      lock.lock();
      if (--running_ == 0) done_.notify_one();
    }
  }

  static thread_local bool pool_thread;
  static std::atomic<bool> forked;
  std::mutex owner_;  // one job at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int next_ = 0, last_ = 0, running_ = 0;
  std::uint64_t generation_ = 0;
  bool stopping_ = false;
  std::vector<std::jthread> threads_;
};

thread_local bool Pool::pool_thread = false;
std::atomic<bool> Pool::forked = false;

}  // namespace

namespace {
std::atomic<int> ranks_on_host = 1;
}

void set_host_ranks(int ranks) { ranks_on_host = std::max(ranks, 1); }

unsigned host_cores() {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1u, hardware / static_cast<unsigned>(ranks_on_host.load()));
}

void run_workers(int workers, const std::function<void(int)>& task) {
  static Pool pool;
  if (workers <= 0) return;
  if (!Pool::on_pool_thread() && pool.run(workers, task)) return;
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<std::size_t>(workers - 1));
  for (int w = 1; w < workers; ++w) threads.emplace_back([&, w] { task(w); });
  task(0);
}

}  // namespace itercl::core
