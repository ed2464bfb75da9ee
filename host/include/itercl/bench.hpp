// Benchmark suites: lists of experiments run on one or several devices with warm-up runs and
// repetitions, summarised as medians and spreads. What `itercl bench SUITE.json` runs.
//
// A suite (benchmarks/*/suite.json):
//   {"name": "kmeans", "description": "...", "devices": ["gpu", "cpu"], "warmup": 1, "repeat": 3,
//    "experiment": {an experiment config without "output"},
//    "groups": [{"name": "steps", "set": {"params.max_iter": 10},
//                "vary": {"data.n_samples": [1024, 4096], "params.kernel.variant": ["naive", "expanded"]}}],
//    "peers": [{"name": "scikit-learn", "command": ["python3", "peers.py"], "timeout_s": 600}],
//    "output": "results/kmeans.json"}
// Every group's cases are the experiment with "set" applied and each combination of the "vary" lists
// (dotted paths into the config). Peers are other programs run once, their JSON output recorded apart
// from ours, labelled with their name.
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "itercl/progress.hpp"

namespace itercl {

struct BenchOptions {
  std::vector<std::string> devices;  // replaces the suite's "devices" when not empty
  std::vector<std::string> groups;   // run only these groups (all when empty)
  int warmup = -1, repeat = -1;      // replace the suite's when >= 0
  // Skip cases whose config holds a number above the limit at the dotted path ("data.n_samples" ->
  // 16384): a slow device runs the same suite at the sizes it can finish.
  std::vector<std::pair<std::string, double>> limits;
  std::filesystem::path output;                 // the results JSON (the CSV goes beside it); default: the suite's
  bool peers = true;                            // run the suite's peers
  std::function<void(const std::string&)> log;  // a line per finished case; may be empty
  ProgressCallback progress{};  // told as each case starts (step "case", over all devices); may be empty
};

struct BenchOutcome {
  nlohmann::json results;
  std::filesystem::path json_path, csv_path;
  int failed = 0;  // cases that failed while running (recorded in the results, not fatal)
  // Peers that failed, by name (recorded with "status" in the results, not fatal): missing ones (the
  // command or a Python module it imports is not installed) and crashed ones (anything else).
  std::vector<std::string> peers_missing, peers_crashed;
};

// How a peer that exited with `exit_status` failed, judged from its exit status (127, 126: no such
// command) and its stderr (Python's ModuleNotFoundError): missing, else crashed.
enum class PeerFailure { missing, crashed };
PeerFailure classify_peer_failure(int exit_status, const std::string& stderr_text);

// Throws InputError for a bad suite (before running anything).
BenchOutcome run_bench_file(const std::filesystem::path& suite, const BenchOptions& options = {});

}  // namespace itercl
