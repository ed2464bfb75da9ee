// What the experiment runner hands an algorithm, and what it gets back (internal).
// Adding an algorithm: write run_<name>(ExperimentContext&) and list it in experiment.cpp. A runner
// reads its sections of the config and calls finish() on each before the expensive work starts, so a
// misspelt field fails at once.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "config.hpp"
#include "itercl/device.hpp"

namespace itercl {

struct ExperimentContext {
  // The device, selected on first use: runners read and check their whole config first, so a bad
  // config fails before any OpenCL work (and config checks run without a device).
  const Device& device() {
    if (!selected) {
      selected = Device::select(device_spec);
      selected->require(precision);
    }
    return *selected;
  }

  std::string device_spec;
  std::optional<Device> selected;
  Precision precision;
  int repeat;                          // times to run, for timing; results come from the last
  std::filesystem::path base;          // the config's folder: relative paths resolve here
  std::filesystem::path results_path;  // the results JSON; extra files default to names beside it
  ConfigObject& data;                  // the config's "data" object, unread
  ConfigObject& params;                // "params", unread
  ConfigObject& output;                // "output" with "path" read: the algorithm's extra files
  nlohmann::json& config_as_run;       // the recorded config; an algorithm adds values it drew (seeds)
};

struct AlgorithmReport {
  nlohmann::json data;     // a description of the input (shape, source)
  nlohmann::json kernel;   // variant and tuning used, build options
  nlohmann::json result;   // the algorithm's outputs
  nlohmann::json timings;  // kernel / transfer / host / wall, totals and per iteration
  nlohmann::json gflops;
  std::string summary;  // lines for stdout
};

AlgorithmReport run_kmeans(ExperimentContext& context);
AlgorithmReport run_pagerank(ExperimentContext& context);

}  // namespace itercl
