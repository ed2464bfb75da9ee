// PythonCancel::progress: the callback that lets Python stop a run.
#include "cancel.hpp"

namespace itercl::python {

ProgressCallback PythonCancel::progress() {
  return [this](const ProgressEvent& e) {
    py::gil_scoped_acquire gil;
    try {
      if (!callback_.is_none()) {
        py::dict event;
        event["algorithm"] = std::string(e.algorithm);
        event["run"] = e.run;
        event["runs"] = e.runs;
        event["step"] = std::string(e.step);
        event["iteration"] = e.iteration;
        event["max_iterations"] = e.max_iterations;
        if (!e.objective_name.empty()) {
          event["objective_name"] = std::string(e.objective_name);
          event["objective"] = e.objective;
        }
        event["elapsed_s"] = e.elapsed_s;
        if (!e.stopping.empty()) event["stopping"] = std::string(e.stopping);
        callback_(event);
      }
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (const py::error_already_set&) {
      pending_ = std::current_exception();
      throw Cancelled("cancelled from Python");
    }
  };
}

}  // namespace itercl::python
