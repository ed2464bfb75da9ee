#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "itercl/error.hpp"
#include "itercl/timing.hpp"
#include "tune/tuners.hpp"

namespace itercl {
// The tune folder's helpers (named for tuners.hpp: itercl::tune is the public function).
namespace tuners {

using Tuner = void (*)(const Device&, ConfigObject&, const TuneOptions&, TuneReport&);

const std::map<std::string, Tuner, std::less<>>& registry() {
  static const std::map<std::string, Tuner, std::less<>> registry = {{"kmeans", tune_kmeans},
                                                                     {"pagerank", tune_pagerank},
                                                                     {"pair_histogram", tune_pair_histogram},
                                                                     {"pairwise", tune_pairwise},
                                                                     {"smacof", tune_smacof}};
  return registry;
}

}  // namespace tuners

long long problem_count(ConfigObject& problem, const char* key, long long fallback, long long most) {
  const long long v = problem.integer(key).value_or(fallback);
  if (v < 1 || v > most)
    problem.fail(key, "expected an integer from 1 to " + std::to_string(most) + ", got " + std::to_string(v));
  return v;
}

void add_candidate(TuneReport& report, const TuneOptions& options, std::size_t total, const nlohmann::json& declared,
                   const std::function<void(TuneCandidate&)>& evaluate) {
  // The first candidate (the baseline) always runs; a later one only while the budget still holds the
  // slowest so far.
  report.declared = total;
  if (!report.candidates.empty()) {
    const bool over_budget =
        options.budget_s > 0 && report.clock.seconds() + report.slowest_candidate_s > options.budget_s;
    if (over_budget || !report.ended_early.empty()) {
      report.ended_early = "budget";
      ++report.not_tried;
      return;
    }
  }
  if (options.progress) {
    ProgressEvent e{.algorithm = report.kernel,
                    .iteration = static_cast<int>(report.candidates.size() + 1),
                    .max_iterations = static_cast<int>(total),
                    .elapsed_s = report.clock.seconds(),
                    .step = "candidate"};
    for (const TuneCandidate& c : report.candidates)
      if (c.rejected.empty() && (e.objective_name.empty() || c.median_ms < e.objective))
        e.objective_name = "best ms", e.objective = c.median_ms;
    options.progress(e);
  }
  const Stopwatch took;
  TuneCandidate c;
  auto reject = [&](const std::exception& e) { c = TuneCandidate{.parameters = declared, .rejected = e.what()}; };
  try {
    evaluate(c);
  } catch (const ParamError& e) {
    reject(e);
  } catch (...) {
    // A candidate that fails to build or launch (cl::Error, out of host memory, an itercl RuntimeError)
    // is this candidate's failure, not the sweep's; anything else (an InputError about the problem, a
    // bug) still ends the sweep.
    try {
      rethrow_as_itercl_error();
    } catch (const RuntimeError& e) {
      reject(e);
    }
  }
  report.slowest_candidate_s = std::max(report.slowest_candidate_s, took.seconds());
  report.candidates.push_back(std::move(c));
  if (options.measured) options.measured(report);
}

bool gain_beyond_noise(const TuneCandidate& before, const TuneCandidate& best) { return best.max_ms < before.min_ms; }

void record_times(TuneCandidate& c, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  c.median_ms = ms[ms.size() / 2];
  c.min_ms = ms.front();
  c.max_ms = ms.back();
}

void time_candidate(TuneCandidate& c, const TuneOptions& options, const std::function<double()>& run) {
  // Untimed runs first: the first launches of a fresh kernel pay for the driver's lazy setup and the
  // buffers' first touch, which no later iteration of a real run pays.
  constexpr int kWarmUps = 2;
  std::vector<double> ms;
  for (int r = 0; r < options.repeats + kWarmUps; ++r) {
    const double t = run();
    if (r >= kWarmUps) ms.push_back(t);
  }
  record_times(c, std::move(ms));
}

std::vector<std::string> tunable_kernels() {
  std::vector<std::string> names;
  for (const auto& [name, tuner] : tuners::registry()) names.push_back(name);
  return names;
}

void conclude_tuning(TuneReport& report, const DeviceInfo& device, Precision precision) {
  bool found = false;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const TuneCandidate& c = report.candidates[i];
    if (c.rejected.empty() && (!found || c.median_ms < report.candidates[report.best].median_ms)) {
      report.best = i;
      found = true;
    }
  }
  if (!found) throw RuntimeError("tune " + report.kernel + ": no candidate produced correct output on " + device.name);

  const TuneCandidate& best = report.candidates[report.best];
  const TuneCandidate& before = report.candidates[report.baseline];
  report.worth_storing = !before.rejected.empty() || gain_beyond_noise(before, best);
  report.entry = best.parameters;
  report.entry["measured_on"] = device.name + " (" + device.platform + ", driver " + device.driver_version + ")";
  report.entry["tuned"] = {{"date", utc_timestamp("%Y-%m-%d")},
                           {"platform", device.platform},
                           {"driver_version", device.driver_version},
                           {"problem", report.problem},
                           {"precision", precision_name(precision)},
                           {"median_ms", best.median_ms},
                           {"before_ms", report.candidates[report.baseline].median_ms},
                           {"candidates", report.candidates.size()}};
}

TuneReport tune(std::string_view kernel, const Device& device, const TuneOptions& options) {
  const auto it = tuners::registry().find(kernel);
  if (it == tuners::registry().end()) {
    std::string known;
    for (const auto& name : tunable_kernels()) known += (known.empty() ? "" : ", ") + name;
    throw InputError("tune: unknown kernel '" + std::string(kernel) + "'; expected one of " + known);
  }
  if (options.repeats < 1) throw InputError("tune: --repeat must be at least 1");
  device.require(options.precision);
  if (!(options.budget_s >= 0)) throw InputError("tune: --budget must be a number of seconds >= 0");
  TuneReport report;
  report.kernel = std::string(kernel);
  ConfigObject problem(options.problem, "--problem", "");
  it->second(device, problem, options, report);

  conclude_tuning(report, device.info(), options.precision);
  return report;
}

}  // namespace itercl
