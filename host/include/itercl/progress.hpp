// Progress of long runs, reported after every iteration to whoever asks (the CLI draws it on stderr).
#pragma once

#include <functional>
#include <stdexcept>
#include <string_view>

namespace itercl {

struct ProgressEvent {
  std::string_view algorithm{};  // "kmeans", ...
  int run = 1, runs = 1;         // e.g. of n_init
  int iteration = 0;             // 1-based, within the run
  int max_iterations = 0;
  std::string_view objective_name{};  // "inertia", ...; empty: no objective to show
  double objective = 0;
  double elapsed_s = 0;  // since the fit started
  // What `iteration` counts: "iteration" for the iterative fits, "rectangle" for the pair-space runs
  // (the rectangle now started), "case" for `itercl bench`, "candidate" for `itercl tune`.
  std::string_view step = "iteration";
  // On a run's last step, when a stopping rule ends it before max_iterations: why, in scikit-learn's
  // words for its verbose output (K-Means: "strict convergence", "center shift 1e-05 within tolerance
  // 0.0001"); empty otherwise.
  std::string_view stopping{};
};

// Called on the fitting thread (for pair-space runs on several devices: on any worker's, one call at a
// time); keep it cheap. Empty: no reporting.
// To cancel, the callback throws: Cancelled, or an exception of its own (the Python module carries a
// KeyboardInterrupt so). Every algorithm, tune and bench call it between iterations (rectangles,
// candidates, cases; bench passes its cases' own events on too) outside their own error handling, so the exception
// stops the run there, the device buffers are freed, and it reaches the caller unchanged: no partial result is
// returned.
using ProgressCallback = std::function<void(const ProgressEvent&)>;

// The exception a progress callback throws to cancel: neither the input's fault (InputError) nor the
// machine's (RuntimeError).
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("cancelled by the progress callback") {}
  using std::runtime_error::runtime_error;
};

}  // namespace itercl
