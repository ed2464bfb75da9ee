// What the experiment runner hands an algorithm, and what it gets back (internal).
// Adding an algorithm: write run_<name>(ExperimentContext&) and list it in experiment.cpp. A runner
// reads its sections of the config and calls finish() on each before the expensive work starts, so a
// misspelt field fails at once.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "io/output_set.hpp"
#include "itercl/device.hpp"
#include "itercl/pairwise.hpp"
#include "itercl/progress.hpp"
#include "tuning/offload.hpp"

namespace itercl {

struct ExperimentContext {
  // The device, selected on first use: runners read and check their whole config first, so a bad
  // config fails before any OpenCL work (and config checks run without a device). For spec "auto" the
  // offload model chooses, given the runner's `workload` (set before this call; without one, the GPU
  // if present), and says why in `device_choice`.
  const Device& device();
  // The devices `specs` name (params.devices, see read_device_list), for a run spread over several; the
  // first becomes the run's device, the one the results file records. No specs: the run's device alone.
  // Like device(), each is checked for the run's precision.
  std::vector<Device> devices(const std::vector<std::string>& specs);
  // output.<key>, resolved against output_base and claimed by the run's OutputSet: checked now, before
  // the computation, and renamed into place only when the whole run succeeds.
  std::optional<std::filesystem::path> output_path(const std::string& key);
  // A file the run writes whose name it chose (beside the results), claimed as output_path's are.
  void claim_output(const std::filesystem::path& path, const std::string& what);

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
  ProgressCallback progress;           // pass on to the algorithm's params; may be empty
  std::optional<Workload> workload;    // what the run will cost, for device "auto"
  nlohmann::json device_choice;        // how device "auto" was resolved; null for any other spec
  // Where the output's relative file names (labels, embedding, ranks, matrix) resolve: beside the
  // results file given by --out, else the config's folder (`base`).
  std::filesystem::path output_base;
  io::OutputSet& outputs;  // every file the run writes
};

struct AlgorithmReport {
  nlohmann::json data;    // a description of the input (shape, source)
  nlohmann::json kernel;  // variant and tuning used, build options
  nlohmann::json result;  // the algorithm's outputs
  // kernel / transfer / host / wall in ms (Timings' JSON), with at least "total" and "median_iteration"
  // (what `itercl bench` compares), then anything the algorithm adds ("per_iteration", ...).
  nlohmann::json timings;
  // Rates with at least "kernel" (GFLOPS in the kernels, by the algorithm's documented flop count) and,
  // where bytes are counted, "kernel_gbs"; "iteration" for GFLOPS over a whole iteration.
  nlohmann::json gflops;
  std::string summary;  // lines for stdout
};

AlgorithmReport run_kmeans(ExperimentContext& context);
AlgorithmReport run_pairwise(ExperimentContext& context);
AlgorithmReport run_distance_histogram(ExperimentContext& context);
AlgorithmReport run_pair_counts(ExperimentContext& context);

// params.devices: the device specs of a run spread over several devices (empty: the run's device).
std::vector<std::string> read_device_list(ConfigObject& params);
// Each device's share of a pair-space run, for the results file and for the summary (empty for one device).
nlohmann::json shares_json(const std::vector<DeviceShare>& shares, double pairs);
std::string shares_summary(const std::vector<DeviceShare>& shares, double pairs);
AlgorithmReport run_smacof(ExperimentContext& context);
AlgorithmReport run_pagerank(ExperimentContext& context);

}  // namespace itercl
