// One tuner per kernel family (internal). Adding one: write tune_<family>() and list it in tune.cpp.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "itercl/tune.hpp"

namespace itercl {

// Each fills `report.problem` (from `problem`, which it reads and finishes) and `report.candidates`, the
// first being the database's current choice; tune() picks the best and writes the entry.
void tune_kmeans(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);
void tune_smacof(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);
void tune_pagerank(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);
void tune_pairwise(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);
void tune_pair_histogram(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);

// The problem field `key` (else `fallback`), which must be an integer from 1 to `most`.
long long problem_count(ConfigObject& problem, const char* key, long long fallback,
                        long long most = std::numeric_limits<int>::max());

// Appends a candidate to `report`: `evaluate` builds the kernel, sets c.parameters to the tuning it
// resolved to, and either rejects it (c.rejected: how its output differs from the reference's) or times
// it. A ParamError (a tuning this device or problem cannot launch) or a failure to build or enqueue it
// (cl::Error, std::bad_alloc, RuntimeError) rejects it with the message, its parameters being
// `declared`, and the sweep goes on. options.progress, if any, is told as the candidate starts (step
// "candidate", one of `total`).
void add_candidate(TuneReport& report, const TuneOptions& options, std::size_t total, const nlohmann::json& declared,
                   const std::function<void(TuneCandidate&)>& evaluate);

// Times a correct candidate: `run` runs the kernel once (one iteration of the family's loop) and returns
// its kernel time in ms from OpenCL events; 2 warm-ups, then options.repeats timed runs.
void time_candidate(TuneCandidate& c, const TuneOptions& options, const std::function<double()>& run);

// Sets c's median, min and max from the timed runs' kernel times (ms), for a family whose loop yields
// them in one go.
void record_times(TuneCandidate& c, std::vector<double> ms);

}  // namespace itercl
