// Config errors through run_experiment: each is an InputError naming the config and the field, and
// each is found while the config, data and params are read, before a device is selected.
//
// Every run here asks for a device that cannot exist, so no case needs OpenCL: a check that comes
// too late reaches device selection and fails with "no such device" instead of the expected message.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace io_tests {

// A fresh folder with a 6 x 2 data set, removed afterwards.
struct ConfigFolder : test::TempDir {
  ConfigFolder() { std::ofstream(path / "points.csv") << "x,y\n0,0\n0,1\n1,0\n10,10\n10,11\n11,10\n"; }
};

// A config that passes every check; each case below breaks one thing in it.
json good_config() {
  return {{"algorithm", "kmeans"},
          {"data", {{"path", "points.csv"}}},
          {"params", {{"n_clusters", 2}, {"random_state", 0}}},
          {"output", {{"path", "results.json"}}}};
}

itercl::RunOverrides without_device() {
  itercl::RunOverrides overrides;
  overrides.device = "itercl-tests-no-such-device";
  return overrides;
}

// The message of the InputError that `f` throws; a failed check for any other outcome.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const itercl::InputError& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL_CHECK("expected an itercl::InputError, got: " << e.what());
    return "";
  }
  FAIL_CHECK("expected an itercl::InputError, nothing was thrown");
  return "";
}

void check_mentions(const std::string& message, const std::string& part) {
  CHECK_MESSAGE(message.find(part) != std::string::npos, "'" << part << "' is missing from: " << message);
}

void check_config_error(const json& config, const fs::path& base, const std::string& expected) {
  check_mentions(input_error([&] { itercl::run_experiment(config, "cfg.json", base, without_device()); }), expected);
}

std::string read_text(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

// Sets or clears ITERCL_DEVICE for one test and restores the caller's value afterwards.
class DeviceEnvironment {
 public:
  DeviceEnvironment() {
    if (const char* v = std::getenv("ITERCL_DEVICE")) saved_ = v;
  }
  ~DeviceEnvironment() {
    if (saved_)
      setenv("ITERCL_DEVICE", saved_->c_str(), 1);
    else
      unsetenv("ITERCL_DEVICE");
  }
  void set(const char* value) { setenv("ITERCL_DEVICE", value, 1); }
  void clear() { unsetenv("ITERCL_DEVICE"); }

 private:
  std::optional<std::string> saved_;
};

TEST_CASE("the top level of a config") {
  ConfigFolder dir;
  json c = good_config();
  SUBCASE("an unknown field") {
    c["algoritm"] = "kmeans";
    check_config_error(c, dir.path, "cfg.json: algoritm: unknown field (expected one of: algorithm,");
  }
  SUBCASE("no algorithm") {
    c.erase("algorithm");
    check_config_error(c, dir.path, "cfg.json: algorithm: missing; expected one of ");
  }
  SUBCASE("an unknown algorithm") {
    c["algorithm"] = "kmedoids";
    check_config_error(c, dir.path, "cfg.json: algorithm: unknown algorithm \"kmedoids\"; expected one of ");
  }
  SUBCASE("precision half") {
    c["precision"] = "half";
    check_config_error(c, dir.path, "cfg.json: precision: expected \"float\" or \"double\", got \"half\"");
  }
  SUBCASE("repeat 0") {
    c["repeat"] = 0;
    check_config_error(c, dir.path, "cfg.json: repeat: expected an integer >= 1, got 0");
  }
  SUBCASE("an unknown output field") {
    c["output"]["lables"] = "labels.csv";
    check_config_error(c, dir.path,
                       "cfg.json: output.lables: unknown field (expected one of: centroids, labels, path)");
  }
  SUBCASE("an array instead of an object") {
    check_config_error(json::array({1, 2}), dir.path, "cfg.json: the config: expected a JSON object, got [1,2]");
  }
}

TEST_CASE("the data section of a config") {
  ConfigFolder dir;
  json c = good_config();
  SUBCASE("neither path nor generator") {
    c["data"] = json::object();
    check_config_error(c, dir.path, "cfg.json: data.path: give exactly one of \"path\" and \"generator\"");
  }
  SUBCASE("both path and generator") {
    c["data"]["generator"] = "blobs";
    check_config_error(c, dir.path, "cfg.json: data.path: give exactly one of \"path\" and \"generator\"");
  }
  SUBCASE("a missing file, resolved against the base folder") {
    c["data"]["path"] = "missing.csv";
    check_config_error(c, dir.path, "cfg.json: data.path: " + (dir.path / "missing.csv").string() + ": cannot open");
  }
  SUBCASE("an unknown field") {
    c["data"]["colour"] = "red";
    check_config_error(c, dir.path, "cfg.json: data.colour: unknown field");
  }
  SUBCASE("an unknown generator") {
    c["data"] = {{"generator", "gauss"}};
    check_config_error(c, dir.path, "cfg.json: data.generator: expected \"blobs\" or \"uniform\", got \"gauss\"");
  }
  SUBCASE("no samples") {
    c["data"] = {{"generator", "blobs"}, {"n_samples", 0}};
    check_config_error(c, dir.path, "cfg.json: data.n_samples: expected an integer >= 1, got 0");
  }
  SUBCASE("more samples than memory holds: refused before allocating, with the largest that fits") {
    // K-Means holds generated points in the run's precision: 4 bytes a value in float, 8 in double.
    c["data"] = {{"generator", "uniform"}, {"n_samples", 1000000000000LL}, {"n_features", 1000}};
    std::string message = input_error([&] { itercl::run_experiment(c, "cfg.json", dir.path, without_device()); });
    check_mentions(message, "cfg.json: data.n_samples: 1000000000000 x 1000 features need 4e+06 GB of memory");
    check_mentions(message, "samples of 1000 features fit");
    c["precision"] = "double";
    message = input_error([&] { itercl::run_experiment(c, "cfg.json", dir.path, without_device()); });
    check_mentions(message, "cfg.json: data.n_samples: 1000000000000 x 1000 features need 8e+06 GB of memory");
  }
}

TEST_CASE("the params section of a config") {
  ConfigFolder dir;
  json c = good_config();
  json& p = c["params"];
  SUBCASE("n_clusters missing") {
    p.erase("n_clusters");
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: missing: expected an integer >= 1");
  }
  SUBCASE("n_clusters a string") {
    p["n_clusters"] = "ten";
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: expected an integer, got \"ten\"");
  }
  SUBCASE("n_clusters a fraction") {
    p["n_clusters"] = 2.5;
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: expected an integer, got 2.5");
  }
  SUBCASE("n_clusters negative") {
    p["n_clusters"] = -3;
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: expected an integer >= 1, got");
  }
  SUBCASE("an unknown field") {
    p["n_cluster"] = 2;
    check_config_error(c, dir.path, "cfg.json: params.n_cluster: unknown field");
  }
  SUBCASE("max_iter 0") {
    p["max_iter"] = 0;
    check_config_error(c, dir.path, "cfg.json: params.max_iter: expected an integer >= 1, got 0");
  }
  SUBCASE("tol negative") {
    p["tol"] = -1;
    check_config_error(c, dir.path, "cfg.json: params.tol: expected a number >= 0, got -1");
  }
  SUBCASE("random_state negative") {
    p["random_state"] = -1;
    check_config_error(c, dir.path, "cfg.json: params.random_state: expected an integer >= 0, got -1");
  }
  SUBCASE("init a number") {
    p["init"] = 42;
    check_config_error(c, dir.path, "cfg.json: params.init: expected a file path or a non-empty array of rows, got 42");
  }
  SUBCASE("init with too few rows") {
    p["init"] = {{0, 0}};
    check_config_error(c, dir.path, "cfg.json: params.init: has 1 centroids for n_clusters = 2");
  }
  SUBCASE("init with a short row") {
    p["init"] = {{0, 0}, {1}};
    check_config_error(c, dir.path, "cfg.json: params.init: row 1 is [1]; expected 2 numbers");
  }
  SUBCASE("init holding a string") {
    p["init"] = {{0, "a"}, {1, 1}};
    check_config_error(c, dir.path, "cfg.json: params.init: row 0 holds \"a\"; expected finite numbers");
  }
  SUBCASE("n_init 3 with explicit init") {
    p["init"] = {{0, 0}, {10, 10}};
    p["n_init"] = 3;
    check_config_error(c, dir.path, "cfg.json: params.n_init: 3 runs from the same given centroids would be identical");
  }
  SUBCASE("sample_weight of the wrong length") {
    p["sample_weight"] = {1, 1, 1};
    check_config_error(c, dir.path, "cfg.json: params.sample_weight: 3 weights for 6 samples");
  }
  SUBCASE("kernel with an unknown field") {
    p["kernel"] = {{"wgs", 64}};
    check_config_error(c, dir.path, "cfg.json: params.kernel.wgs: unknown field");
  }
  SUBCASE("kernel variant fast") {
    p["kernel"] = {{"variant", "fast"}};
    check_config_error(c, dir.path,
                       "cfg.json: params.kernel.variant: expected one of auto, naive, local_centroids, "
                       "local_centroids_points, expanded, tiled, gemm, point_blocks, mma; got \"fast\"");
  }
  SUBCASE("kernel work_group_size negative") {
    p["kernel"] = {{"work_group_size", -1}};
    check_config_error(
        c, dir.path,
        "cfg.json: params.kernel.work_group_size: expected a positive integer (or 0 for the default), got -1");
  }
  SUBCASE("kernel work_group_size 4294967360 is not 64") {
    p["kernel"] = {{"work_group_size", 4294967360LL}};
    check_config_error(c, dir.path,
                       "cfg.json: params.kernel.work_group_size: 4294967360 is out of range: expected an integer "
                       "from 0 to 2147483647");
  }
}

// Checks against the data run before the device is selected, and values are reported as written.
TEST_CASE("a device spec that matches no device is an error naming the config file") {
  ConfigFolder dir;
  check_config_error(good_config(), dir.path, "cfg.json: device 'itercl-tests-no-such-device': no such device");
}

TEST_CASE("params.n_clusters -3 is reported as -3") {
  ConfigFolder dir;
  json c = good_config();
  c["params"]["n_clusters"] = -3;
  check_config_error(c, dir.path, "cfg.json: params.n_clusters: expected an integer >= 1, got -3");
}

TEST_CASE("params.n_init 0 is rejected") {
  ConfigFolder dir;
  json c = good_config();
  c["params"]["n_init"] = 0;
  check_config_error(c, dir.path, "cfg.json: params.n_init: expected an integer >= 1 (or \"auto\"), got 0");
}

TEST_CASE("params.init with the wrong number of columns is rejected before the device") {
  ConfigFolder dir;
  json c = good_config();
  c["params"]["init"] = {{0, 0, 0}, {10, 10, 10}};
  check_config_error(c, dir.path, "cfg.json: params.init: centroids have 3 features, the data 2");
}

TEST_CASE("a negative params.sample_weight is rejected before the device") {
  ConfigFolder dir;
  json c = good_config();
  c["params"]["sample_weight"] = {1, 1, -1, 1, 1, 1};
  check_config_error(c, dir.path,
                     "cfg.json: params.sample_weight: weight 2 is -1; weights must be finite and non-negative");
}

TEST_CASE("a bad config leaves the results file alone") {
  ConfigFolder dir;
  std::ofstream(dir.path / "results.json") << "earlier results\n";
  json c = good_config();
  c["params"]["tol"] = -1;
  check_config_error(c, dir.path, "cfg.json: params.tol");
  CHECK(read_text(dir.path / "results.json") == "earlier results\n");

  c["output"]["path"] = "new/results.json";
  check_config_error(c, dir.path, "cfg.json: params.tol");
  CHECK_FALSE(fs::exists(dir.path / "new"));
}

TEST_CASE("run_experiment_file names a config file that is missing or not JSON") {
  ConfigFolder dir;
  std::ofstream(dir.path / "broken.json") << "{\"algorithm\": \"kmeans\",\n";
  check_mentions(input_error([&] { itercl::run_experiment_file(dir.path / "broken.json", without_device()); }),
                 (dir.path / "broken.json").string() + ": not valid JSON");
  check_mentions(input_error([&] { itercl::run_experiment_file(dir.path / "absent.json", without_device()); }),
                 (dir.path / "absent.json").string() + ": cannot open the config file");
}

TEST_CASE("device_spec: --device, then ITERCL_DEVICE, then the config, then auto") {
  DeviceEnvironment env;
  env.clear();
  CHECK(itercl::device_spec("", "") == "auto");
  CHECK(itercl::device_spec("", "gpu") == "gpu");
  CHECK(itercl::device_spec("cpu", "gpu") == "cpu");

  env.set("1:0");
  CHECK(itercl::device_spec("", "") == "1:0");
  CHECK(itercl::device_spec("", "gpu") == "1:0");
  CHECK(itercl::device_spec("cpu", "gpu") == "cpu");

  env.set("");  // set but empty counts as unset
  CHECK(itercl::device_spec("", "gpu") == "gpu");
}

// Issue 14: numbers read loosely. Every integer field is range-checked before its conversion, and a value
// out of range is reported as written with the range, in the config file, naming the field.
TEST_CASE("config numbers: huge integers, overflowing floats and non-finite generated data are errors") {
  ConfigFolder dir;
  json c = good_config();
  SUBCASE("repeat 3000000000 is not truncated to an int") {
    c["repeat"] = 3000000000LL;
    check_config_error(c, dir.path, "cfg.json: repeat: 3000000000 is out of range: expected an integer from");
    check_config_error(c, dir.path, "to 2147483647");
  }
  SUBCASE("n_clusters 18446744073709551615 is not -1") {
    c["params"]["n_clusters"] = 18446744073709551615ULL;
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: 18446744073709551615 is out of range");
  }
  SUBCASE("n_clusters 1e30 (a float beyond long long) is out of range, not a cast") {
    c["params"]["n_clusters"] = 1e30;
    check_config_error(c, dir.path, "cfg.json: params.n_clusters: 1e+30 is out of range");
  }
  SUBCASE("frame 1e10 is not 1410065408") {
    c = {{"algorithm", "distance_histogram"},
         {"data", {{"path", "water.gro"}, {"frame", 1e10}}},
         {"params", {{"bins", 4}, {"range", {0, 1}}}}};
    check_config_error(c, dir.path, "cfg.json: data.frame: 10000000000.0 is out of range: expected an integer from");
  }
  SUBCASE("a uniform generator over [-1e308, 1e308] would give non-finite data") {
    c["data"] = {{"generator", "uniform"}, {"low", -1e308}, {"high", 1e308}};
    check_config_error(c, dir.path, "cfg.json: data.high: [low, high] = [-1e+308, 1e+308]: its width is not a finite");
  }
}

TEST_CASE("config files: a number beyond double (1e999) and a directory are errors naming the file") {
  ConfigFolder dir;
  std::ofstream(dir.path / "huge.json") << "{\"algorithm\": \"kmeans\", \"data\": {\"path\": \"points.csv\"},\n"
                                           " \"params\": {\"n_clusters\": 1e999}}\n";
  check_mentions(input_error([&] { itercl::run_experiment_file(dir.path / "huge.json", without_device()); }),
                 (dir.path / "huge.json").string() + ": params.n_clusters: a number beyond the range of double");
  fs::create_directory(dir.path / "folder.json");
  check_mentions(input_error([&] { itercl::run_experiment_file(dir.path / "folder.json", without_device()); }),
                 (dir.path / "folder.json").string() + ": cannot open the config file: the path is a directory");
}

// Issue 34: a config nested 100,000 deep overflowed the stack (exit 139), and a key given twice kept its
// last value silently.
TEST_CASE("config files: nesting deeper than 128 levels and a key given twice are errors naming the place") {
  ConfigFolder dir;
  const auto error_of = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path / name) << text;
    return input_error([&] { itercl::run_experiment_file(dir.path / name, without_device()); });
  };
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  check_mentions(
      error_of("deep.json", "{\"algorithm\": " + deep + "}"),
      (dir.path / "deep.json").string() + ": objects and arrays nested deeper than 128 levels (at algorithm");
  check_mentions(error_of("top.json", deep), "top.json: objects and arrays nested deeper than 128 levels (at [0][0]");
  // 128 levels pass the parser (and fail later, as any unknown field does).
  check_mentions(error_of("deep_ok.json", "{\"extra\": " + std::string(127, '[') + std::string(127, ']') + "}"),
                 "extra: unknown field");

  check_mentions(error_of("twice.json",
                          "{\"algorithm\": \"kmeans\", \"data\": {\"path\": \"points.csv\"},\n"
                          " \"params\": {\"n_clusters\": 2, \"n_clusters\": 3}}\n"),
                 "twice.json: params.n_clusters: the key appears twice in one object");
  check_mentions(error_of("twice_top.json", "{\"algorithm\": \"kmeans\", \"algorithm\": \"smacof\"}"),
                 "twice_top.json: algorithm: the key appears twice");
  // In an array (a suite's groups): the element's index names it.
  check_mentions(error_of("twice_array.json", "{\"groups\": [{\"name\": \"a\"}, {\"name\": \"b\", \"name\": \"c\"}]}"),
                 "twice_array.json: groups[1].name: the key appears twice");
  // The same key in two objects is no repeat.
  check_mentions(error_of("two_objects.json",
                          "{\"algorithm\": \"kmeans\", \"data\": {\"path\": \"points.csv\"}, "
                          "\"output\": {\"path\": \"r.json\"}, \"params\": {\"n_clusters\": 0}}"),
                 "params.n_clusters");
}

}  // namespace io_tests
