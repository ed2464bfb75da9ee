// Cancelling a long call from Python: Ctrl-C (KeyboardInterrupt), or an exception raised by the
// caller's callback, stops the C++ run between iterations and surfaces as that Python exception.
#pragma once

#include <exception>
#include <utility>

#include "convert.hpp"
#include "itercl/progress.hpp"

namespace itercl::python {

// One per call. progress() is the ProgressCallback to give the algorithm: with the GIL reacquired it
// calls the Python callback (if any) with the event as a dict, then checks for signals
// (PyErr_CheckSignals: Python runs its SIGINT handler only on the main thread, and only when C code
// asks while it works); if either raises, it throws Cancelled and keeps the Python exception, which
// run() raises in place of the Cancelled once the GIL is back.
class PythonCancel {
 public:
  explicit PythonCancel(py::object callback = py::none()) : callback_(std::move(callback)) {}

  ProgressCallback progress();

  // f() with the GIL released.
  template <class F>
  auto run(F&& f) {
    try {
      py::gil_scoped_release release;
      return f();
    } catch (const Cancelled&) {
      if (pending_) std::rethrow_exception(std::exchange(pending_, nullptr));
      throw;
    }
  }

 private:
  py::object callback_;
  std::exception_ptr pending_;  // the Python exception (py::error_already_set) that cancelled the run
};

// A resident object's progress callback (set_progress) set to `cancel`'s for one call, and cleared when
// the call ends: the callback refers to `cancel`, which ends with the call.
template <class Resident>
class ProgressForCall {
 public:
  ProgressForCall(Resident& resident, PythonCancel& cancel) : resident_(resident) {
    resident_.set_progress(cancel.progress());
  }
  ~ProgressForCall() { resident_.set_progress({}); }
  ProgressForCall(const ProgressForCall&) = delete;
  ProgressForCall& operator=(const ProgressForCall&) = delete;

 private:
  Resident& resident_;
};

}  // namespace itercl::python
