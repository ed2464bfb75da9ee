// Tuning a kernel family on a device: sweep a declared space of parameters, check every candidate's
// output against the reference variant, time the correct ones, and propose the database entry
// (itercl/tuning.hpp). What `itercl tune KERNEL` runs.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "itercl/progress.hpp"
#include "itercl/timing.hpp"

namespace itercl {

struct TuneOptions {
  nlohmann::json problem = nlohmann::json::object();  // the problem's size; each tuner has defaults
  Precision precision = Precision::f32;
  int repeats = 10;             // timed runs per candidate (after 2 warm-ups); the median counts
  ProgressCallback progress{};  // told as each candidate starts (step "candidate"); may be empty
};

struct TuneCandidate {
  nlohmann::json parameters;  // the tuning fields, as the database stores them
  std::string rejected;       // why it was not timed, or why its output was wrong; empty if fine
  double median_ms = 0;       // kernel time, OpenCL events
  double min_ms = 0, max_ms = 0;
};

struct TuneReport {
  std::string kernel;
  nlohmann::json problem;  // with the defaults filled in
  std::vector<TuneCandidate> candidates;
  std::size_t best = 0;      // index of the fastest correct candidate
  std::size_t baseline = 0;  // index of the database's choice before tuning
  nlohmann::json entry;      // devices/<name> entry to store: the best parameters plus "tuned" metadata
  Stopwatch clock;           // started with the sweep, for its progress events
};

// Kernel families that can be tuned ("kmeans", ...).
std::vector<std::string> tunable_kernels();

// Throws InputError for an unknown kernel or a bad problem field, RuntimeError if no candidate is correct.
TuneReport tune(std::string_view kernel, const Device& device, const TuneOptions& options);

}  // namespace itercl
