// Progress of long runs, reported after every iteration to whoever asks (the CLI draws it on stderr).
#pragma once

#include <functional>
#include <string_view>

namespace itercl {

struct ProgressEvent {
  std::string_view algorithm;  // "kmeans", ...
  int run = 1, runs = 1;       // e.g. of n_init
  int iteration = 0;           // 1-based, within the run
  int max_iterations = 0;
  std::string_view objective_name;  // "inertia", ...
  double objective = 0;
  double elapsed_s = 0;  // since the fit started
};

// Called on the fitting thread; keep it cheap. Empty: no reporting.
using ProgressCallback = std::function<void(const ProgressEvent&)>;

}  // namespace itercl
