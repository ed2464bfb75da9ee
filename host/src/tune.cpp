#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>

#include "itercl/error.hpp"
#include "itercl/timing.hpp"
#include "tuners.hpp"

namespace itercl {
namespace {

using Tuner = void (*)(const Device&, ConfigObject&, const TuneOptions&, TuneReport&);

const std::map<std::string, Tuner, std::less<>>& tuners() {
  static const std::map<std::string, Tuner, std::less<>> registry = {{"kmeans", tune_kmeans}};
  return registry;
}

}  // namespace

std::vector<std::string> tunable_kernels() {
  std::vector<std::string> names;
  for (const auto& [name, tuner] : tuners()) names.push_back(name);
  return names;
}

TuneReport tune(std::string_view kernel, const Device& device, const TuneOptions& options) {
  const auto it = tuners().find(kernel);
  if (it == tuners().end()) {
    std::string known;
    for (const auto& name : tunable_kernels()) known += (known.empty() ? "" : ", ") + name;
    throw InputError("tune: unknown kernel '" + std::string(kernel) + "'; expected one of " + known);
  }
  if (options.repeats < 1) throw InputError("tune: --repeats must be at least 1");
  device.require(options.precision);
  TuneReport report;
  report.kernel = std::string(kernel);
  ConfigObject problem(options.problem, "--problem", "");
  it->second(device, problem, options, report);

  bool found = false;
  for (std::size_t i = 0; i < report.candidates.size(); ++i) {
    const TuneCandidate& c = report.candidates[i];
    if (c.rejected.empty() && (!found || c.median_ms < report.candidates[report.best].median_ms)) {
      report.best = i;
      found = true;
    }
  }
  if (!found)
    throw RuntimeError("tune " + report.kernel + ": no candidate produced correct output on " + device.info().name);

  const TuneCandidate& best = report.candidates[report.best];
  report.entry = best.parameters;
  report.entry["tuned"] = {{"date", utc_timestamp("%Y-%m-%d")},
                           {"platform", device.info().platform},
                           {"driver_version", device.info().driver_version},
                           {"problem", report.problem},
                           {"precision", precision_name(options.precision)},
                           {"median_ms", best.median_ms},
                           {"before_ms", report.candidates[report.baseline].median_ms},
                           {"candidates", report.candidates.size()}};
  return report;
}

}  // namespace itercl
