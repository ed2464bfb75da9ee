// A resident object (PageRankGraph, SmacofDissimilarities) as Python holds it: one lock per object, so
// that calls from several threads run one at a time (two at once, with the GIL released, returned wrong
// ranks and then corrupted the heap), and a record of whether it has a start, so that step() and the
// current iterate before any start() or run raise instead of returning what the device memory held.
#pragma once

#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "convert.hpp"
#include "itercl/error.hpp"

namespace itercl::python {

template <class T>
class Resident {
 public:
  Resident(T object, std::string name) : object_(std::move(object)), name_(std::move(name)) {}

  // f(object) under this object's lock. The lock is waited for with the GIL released: the holder may need
  // the GIL for its progress callback. `needs_start`: raises unless a start() or a run came first;
  // `starts`: after f, the object has a start.
  template <class F>
  decltype(auto) use(F&& f, bool needs_start = false, bool starts = false) {
    std::unique_lock lock(mutex_, std::defer_lock);
    {
      py::gil_scoped_release release;
      lock.lock();
    }
    if (needs_start && !started_)
      throw ParamError(name_, "has no current iterate: call start() (or run a fit) before step() or reading it");
    if constexpr (std::is_void_v<decltype(f(object_))>) {
      f(object_);
      started_ = started_ || starts;
    } else {
      decltype(auto) out = f(object_);
      started_ = started_ || starts;
      return out;
    }
  }
  const T& object() const { return object_; }  // for what never changes: sizes, the kernel

 private:
  T object_;
  std::mutex mutex_;
  bool started_ = false;
  std::string name_;
};

}  // namespace itercl::python
