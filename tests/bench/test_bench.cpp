// itercl bench: suites expanded into cases, repeated, summarised; failures and peers recorded.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "itercl/bench.hpp"
#include "itercl/error.hpp"
#include "test_support.hpp"

using nlohmann::json;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace bench_tests {

json suite() {
  return {{"name", "tiny"},
          {"devices", {test::device().info().id()}},
          {"warmup", 1},
          {"repeat", 2},
          {"experiment",
           {{"algorithm", "kmeans"},
            {"data", {{"generator", "uniform"}, {"n_features", 2}, {"random_state", 1}}},
            {"params", {{"n_clusters", 4}, {"init", "random"}, {"n_init", 1}, {"max_iter", 3}, {"tol", 0}}}}},
          {"groups",
           {{{"name", "grid"},
             {"vary", {{"data.n_samples", {100, 200, 400}}, {"params.kernel.variant", {"naive", "expanded"}}}}},
            {{"name", "broken"}, {"set", {{"params.kernel.variant", "fastest"}}}}}},
          {"peers",
           {{{"name", "echo"}, {"command", {"python3", "-c", "print('[{\"ms\": 1}]')"}}},
            {{"name", "absent"}, {"command", {"itercl-no-such-peer"}}},
            {{"name", "no-module"}, {"command", {"python3", "-c", "import itercl_no_such_module"}}},
            {{"name", "crash"}, {"command", {"python3", "-c", "raise RuntimeError('boom')"}}},
            {{"name", "not-json"}, {"command", {"echo", "hello"}}}}}};
}

std::filesystem::path write_suite(const test::TempDir& dir, const json& j) {
  std::ofstream(dir / "suite.json") << j.dump();
  return dir / "suite.json";
}

TEST_CASE("a suite runs every combination of its groups, repeated, with medians within their spreads") {
  test::TempDir dir;
  itercl::BenchOptions options;
  options.output = dir / "out" / "tiny.json";
  std::vector<std::string> log;
  options.log = [&](const std::string& line) { log.push_back(line); };
  // Progress: one event as each case starts, numbered 1..7 of 7, and the running cases' own iterations.
  std::vector<int> started;
  int iterations = 0;
  options.progress = [&](const itercl::ProgressEvent& e) {
    if (e.step != "case") {
      CHECK(e.algorithm == "kmeans");
      ++iterations;
      return;
    }
    CHECK(e.max_iterations == 7);
    started.push_back(e.iteration);
  };
  const auto outcome = itercl::run_bench_file(write_suite(dir, suite()), options);
  const json& r = outcome.results;

  REQUIRE(r["cases"].size() == 7);  // 3 x 2 combinations, and the broken group's one case
  CHECK(outcome.failed == 1);
  CHECK(log.size() == 7 + 4);  // the cases, then the failed peers
  CHECK(started == std::vector<int>{1, 2, 3, 4, 5, 6, 7});
  CHECK(iterations == 6 * 3 * 3);  // 6 cases that run, 1 warm-up and 2 timed runs each, 3 iterations a run
  CHECK(r["devices"][0]["peaks"]["fp32_gflops"].get<double>() > 0);
  CHECK(r["devices"][0]["peaks"]["bandwidth_gbs"].get<double>() > 0);
  for (const json& c : r["cases"]) {
    CAPTURE(c["case"].get<std::string>());
    if (c["group"] == "broken") {
      CHECK(c["error"].get<std::string>().find("kernel.variant") != std::string::npos);
      continue;
    }
    CHECK(c["result"]["n_iter"] == 3);
    CHECK(c["config"]["data"]["n_samples"] == c["varied"]["data.n_samples"]);
    for (const auto& [key, m] : c["metrics"].items()) {
      CAPTURE(key);
      CHECK(m["min"].get<double>() <= m["median"].get<double>());
      CHECK(m["median"].get<double>() <= m["max"].get<double>());
    }
    CHECK(c["metrics"].contains("iteration_kernel_ms"));
    CHECK(c["metrics"].contains("gflops_kernel"));
    CHECK(c["metrics"].contains("kernel_gbs"));  // GB/s, and its deprecated old name beside it
    CHECK(c["metrics"]["gflops_kernel_gbs"] == c["metrics"]["kernel_gbs"]);
  }
  CHECK(r["cases"][0]["case"] == "grid n_samples=100 variant=naive");  // the last list varies fastest
  CHECK(r["cases"][1]["case"] == "grid n_samples=100 variant=expanded");

  REQUIRE(r["peers"].size() == 5);
  CHECK(r["peers"][0]["ok"] == true);
  CHECK(r["peers"][0]["status"] == "ok");
  CHECK(r["peers"][0]["output"][0]["ms"] == 1);
  // A peer that is not installed (no such command, a Python module missing) is told from one that crashed.
  CHECK(r["peers"][1]["ok"] == false);
  CHECK(r["peers"][1]["status"] == "missing");
  CHECK(r["peers"][2]["status"] == "missing");
  CHECK(r["peers"][3]["status"] == "crashed");
  CHECK(r["peers"][3]["error"].get<std::string>().find("boom") != std::string::npos);
  CHECK(r["peers"][4]["status"] == "crashed");  // its output is not JSON
  CHECK(outcome.peers_missing == std::vector<std::string>{"absent", "no-module"});
  CHECK(outcome.peers_crashed == std::vector<std::string>{"crash", "not-json"});
  CHECK(log[8].rfind("peer no-module missing: exit status 1: ", 0) == 0);

  // The CSV: a header and a row per case, the varied fields as columns.
  const std::string csv = test::slurp(outcome.csv_path);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 8);
  CHECK(csv.rfind("group,case,device,device_name,data.n_samples,params.kernel.variant,", 0) == 0);
  CHECK(json::parse(test::slurp(outcome.json_path)) == r);
}

TEST_CASE("groups, limits and repetitions chosen on the command line; bad suites named") {
  test::TempDir dir;
  itercl::BenchOptions options;
  options.output = dir / "o.json";
  options.groups = {"grid"};
  options.limits = {{"data.n_samples", 200}};
  options.repeat = 1;
  options.warmup = 0;
  options.peers = false;
  const auto r = itercl::run_bench_file(write_suite(dir, suite()), options).results;
  CHECK(r["cases"].size() == 4);
  CHECK(r["repeat"] == 1);
  CHECK(r["peers"].empty());

  options.groups = {"nope"};
  CHECK_THROWS_WITH_AS(itercl::run_bench_file(write_suite(dir, suite()), options),
                       doctest::Contains("no group named 'nope'"), itercl::InputError);
  json bad = suite();
  bad["grups"] = json::array();
  CHECK_THROWS_WITH_AS(itercl::run_bench_file(write_suite(dir, bad), {}), doctest::Contains("grups: unknown field"),
                       itercl::InputError);
  bad = suite();
  bad["groups"][0]["vary"]["data.n_samples"] = json::array();
  CHECK_THROWS_WITH_AS(itercl::run_bench_file(write_suite(dir, bad), {}),
                       doctest::Contains("groups[0].vary.data.n_samples: expected a non-empty list"),
                       itercl::InputError);
  CHECK_THROWS_AS(itercl::run_bench_file(dir / "absent.json", {}), itercl::InputError);
}

TEST_CASE("a one-pass algorithm's suite reports its total time, logged as such") {
  test::TempDir dir;
  json s = suite();
  s["experiment"] = {{"algorithm", "pairwise_distances"},
                     {"data", {{"generator", "uniform"}, {"n_samples", 40}, {"n_features", 3}, {"random_state", 1}}},
                     {"params", {{"metric", "cityblock"}, {"form", "none"}}}};
  s["groups"] = {{{"name", "one"}}};
  s.erase("peers");
  itercl::BenchOptions options;
  options.output = dir / "p.json";
  std::vector<std::string> log;
  options.log = [&](const std::string& line) { log.push_back(line); };
  const json r = itercl::run_bench_file(write_suite(dir, s), options).results;
  REQUIRE(r["cases"].size() == 1);
  CHECK_FALSE(r["cases"][0].contains("error"));
  const json& m = r["cases"][0]["metrics"];
  CHECK(m.contains("total_kernel_ms"));
  // Every metric named by its unit: pairs per second is not GFLOPS; the old name stays beside it.
  REQUIRE(m.contains("pairs_per_second"));
  CHECK(m["pairs_per_second"]["median"].get<double>() > 0);
  CHECK(m["gflops_pairs_per_second"] == m["pairs_per_second"]);
  CHECK(m.contains("gflops_kernel"));
  REQUIRE(log.size() == 1);
  CHECK(log[0].find("ms in all") != std::string::npos);
}

}  // namespace bench_tests

TEST_CASE("a failed peer is missing when its command or a module is not there, crashed otherwise") {
  using itercl::PeerFailure;
  CHECK(itercl::classify_peer_failure(127, "sh: 1: torchrun: not found") == PeerFailure::missing);
  CHECK(itercl::classify_peer_failure(126, "") == PeerFailure::missing);
  CHECK(itercl::classify_peer_failure(1, "ModuleNotFoundError: No module named 'numpy'") == PeerFailure::missing);
  CHECK(itercl::classify_peer_failure(1, "ZeroDivisionError: division by zero") == PeerFailure::crashed);
  CHECK(itercl::classify_peer_failure(124, "") == PeerFailure::crashed);  // timeout(1): past its time limit
  CHECK(itercl::classify_peer_failure(139, "") == PeerFailure::crashed);  // a signal
}
