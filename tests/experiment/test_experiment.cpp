// Experiments from JSON configs, end to end on the device: results files, outputs, reproducibility.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/io.hpp"
#include "itercl/kmeans.hpp"
#include "test_support.hpp"

using nlohmann::json;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace experiment_tests {

json s1_config(const std::filesystem::path& out) {
  return {{"name", "s1"},
          {"algorithm", "kmeans"},
          {"data", {{"path", (test::source_dir() / "datasets/uef/s1.data.gz").string()}}},
          {"params", {{"n_clusters", 15}, {"init", (test::source_dir() / "datasets/uef/s1-cb.txt").string()}}},
          {"output", {{"path", (out / "s1.json").string()}, {"labels", "s1-labels.npy"}}}};
}

TEST_CASE("a K-Means config runs, writes its results and labels, and agrees with the library call") {
  test::TempDir tmp;
  const auto outcome = itercl::run_experiment(s1_config(tmp.path), "s1.json", tmp.path);
  const json& r = outcome.results;
  CHECK(outcome.results_path == tmp.path / "s1.json");
  CHECK(json::parse(test::slurp(outcome.results_path)) == r);
  for (const char* key : {"config", "device", "data", "kernel", "result", "timings", "gflops", "started_at"})
    CHECK(r.contains(key));
  // The commit the binary was built from (cmake/commit.cmake): git's full hash, marked when the tree differed.
  CHECK(std::regex_match(r["commit"].get<std::string>(), std::regex("[0-9a-f]{40}(-dirty)?|unknown")));
  CHECK(r["data"]["n_samples"] == 5000);
  CHECK(r["device"]["name"] == test::device().info().name);

  itercl::KMeansParams p;
  p.n_clusters = 15;
  p.init = itercl::KMeansInit::given;
  p.init_centroids = itercl::load_matrix(test::source_dir() / "datasets/uef/s1-cb.txt");
  const auto direct =
      itercl::KMeans(test::device(), p).fit(itercl::load_matrix(test::source_dir() / "datasets/uef/s1.data.gz"));
  CHECK(r["result"]["inertia"].get<double>() == direct.inertia);
  CHECK(r["result"]["n_iter"] == direct.n_iter);
  CHECK(r["result"]["converged"] == direct.converged);
  CHECK(r["result"]["centroids"].size() == 15);
  CHECK(r["result"]["inertia_trace"].size() == static_cast<std::size_t>(direct.n_iter));
  CHECK(r["timings"]["per_iteration"].size() == static_cast<std::size_t>(direct.n_iter));
  CHECK(r["timings"]["median_iteration"]["kernel_ms"].get<double>() > 0);
  CHECK(r["gflops"]["kernel"].get<double>() > 0);

  // Labels: relative paths in "output" resolve against the config's folder; .npy of int32.
  const std::string npy = test::slurp(tmp.path / "s1-labels.npy");
  REQUIRE(npy.size() > 128);
  CHECK(npy.find("'descr': '<i4'") != std::string::npos);
  CHECK(npy.find("'shape': (5000,)") != std::string::npos);
  const std::size_t header = 10 + static_cast<unsigned char>(npy[8]) + 256 * static_cast<unsigned char>(npy[9]);
  REQUIRE(npy.size() == header + 5000 * 4);
  std::vector<std::int32_t> labels(5000);
  std::memcpy(labels.data(), npy.data() + header, 5000 * 4);
  CHECK(labels == direct.labels);
  CHECK(r["result"]["labels"] == (tmp.path / "s1-labels.npy").string());
}

TEST_CASE("a drawn random_state is recorded, and the recorded config reproduces the run") {
  test::TempDir tmp;
  json config = {{"algorithm", "kmeans"},
                 {"data", {{"generator", "blobs"}, {"n_samples", 2000}, {"n_features", 3}, {"centers", 5}}},
                 {"params", {{"n_clusters", 5}}},
                 {"repeat", 2},
                 {"output", (tmp.path / "a.json").string()}};
  const auto first = itercl::run_experiment(config, "gen.json", tmp.path);
  const json& recorded = first.results["config"];
  REQUIRE(recorded["params"].contains("random_state"));
  CHECK(first.results["result"]["random_state"] == recorded["params"]["random_state"]);
  CHECK(first.results["timings"]["repeat_wall_ms"].size() == 2);

  json again = recorded;
  again["output"] = (tmp.path / "b.json").string();
  const auto second = itercl::run_experiment(again, "gen.json", tmp.path);
  CHECK(second.results["result"]["centroids"] == first.results["result"]["centroids"]);
  CHECK(second.results["result"]["inertia"] == first.results["result"]["inertia"]);
}

TEST_CASE("overrides, large centroids to a file, and a failed run leaving the earlier results intact") {
  test::TempDir tmp;
  json config = {
      {"algorithm", "kmeans"},
      {"precision", "float"},
      {"data", {{"generator", "uniform"}, {"n_samples", 3000}, {"n_features", 40}, {"random_state", 2}}},
      {"params", {{"n_clusters", 300}, {"init", "random"}, {"n_init", 1}, {"max_iter", 3}, {"random_state", 1}}},
      {"output", {{"path", "r.json"}}}};
  itercl::RunOverrides overrides;
  overrides.precision = "double";
  const auto outcome = itercl::run_experiment(config, "big.json", tmp.path, overrides);
  CHECK(outcome.results["precision"] == "double");
  CHECK(outcome.results["config"]["precision"] == "double");
  const json& centroids = outcome.results["result"]["centroids"];
  REQUIRE(centroids.contains("file"));  // 300 x 40 values: too many to inline
  const itercl::Matrix written = itercl::load_matrix(centroids["file"].get<std::string>());
  CHECK(written.rows() == 300);
  CHECK(written.cols() == 40);

  // The same results path, a config that fails while running: the earlier file stays as it was.
  const std::string before = test::slurp(tmp.path / "r.json");
  config["params"]["kernel"] = {{"work_group_size", 1 << 30}};
  CHECK_THROWS_WITH_AS(itercl::run_experiment(config, "big.json", tmp.path),
                       doctest::Contains("params.kernel.work_group_size"), itercl::InputError);
  CHECK(test::slurp(tmp.path / "r.json") == before);
}

TEST_CASE("device auto: the results say which device ran and why; another spec records no choice") {
  test::TempDir tmp;
  const json config = {
      {"algorithm", "kmeans"},
      {"data", {{"generator", "uniform"}, {"n_samples", 500}, {"n_features", 2}, {"random_state", 1}}},
      {"params", {{"n_clusters", 3}, {"init", "random"}, {"n_init", 1}, {"max_iter", 2}, {"random_state", 1}}},
      {"output", "r.json"}};
  itercl::RunOverrides overrides;
  overrides.device = "auto";
  const json r = itercl::run_experiment(config, "auto.json", tmp.path, overrides).results;
  REQUIRE(r["device_choice"].is_object());
  CHECK_FALSE(r["device_choice"]["verdict"].get<std::string>().empty());
  // With a GPU and a CPU present the model's predictions are recorded, and it ran where it chose.
  for (const json& candidate : r["device_choice"].value("candidates", json::array()))
    if (candidate["id"] == r["device"]["id"]) CHECK(candidate.contains("predicted_ms"));
  CHECK(r["config"]["device"] == "auto");

  overrides.device = test::device().info().id();
  CHECK(itercl::run_experiment(config, "fixed.json", tmp.path, overrides).results["device_choice"].is_null());
}

TEST_CASE("--out: PATH takes the relative extra files along; - writes no file, the caller prints the results") {
  test::TempDir tmp;
  const json config = {
      {"algorithm", "kmeans"},
      {"data", {{"generator", "uniform"}, {"n_samples", 200}, {"n_features", 2}, {"random_state", 1}}},
      {"params", {{"n_clusters", 3}, {"init", "random"}, {"n_init", 1}, {"max_iter", 2}, {"random_state", 1}}},
      {"output", {{"path", "r.json"}, {"labels", "labels.txt"}}}};
  itercl::RunOverrides overrides;
  overrides.output = tmp.path / "moved" / "r.json";
  const auto moved = itercl::run_experiment(config, "c.json", tmp.path, overrides);
  CHECK(std::filesystem::exists(tmp.path / "moved" / "r.json"));
  CHECK(std::filesystem::exists(tmp.path / "moved" / "labels.txt"));
  CHECK_FALSE(std::filesystem::exists(tmp.path / "labels.txt"));

  overrides.output = "-";
  std::vector<int> iterations;  // and the progress events come as in any run
  overrides.progress = [&](const itercl::ProgressEvent& e) { iterations.push_back(e.iteration); };
  const auto printed = itercl::run_experiment(config, "c.json", tmp.path, overrides);
  CHECK_FALSE(std::filesystem::exists(tmp.path / "r.json"));
  CHECK_FALSE(std::filesystem::exists("-"));
  CHECK(std::filesystem::exists(tmp.path / "labels.txt"));  // beside the config
  CHECK(printed.results["config"]["output"]["path"] == "-");
  CHECK(printed.summary.find("results: standard output") != std::string::npos);
  CHECK_FALSE(iterations.empty());
}

TEST_CASE("time to solution: every algorithm's phases add up to it, the last repeat's, the first's beside it") {
  test::TempDir tmp;
  const std::string s1 = (test::source_dir() / "datasets/uef/s1.data.gz").string();
  const json small_vectors = {{"generator", "uniform"}, {"n_samples", 300}, {"n_features", 3}, {"random_state", 1}};
  const std::vector<json> configs = {
      {{"algorithm", "kmeans"}, {"data", {{"path", s1}}}, {"params", {{"n_clusters", 15}, {"random_state", 1}}}},
      {{"algorithm", "smacof"},
       {"data", {{"kind", "vectors"}, {"generator", "uniform"}, {"n_samples", 60}, {"n_features", 3}}},
       {"params", {{"max_iter", 5}, {"random_state", 1}}}},
      {{"algorithm", "pagerank"}, {"data", {{"generator", "rmat"}, {"scale", 8}, {"random_state", 1}}}},
      {{"algorithm", "pairwise_distances"}, {"data", small_vectors}},
      {{"algorithm", "distance_histogram"}, {"data", small_vectors}, {"params", {{"bins", 16}, {"range", {0, 2}}}}}};
  for (json config : configs) {
    const std::string algorithm = config["algorithm"];
    CAPTURE(algorithm);
    config["repeat"] = 2;
    config["output"] = (tmp.path / (algorithm + ".json")).string();
    const json t = itercl::run_experiment(config, algorithm + ".json", tmp.path).results["timings"];
    REQUIRE(t.contains("time_to_solution_ms"));
    double sum = 0;
    for (const auto& [phase, ms] : t["phases_ms"].items()) {
      CHECK(ms.get<double>() >= 0);
      sum += ms.get<double>();
    }
    CHECK(sum == doctest::Approx(t["time_to_solution_ms"].get<double>()).epsilon(1e-9));
    REQUIRE(t["repeat_wall_ms"].size() == 2);
    CHECK(t["repeat_wall_ms"][1] == t["time_to_solution_ms"]);
    CHECK(t["first_fit"]["time_to_solution_ms"] == t["repeat_wall_ms"][0]);
    // Each repeat is a whole call: it uploads (or, for PageRank, builds its graph) again.
    const char* first = algorithm == "pagerank" ? "graph_build" : "upload";
    CHECK(t["phases_ms"].contains(first));
    CHECK(t["first_fit"]["phases_ms"].contains(first));
  }
}

}  // namespace experiment_tests
