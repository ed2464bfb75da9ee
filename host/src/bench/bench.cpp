// `itercl bench`: suites of experiments, repeated, summarised as medians and spreads.
#include "itercl/bench.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>

#include "core/build_commit.hpp"
#include "core/json_text.hpp"
#include "core/replace_file.hpp"
#include "io/config.hpp"
#include "io/output_set.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/io.hpp"
#include "itercl/peak.hpp"
#include "itercl/timing.hpp"
#include "itercl/version.hpp"

namespace itercl {

PeerFailure classify_peer_failure(int exit_status, const std::string& stderr_text) {
  // 127 and 126: the shell or timeout(1) found no such command, or could not run it.
  if (exit_status == 127 || exit_status == 126) return PeerFailure::missing;
  // Python's ImportError of a module that is not installed (numpy, torch, sklearn, ...).
  for (const char* missing : {"ModuleNotFoundError", "No module named", "command not found"})
    if (stderr_text.find(missing) != std::string::npos) return PeerFailure::missing;
  return PeerFailure::crashed;
}

namespace bench {

using nlohmann::json;

struct Case {
  std::string group, name;
  json config, varied;
};

// Sets `value` at a dotted path ("params.kernel.variant"), creating objects on the way.
void set_path(json& j, const std::string& dotted, const json& value) {
  json* node = &j;
  std::size_t start = 0;
  for (std::size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1) {
    node = &(*node)[dotted.substr(start, dot - start)];
    if (!node->is_object()) *node = json::object();
  }
  (*node)[dotted.substr(start)] = value;
}

// The value at a dotted path, or null.
json get_path(const json& j, const std::string& dotted) {
  const json* node = &j;
  std::size_t start = 0;
  while (true) {
    const auto dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    if (dot == std::string::npos) return *node;
    start = dot + 1;
  }
}

// A value as a case name shows it: a string as is, an object by its file name or its scalar fields.
std::string short_value(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_object()) return v.dump();
  if (v.contains("path") && v["path"].is_string())
    return std::filesystem::path(v["path"].get<std::string>()).filename();
  std::string s;
  for (const auto& [key, value] : v.items())
    if (!value.is_structured()) s += (s.empty() ? "" : ",") + key + ":" + short_value(value);
  return "{" + s + "}";
}

std::vector<Case> expand(const json& experiment, const json& groups, const std::vector<std::string>& wanted,
                         const std::string& source) {
  std::vector<Case> cases;
  std::set<std::string> unmatched(wanted.begin(), wanted.end());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    ConfigObject group(groups[g], source, "groups[" + std::to_string(g) + "]");
    const std::string name = group.string("name").value_or("group" + std::to_string(g));
    unmatched.erase(name);
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    group.string("description");
    ConfigObject set = group.object("set"), vary = group.object("vary");
    group.finish();
    json base = experiment;
    const json set_values = groups[g].value("set", json::object()),
               vary_values = groups[g].value("vary", json::object());
    for (const auto& [path, value] : set_values.items()) {
      set.get(path);  // every path is a field of the experiment, checked when the case runs
      set_path(base, path, value);
    }
    set.finish();
    // The cartesian product of the vary lists, the last varying fastest.
    std::vector<std::pair<std::string, json>> axes;
    for (const auto& [path, values] : vary_values.items()) {
      vary.get(path);
      if (!values.is_array() || values.empty()) vary.fail(path, "expected a non-empty list of values");
      axes.emplace_back(path, values);
    }
    vary.finish();
    std::vector<std::size_t> index(axes.size(), 0);
    while (true) {
      Case c{name, name, base, json::object()};
      for (std::size_t a = 0; a < axes.size(); ++a) {
        const json& v = axes[a].second[index[a]];
        set_path(c.config, axes[a].first, v);
        c.varied[axes[a].first] = v;
        c.name += " " + axes[a].first.substr(axes[a].first.rfind('.') + 1) + "=" + short_value(v);
      }
      cases.push_back(std::move(c));
      std::size_t a = axes.size();
      while (a > 0 && ++index[a - 1] == axes[a - 1].second.size()) index[--a] = 0;
      if (a == 0) break;
    }
  }
  if (!unmatched.empty()) throw InputError(source + ": no group named '" + *unmatched.begin() + "'");
  return cases;
}

// The name of a rate of the results' "gflops" section as a bench metric, named by its unit: GFLOPS
// ("kernel" -> "gflops_kernel"), or, for the rates in other units, the key itself ("kernel_gbs": GB/s;
// "pairs_per_second", "pairs_per_second_kernel": pairs/s).
std::string metric_name(const std::string& key) {
  if (key.ends_with("_gbs") || key.find("per_second") != std::string::npos) return key;
  return "gflops_" + key;
}

// The numbers of one run worth comparing across runs and devices: the median iteration's and the
// total's times, the time to solution and its phases (phase_<name>_ms), and every rate of the "gflops"
// section (not the flop and byte counts behind them). A rate not in GFLOPS also keeps its old name
// "gflops_<key>" (gflops_pairs_per_second, gflops_kernel_gbs), deprecated: readers of results written
// before the rename still find it.
json metrics_of(const json& r) {
  json m = json::object();
  for (const char* section : {"median_iteration", "total"}) {
    if (!r["timings"].contains(section)) continue;
    const std::string prefix = section == std::string("total") ? "total_" : "iteration_";
    for (const auto& [key, value] : r["timings"][section].items()) m[prefix + key] = value;
  }
  if (r["timings"].contains("time_to_solution_ms")) {
    m["time_to_solution_ms"] = r["timings"]["time_to_solution_ms"];
    for (const auto& [phase, value] : r["timings"]["phases_ms"].items()) m["phase_" + phase + "_ms"] = value;
  }
  for (const auto& [key, value] : r["gflops"].items()) {
    const bool count = key.rfind("flops", 0) == 0 || key.rfind("bytes", 0) == 0 || key.ends_with("_per_iteration");
    if (!value.is_number() || count) continue;
    m[metric_name(key)] = value;
    m["gflops_" + key] = value;  // deprecated beside a renamed one; the same key for the GFLOPS rates
  }
  return m;
}

json summarise(const std::vector<json>& runs) {
  json out = json::object();
  for (const auto& [key, first] : runs.front().items()) {
    std::vector<double> v;
    for (const json& r : runs)
      if (r.contains(key)) v.push_back(r[key].get<double>());
    std::sort(v.begin(), v.end());
    const double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    out[key] = {{"median", median}, {"min", v.front()}, {"max", v.back()}};
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string python_interpreter() {
  if (const char* chosen = std::getenv("ITERCL_PYTHON"); chosen && *chosen) return chosen;
  return ITERCL_PYTHON_INTERPRETER;  // the interpreter CMake found (CMakeLists.txt)
}

// A peer's time limit when its entry sets no "timeout_s": ten minutes, so that a hung peer ends its own
// run, not the suite; a peer that needs longer sets its own (benchmarks/pagerank/suite.json: 900).
constexpr int kPeerTimeoutS = 600;

// A peer program, run once from the suite's folder; its stdout must be JSON. "status": "ok", "missing"
// (the command or a module it imports is not installed) or "crashed" (anything else: an exception, a
// signal, the time limit, output that is not JSON).
json run_peer(const json& peer, const std::filesystem::path& base, const std::filesystem::path& tmp) {
  // A Python peer runs with itercl's one interpreter, not whichever python3 comes first on PATH: one
  // without the peer's packages would otherwise report nothing. The record holds the command as run.
  json as_run = peer["command"];
  if (as_run[0] == "python3" || as_run[0] == "python") as_run[0] = python_interpreter();
  json record = {{"name", peer.value("name", "peer")}, {"command", as_run}};
  std::string command = "cd " + shell_quote(base.string()) + " && timeout " +
                        std::to_string(peer.value("timeout_s", kPeerTimeoutS)) + " ";
  for (const json& arg : as_run) command += shell_quote(arg.get<std::string>()) + " ";
  const auto out = tmp / "peer.out", err = tmp / "peer.err";
  command += "> " + shell_quote(out.string()) + " 2> " + shell_quote(err.string());
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  record["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int rc = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const PeerFailure failure = classify_peer_failure(rc, slurp(err));
  try {
    if (rc != 0) throw std::runtime_error("exit status " + std::to_string(rc) + ": " + slurp(err));
    record["output"] = core::parse_json_text(slurp(out), "its output");
    // A peer that lists {"peer", "missing"} records ran without one of its packages: missing, not ok.
    std::string missing;
    if (record["output"].is_array())
      for (const json& r : record["output"])
        if (r.is_object() && r.contains("missing"))
          missing += (missing.empty() ? "" : "; ") + r.value("peer", std::string("?")) + ": " + r["missing"].dump();
    if (!missing.empty()) {
      record["ok"] = false;
      record["status"] = "missing";
      record["error"] = missing;
      return record;
    }
    record["ok"] = true;
    record["status"] = "ok";
  } catch (const std::exception& e) {  // recorded, not fatal to the suite
    record["ok"] = false;
    record["status"] = rc != 0 && failure == PeerFailure::missing ? "missing" : "crashed";
    record["error"] = e.what();
  }
  return record;
}

std::string csv_field(const json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string cases_csv(const json& cases) {
  std::set<std::string> varied_keys, metric_keys;
  for (const json& c : cases) {
    for (const auto& [k, v] : c["varied"].items()) varied_keys.insert(k);
    if (c.contains("metrics"))
      for (const auto& [k, v] : c["metrics"].items()) metric_keys.insert(k);
  }
  std::ostringstream out;
  out << "group,case,device,device_name";
  for (const auto& k : varied_keys) out << "," << k;
  for (const auto& k : metric_keys) out << "," << k << "," << k << "_min," << k << "_max";
  out << ",n_iter,error\n";
  for (const json& c : cases) {
    out << csv_field(c["group"]) << "," << csv_field(c["case"]) << "," << csv_field(c["device"]) << ","
        << csv_field(c["device_name"]);
    for (const auto& k : varied_keys) out << "," << csv_field(c["varied"].value(k, json()));
    for (const auto& k : metric_keys) {
      const json m = c.contains("metrics") ? c["metrics"].value(k, json()) : json();
      for (const char* stat : {"median", "min", "max"}) out << "," << (m.is_null() ? "" : csv_field(m[stat]));
    }
    out << "," << csv_field(c.contains("result") ? c["result"].value("n_iter", json()) : json()) << ","
        << csv_field(c.value("error", json())) << "\n";
  }
  return out.str();
}

}  // namespace bench

BenchOutcome run_bench_file(const std::filesystem::path& suite_path, const BenchOptions& options) {
  using nlohmann::json;
  const std::string source = suite_path.string();
  io::OutputSet outputs;  // the results JSON and CSV, renamed together when the suite has run
  // As a run's config: comments allowed, a number beyond double (1e999) named with its field.
  const json suite = io::parse_config(suite_path, "suite");
  const std::filesystem::path base = suite_path.parent_path();
  ConfigObject top(suite, source, "");
  const std::string name = top.string("name", suite_path.stem().string());
  top.string("description");
  long long warmup = top.integer("warmup").value_or(1), repeat = top.integer("repeat").value_or(3);
  if (options.warmup >= 0) warmup = options.warmup;
  if (options.repeat >= 0) repeat = options.repeat;
  if (warmup < 0) top.fail("warmup", "expected an integer >= 0");
  if (repeat < 1) top.fail("repeat", "expected an integer >= 1, got " + std::to_string(repeat));
  std::vector<std::string> devices = options.devices;
  if (const json* d = top.get("devices"); devices.empty()) {
    if (!d)
      devices = {"auto"};
    else if (d->is_array() && !d->empty() &&
             std::all_of(d->begin(), d->end(), [](const json& s) { return s.is_string(); }))
      devices = d->get<std::vector<std::string>>();
    else
      top.fail("devices", "expected a non-empty list of device specs");
  }
  const json* experiment = top.get("experiment");
  if (!experiment || !experiment->is_object()) top.fail("experiment", "expected the experiment config (an object)");
  const json* groups = top.get("groups");
  if (!groups || !groups->is_array() || groups->empty()) top.fail("groups", "expected a non-empty list of groups");
  const json* peers = top.get("peers");
  if (peers && !peers->is_array()) top.fail("peers", "expected a list of {\"name\", \"command\"}");
  for (std::size_t i = 0; peers && i < peers->size(); ++i) {
    const json& p = (*peers)[i];
    if (!p.is_object() || !p.contains("command") || !p["command"].is_array() || p["command"].empty())
      top.fail("peers", "each peer needs a \"command\": a non-empty list of strings");
    // Read as an int by run_peer: range-checked here, so that 4294967896 is not 600.
    ConfigObject(p, source, "peers[" + std::to_string(i) + "]")
        .integer("timeout_s", 1, std::numeric_limits<int>::max());
  }
  const auto suite_output = top.path("output", base);
  const std::filesystem::path output =
      !options.output.empty() ? options.output : suite_output.value_or(base / "results" / (name + ".json"));
  const std::filesystem::path csv_output = std::filesystem::path(output).replace_extension(".csv");
  top.finish();
  outputs.claim(output, options.output.empty() ? source + ": output" : "--out");
  outputs.claim(csv_output, (options.output.empty() ? source + ": output" : "--out") + " (its CSV)");
  std::vector<bench::Case> cases = bench::expand(*experiment, *groups, options.groups, source);
  std::erase_if(cases, [&](const bench::Case& c) {
    return std::any_of(options.limits.begin(), options.limits.end(), [&](const auto& limit) {
      const json v = bench::get_path(c.config, limit.first);
      return v.is_number() && v.get<double>() > limit.second;
    });
  });

  const auto tmp = std::filesystem::temp_directory_path() / ("itercl-bench-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(tmp);
  // Removed however the run ends: a progress callback's Cancelled (or a bad case) leaves nothing behind,
  // and neither does a signal (SIGINT, SIGTERM, SIGHUP, ...: remove_temporaries_on_signals).
  core::remove_folder_on_signals(tmp);
  struct RemoveWhenDone {
    std::filesystem::path dir;
    ~RemoveWhenDone() {
      core::forget_folder_on_signals();
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } remove_tmp{tmp};
  BenchOutcome outcome;
  json results = {{"suite", name},
                  {"description", suite.value("description", "")},
                  {"itercl_version", ITERCL_VERSION},
                  {"commit", core::build_commit()},
                  {"started_at", utc_timestamp()},
                  {"warmup", warmup},
                  {"repeat", repeat},
                  {"devices", json::array()},
                  {"cases", json::array()},
                  {"peers", json::array()}};
  const Stopwatch clock;
  const std::string progress_name = "bench " + name;
  int started_cases = 0;
  const int total_cases = static_cast<int>(devices.size() * cases.size());
  for (const std::string& spec : devices) {
    const Device device = Device::select(spec);
    results["devices"].push_back({{"spec", spec}, {"info", device.info()}, {"peaks", measure_peaks(device)}});
    for (const bench::Case& c : cases) {
      json record = {{"group", c.group},
                     {"case", c.name},
                     {"device", spec},
                     {"device_name", device.info().name},
                     {"varied", c.varied}};
      if (options.progress)
        options.progress(ProgressEvent{.algorithm = progress_name,
                                       .iteration = ++started_cases,
                                       .max_iterations = total_cases,
                                       .elapsed_s = clock.seconds(),
                                       .step = "case"});
      json config = c.config;
      config["output"] = (tmp / "case.json").string();
      RunOverrides overrides;
      overrides.device = spec;
      // The case's own progress (its iterations, rectangles) reaches the caller too, so that a cancel
      // stops the case where it is; what the callback throws ends the bench, not just the case.
      std::exception_ptr stopped;
      if (options.progress)
        overrides.progress = [&](const ProgressEvent& inner) {
          try {
            options.progress(inner);
          } catch (...) {
            stopped = std::current_exception();
            throw;
          }
        };
      try {
        std::vector<json> runs;
        json last;
        for (long long r = 0; r < warmup + repeat; ++r) {
          last = run_experiment(config, source + ": " + c.name, base, overrides).results;
          if (r >= warmup) runs.push_back(bench::metrics_of(last));
        }
        record["config"] = last["config"];
        record["metrics"] = bench::summarise(runs);
        record["result"] = json::object();
        for (const auto& [key, value] : last["result"].items())
          if (value.is_number() || value.is_boolean()) record["result"][key] = value;
      } catch (const std::exception& e) {  // recorded with the case; the suite goes on
        if (stopped) std::rethrow_exception(stopped);
        record["error"] = e.what();
        ++outcome.failed;
      }
      if (options.log) {
        // Iterative algorithms report a median iteration; the one-pass ones (pairwise) only a total.
        const json m = record.value("metrics", json::object());
        const bool iterative = m.contains("iteration_wall_ms");
        options.log(
            spec + "  " + c.name + ": " +
            (record.contains("error")
                 ? "failed: " + record["error"].get<std::string>()
                 : std::to_string(m[iterative ? "iteration_wall_ms" : "total_wall_ms"]["median"].get<double>()) +
                       (iterative ? " ms per iteration" : " ms in all") +
                       (m.contains("time_to_solution_ms")
                            ? ", " + std::to_string(m["time_to_solution_ms"]["median"].get<double>()) +
                                  " ms to solution"
                            : std::string())));
      }
      results["cases"].push_back(std::move(record));
    }
  }
  if (options.peers && peers)
    for (const json& peer : *peers) {
      json record = bench::run_peer(peer, base, tmp);
      if (record["status"] == "missing") outcome.peers_missing.push_back(record["name"].get<std::string>());
      if (record["status"] == "crashed") outcome.peers_crashed.push_back(record["name"].get<std::string>());
      if (options.log && !record["ok"].get<bool>()) {
        std::string error = record["error"].get<std::string>();
        if (error.size() > 400) error = error.substr(0, 400) + "...";
        options.log("peer " + record["name"].get<std::string>() + " " + record["status"].get<std::string>() + ": " +
                    error);
      }
      results["peers"].push_back(std::move(record));
    }
  outcome.json_path = output;
  outcome.csv_path = csv_output;
  write_file_atomically(outcome.json_path, results.dump(1) + "\n");
  write_file_atomically(outcome.csv_path, bench::cases_csv(results["cases"]));
  outputs.commit();
  outcome.results = std::move(results);
  return outcome;
}

}  // namespace itercl
