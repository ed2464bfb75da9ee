// Tuning a kernel family on a device: sweep a declared space of parameters, check every candidate's
// output against the reference variant, time the correct ones, and propose the database entry
// (itercl/tuning.hpp). What `itercl tune KERNEL` runs.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "itercl/progress.hpp"
#include "itercl/timing.hpp"

namespace itercl {

struct TuneReport;

struct TuneOptions {
  nlohmann::json problem = nlohmann::json::object();  // the problem's size; each tuner has defaults
  Precision precision = Precision::f32;
  int repeats = 10;             // timed runs per candidate (after 2 warm-ups); the median counts
  ProgressCallback progress{};  // told as each candidate starts (step "candidate", objective the best so far)
  // The sweep's wall time in seconds, its setup (the problem, the reference) and kernel builds included;
  // 0: none. A candidate starts only while the slowest one so far still fits in what is left, and the
  // sweep returns what it measured. The first candidate, the database's current choice, is always
  // measured. (A candidate cannot be cut short here: the CLI bounds the whole command, see `measured`.)
  double budget_s = 0;
  // Called after each candidate with the report so far: a caller that must end the sweep before it
  // returns (the CLI at its budget's deadline, or at Ctrl-C, during a long kernel build) concludes the last
  // one (conclude_tuning) and keeps its best.
  std::function<void(const TuneReport&)> measured{};
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
  // Whether the entry is worth storing: the best is faster than the baseline beyond the spread of their timed
  // runs (gain_beyond_noise), or the baseline's output was wrong.
  bool worth_storing = false;
  std::size_t declared = 0;        // the candidates of the space, the first included
  std::size_t not_tried = 0;       // candidates not measured: the budget ran out (or, in the CLI, Ctrl-C came)
  std::string ended_early;         // why: "budget" (or the CLI's "stopped"); empty when every candidate was tried
  double slowest_candidate_s = 0;  // the longest one candidate took, its build included
  Stopwatch clock;                 // started with the sweep: its progress events and its budget
};

// Picks the fastest correct candidate of `report` (best), decides worth_storing and fills the entry, with
// its "tuned" metadata for `device`: how tune() ends, and how a caller that ended a sweep itself concludes
// the last report it was given (TuneOptions::measured). Throws RuntimeError if no candidate is correct.
void conclude_tuning(TuneReport& report, const DeviceInfo& device, Precision precision);

// The tuner's noise rule: `best` is faster than `before` by more than their timed runs' spread, i.e. its
// slowest run is faster than the fastest run of `before` (their ranges do not overlap).
bool gain_beyond_noise(const TuneCandidate& before, const TuneCandidate& best);

// Kernel families that can be tuned ("kmeans", ...).
std::vector<std::string> tunable_kernels();

// Throws InputError for an unknown kernel or a bad problem field, RuntimeError if no candidate is correct.
TuneReport tune(std::string_view kernel, const Device& device, const TuneOptions& options);

}  // namespace itercl
