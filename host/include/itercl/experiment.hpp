// Experiments from JSON configs: what `itercl run` does, as a library call.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "itercl/progress.hpp"

namespace itercl {

// Command-line choices: values that replace the config's (empty: keep the config's), and where
// progress goes.
struct RunOverrides {
  std::string device;     // --device (else ITERCL_DEVICE, else the config's "device")
  std::string precision;  // --precision
  // --out: the results file (the config's relative extra files go beside it); "-": write no results
  // file, the caller prints ExperimentOutcome::results (extra files resolve against the config's folder)
  std::filesystem::path output;
  ProgressCallback progress;  // empty: silent
  // --out -: hands the results to the caller (the CLI prints them) before the run's other outputs are
  // committed; when it throws (standard output unwritable: /dev/full, closed) nothing is committed.
  std::function<void(const nlohmann::json& results)> deliver;
};

struct ExperimentOutcome {
  nlohmann::json results;  // what was written
  std::filesystem::path results_path;
  std::string summary;  // a few lines for a human
};

// The algorithms a config's "algorithm" can name ("kmeans", "smacof", ...), sorted.
std::vector<std::string> experiment_algorithms();

// A kernel choice a config makes for an algorithm (`field`, e.g. "params.kernel.variant") and its values
// besides "auto", read from the library's tables of variants and formats: the CLI's help lists them.
struct KernelChoice {
  std::string algorithm, field;
  std::vector<std::string> values;
};
// Every algorithm's, in experiment_algorithms()' order.
std::vector<KernelChoice> experiment_kernel_choices();

// Reads the config, runs the experiment and writes its results file atomically (an earlier file is
// replaced only by a complete new one). Relative paths in the config resolve against its folder.
// Throws InputError for a bad config or data, RuntimeError for a failure while running.
ExperimentOutcome run_experiment_file(const std::filesystem::path& config, const RunOverrides& overrides = {});

// The same for a config already parsed; `config_name` is used in messages, `base` resolves paths.
ExperimentOutcome run_experiment(const nlohmann::json& config, const std::string& config_name,
                                 const std::filesystem::path& base, const RunOverrides& overrides = {});

// JSON text read as a config file is (comments allowed), for the JSON a user gives outside one (tune's
// --problem, a kernel's fields from Python): invalid JSON, objects and arrays nested deeper than 128
// levels, a key given twice in one object and a number beyond double are InputErrors naming `source`
// (and the field).
nlohmann::json parse_config_json(const std::string& text, const std::string& source);

}  // namespace itercl
