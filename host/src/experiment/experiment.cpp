// The experiment runner: config -> device -> algorithm -> results file.
#include "itercl/experiment.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/build_commit.hpp"
#include "core/json_text.hpp"
#include "experiment/algorithms.hpp"
#include "experiment/ranks.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"
#include "itercl/pagerank.hpp"
#include "itercl/timing.hpp"
#include "itercl/version.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "pairwise/pair_histogram_kernel.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "smacof/smacof_kernel.hpp"

namespace itercl {
namespace experiment {

using Runner = AlgorithmReport (*)(ExperimentContext&);

const std::map<std::string, Runner>& algorithms() {
  static const std::map<std::string, Runner> registry = {{"kmeans", run_kmeans},
                                                         {"smacof", run_smacof},
                                                         {"pagerank", run_pagerank},
                                                         {"pairwise_distances", run_pairwise},
                                                         {"distance_histogram", run_distance_histogram},
                                                         {"pair_counts", run_pair_counts}};
  return registry;
}

// Every device a run uses, whether one or several, is selected here and checked for the run's precision;
// a spec that matches no device, or a device without the precision, is an error of the config `source`.
Device select_for_run(const std::string& spec, Precision precision, const std::string& source) {
  try {
    Device d = Device::select(spec);
    d.require(precision);
    return d;
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
}

}  // namespace experiment

const Device& ExperimentContext::device() {
  if (!selected) {
    device_spec = experiment::rank_device_spec(device_spec);  // over several ranks: this rank's
    if (device_spec == "auto") {
      const DeviceChoice choice = choose_auto_device(workload.value_or(Workload{}), list_devices());
      device_spec = experiment::spread_over_gpus(choice.device);
      device_choice = choice.why;
    }
    selected = experiment::select_for_run(device_spec, precision, data.source());
  }
  return *selected;
}

std::vector<Device> ExperimentContext::devices(const std::vector<std::string>& specs) {
  if (specs.empty()) return {device()};
  std::vector<Device> chosen;
  for (const auto& spec : specs) chosen.push_back(experiment::select_for_run(spec, precision, data.source()));
  selected = chosen.front();
  return chosen;
}

std::optional<std::filesystem::path> ExperimentContext::output_path(const std::string& key) {
  auto path = output.path(key, output_base);
  if (path) claim_output(*path, output.source() + ": " + output.where(key));
  return path;
}

void ExperimentContext::claim_output(const std::filesystem::path& path, const std::string& what) {
  if (experiment::writes_results()) outputs.claim(path, what);  // over several ranks, rank 0 writes every file
}

std::vector<std::string> read_device_list(ConfigObject& P) {
  std::vector<std::string> specs;
  if (const nlohmann::json* d = P.get("devices")) {
    if (!d->is_array() || d->empty()) P.fail("devices", "expected a non-empty array of device specs, got " + d->dump());
    for (const auto& s : *d) {
      if (!s.is_string())
        P.fail("devices", "expected device specs as strings (\"gpu\", \"cpu\", \"0:1\"), got " + s.dump());
      specs.push_back(s.get<std::string>());
    }
  }
  return specs;
}

namespace experiment {

ExperimentOutcome run_checked(const nlohmann::json& config, const std::string& config_name,
                              const std::filesystem::path& base, const RunOverrides& overrides,
                              io::OutputSet& outputs) {
  ConfigObject top(config, config_name, "");
  nlohmann::json as_run = config;

  const std::string name = top.string("name", std::filesystem::path(config_name).stem().string());
  top.string("description");  // free text for the reader of the config
  const std::string algorithm = top.string("algorithm").value_or("");
  const std::string spec = device_spec(overrides.device, experiment::read_device_field(top));
  std::string precision_text = top.string("precision", "float");
  const long long repeat =
      top.integer("repeat", std::numeric_limits<long long>::min(), std::numeric_limits<int>::max()).value_or(1);
  const nlohmann::json* output_value = top.get("output");
  ConfigObject data = top.object("data");
  ConfigObject params = top.object("params");
  top.finish();  // a misspelt field is named before anything it would have set is missed

  if (!algorithms().count(algorithm)) {
    std::string known;
    for (const auto& [n, runner] : algorithms()) known += (known.empty() ? "" : ", ") + n;
    top.fail("algorithm", algorithm.empty() ? "missing; expected one of " + known
                                            : "unknown algorithm \"" + algorithm + "\"; expected one of " + known);
  }
  check_ranks(algorithm);
  as_run["device"] = spec;
  if (!overrides.precision.empty()) precision_text = overrides.precision;
  const Precision precision = with_field_prefix(config_name, "", [&] { return parse_precision(precision_text); });
  as_run["precision"] = precision_text;
  if (repeat < 1) top.fail("repeat", "expected an integer >= 1, got " + std::to_string(repeat));
  check_same_config(as_run);

  // "output": a results path, or an object with "path" and the algorithm's extra files.
  nlohmann::json output_json = nlohmann::json::object();
  if (output_value) output_json = output_value->is_string() ? nlohmann::json{{"path", *output_value}} : *output_value;
  ConfigObject output(output_json, config_name, "output");
  std::filesystem::path results_path = output.path("path", base).value_or(base / "results" / (name + ".json"));
  // --out PATH: the results there, and the extra files the config names relatively beside them. --out -:
  // the results are the caller's to print (standard output); the extra files stay beside the config.
  const bool results_to_caller = overrides.output == "-";
  std::filesystem::path output_base = base;
  if (!overrides.output.empty()) {
    if (!results_to_caller) {
      results_path = std::filesystem::absolute(overrides.output);
      output_base = results_path.parent_path();
    }
    as_run["output"] = output_json;
    as_run["output"]["path"] = results_to_caller ? "-" : results_path.string();
  }
  if (writes_results() && !results_to_caller)
    outputs.claim(results_path, overrides.output.empty() ? config_name + ": output.path" : "--out");

  const std::string started = utc_timestamp();
  ExperimentContext context{
      spec,   std::nullopt, precision, static_cast<int>(repeat), base,         results_path, data,
      params, output,       as_run,    overrides.progress,       std::nullopt, nullptr,      output_base,
      outputs};
  AlgorithmReport report = algorithms().at(algorithm)(context);
  const Device& device = context.device();

  nlohmann::json results = {{"itercl_version", ITERCL_VERSION},
                            {"commit", core::build_commit()},
                            {"name", name},
                            {"algorithm", algorithm},
                            {"started_at", started},
                            {"config", as_run},
                            {"device", device.info()},
                            {"device_choice", context.device_choice},
                            {"precision", precision_name(precision)},
                            {"data", report.data},
                            {"kernel", report.kernel},
                            {"result", report.result},
                            {"timings", report.timings},
                            {"gflops", report.gflops}};
  const nlohmann::json ranks = ranks_json(device.info());  // waits for every rank to finish its share
  if (!ranks.is_null()) results["mpi"] = ranks;
  if (writes_results() && !results_to_caller) write_file_atomically(results_path, results.dump(2) + "\n");
  if (writes_results() && results_to_caller && overrides.deliver) overrides.deliver(results);
  outputs.commit();  // the run has succeeded: every output replaces its old file now, together

  std::ostringstream summary;
  summary << algorithm << " '" << name << "' on " << device.info().name << " (" << device.info().type << ", "
          << device.info().platform << "), " << precision_name(precision) << "\n";
  if (!context.device_choice.is_null())
    summary << "  device auto: " << context.device_choice["verdict"].get<std::string>() << "\n";
  if (!ranks.is_null()) summary << "  over " << ranks["ranks"].get<int>() << " MPI ranks\n";
  summary << report.summary << "  results: " << (results_to_caller ? "standard output" : results_path.string()) << "\n";
  // Every other file the run wrote (labels, centroids, embeddings, matrices), so that none goes unseen.
  const auto same_file = [](const std::filesystem::path& a, const std::filesystem::path& b) {
    return std::filesystem::absolute(a).lexically_normal() == std::filesystem::absolute(b).lexically_normal();
  };
  for (const std::filesystem::path& written : outputs.written())
    if (results_to_caller || !same_file(written, results_path)) summary << "  wrote: " << written.string() << "\n";
  return {std::move(results), results_path, summary.str()};
}

}  // namespace experiment

std::vector<std::string> experiment_algorithms() {
  std::vector<std::string> names;
  for (const auto& [name, runner] : experiment::algorithms()) names.push_back(name);
  return names;
}

std::vector<KernelChoice> experiment_kernel_choices() {
  const auto values = [](const auto& names) { return std::vector<std::string>(std::begin(names), std::end(names)); };
  const std::map<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>> choices = {
      {"kmeans", {{"params.kernel.variant", values(kmeans::kVariants)}}},
      {"smacof", {{"params.kernel.variant", values(smacof::kVariants)}}},
      {"pagerank", {{"params.format", pagerank_formats()}}},
      {"pairwise_distances",
       {{"params.kernel.variant", values(pairwise::kDistanceVariants)},
        {"params.kernel.knn", values(pairwise::kKnnForms)}}},
      {"distance_histogram", {{"params.kernel.variant", values(pairwise::kHistogramVariants)}}},
      {"pair_counts", {{"params.kernel.variant", values(pairwise::kHistogramVariants)}}}};
  std::vector<KernelChoice> out;
  for (const std::string& algorithm : experiment_algorithms())
    for (const auto& [field, names] : choices.at(algorithm)) out.push_back({algorithm, field, names});
  return out;
}

ExperimentOutcome run_experiment(const nlohmann::json& config, const std::string& config_name,
                                 const std::filesystem::path& base, const RunOverrides& overrides) {
  io::OutputSet outputs;
  try {
    return experiment::run_checked(config, config_name, base, overrides, outputs);
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

ExperimentOutcome run_experiment_file(const std::filesystem::path& config, const RunOverrides& overrides) {
  io::OutputSet outputs;  // the config is one of the run's inputs: no output may overwrite it
  try {
    const nlohmann::json parsed = io::parse_config(config, "config file");
    return experiment::run_checked(parsed, config.string(), config.parent_path(), overrides, outputs);
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

nlohmann::json parse_config_json(const std::string& text, const std::string& source) {
  return core::parse_json_text(text, source);
}

}  // namespace itercl
