// Device "auto": the overhead model's predictions from the offload database, and the choice between a
// GPU and a CPU it makes. No device needed: the devices are described, not opened.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "itercl/error.hpp"
#include "test_support.hpp"
#include "tuning/offload.hpp"

using nlohmann::json;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace tuning_tests {

itercl::DeviceInfo described(const std::string& type, const std::string& name, int device_index) {
  itercl::DeviceInfo info;
  info.type = type;
  info.name = name;
  info.vendor = "Example Inc.";
  info.device_index = device_index;
  return info;
}

// A database of one's own ($ITERCL_TUNING_DIR/offload.json) for the scope, over the built-in one.
struct OwnDatabase {
  OwnDatabase(const test::TempDir& dir, const json& db) {
    std::ofstream(dir.path / "offload.json") << db.dump();
    setenv("ITERCL_TUNING_DIR", dir.path.c_str(), 1);
  }
  ~OwnDatabase() { unsetenv("ITERCL_TUNING_DIR"); }
};

TEST_CASE("the overhead model predicts setup + iterations x (overhead + flops / rate) from the database") {
  const itercl::Workload w{"kmeans", 2.0e9, 10};
  json entry;
  // tuning/offload.json's H200 entry: setup 0.21 ms, 0.076 ms per iteration, 35,400 GFLOPS.
  const auto gpu = itercl::predicted_ms(w, described("gpu", "NVIDIA H200", 0), &entry);
  REQUIRE(gpu);
  CHECK(*gpu == doctest::Approx(0.21 + 10 * (0.076 + 2.0e9 / 35400e9 * 1e3)));
  CHECK(entry["sources"].back() == "devices/NVIDIA H200");
  // Another GPU has the type's entry; an algorithm without one has no prediction.
  CHECK(itercl::predicted_ms(w, described("gpu", "Some GPU", 0), &entry));
  CHECK(entry["sources"].back() == "types/gpu");
  CHECK_FALSE(itercl::predicted_ms({"pagerank", 1e9, 10}, described("gpu", "Some GPU", 0)));
}

TEST_CASE("device auto: the faster predicted device, the GPU without a model, the only one present") {
  test::TempDir dir;
  // A GPU that costs 50 ms to set up and 1 ms per iteration against a CPU with none but 10 GFLOPS:
  // break-even at 50 / n + 1 = F / 1e7 ms, so the CPU for small problems, the GPU for large ones.
  const OwnDatabase db(dir, {{"types",
                              {{"gpu", {{"kmeans", {{"setup_ms", 50}, {"iteration_ms", 1}, {"gflops", 1000}}}}},
                               {"cpu", {{"kmeans", {{"setup_ms", 0}, {"iteration_ms", 0}, {"gflops", 10}}}}}}}});
  const std::vector<itercl::DeviceInfo> both = {described("cpu", "A CPU", 0), described("gpu", "A GPU", 1)};

  const auto small = itercl::choose_auto_device({"kmeans", 1e6, 10}, both);  // CPU 1 ms, GPU 60 ms
  CHECK(small.device.name == "A CPU");
  CHECK(small.why["verdict"].get<std::string>().find("too small") != std::string::npos);
  REQUIRE(small.why["candidates"].size() == 2);
  CHECK(small.why["candidates"][0]["predicted_ms"].get<double>() == doctest::Approx(50 + 10 * (1 + 1e6 / 1e9)));
  CHECK(small.why["candidates"][1]["predicted_ms"].get<double>() == doctest::Approx(10 * 1e6 / 1e7));

  const auto large = itercl::choose_auto_device({"kmeans", 1e9, 10}, both);  // CPU 1000 ms, GPU 70 ms
  CHECK(large.device.name == "A GPU");
  CHECK(large.why["verdict"].get<std::string>().find("large enough") != std::string::npos);

  const auto unmodelled = itercl::choose_auto_device({"pagerank", 1e3, 1}, both);
  CHECK(unmodelled.device.name == "A GPU");
  CHECK(unmodelled.why["verdict"].get<std::string>().find("no offload model") != std::string::npos);

  const auto alone = itercl::choose_auto_device({"kmeans", 1e3, 1}, {described("cpu", "A CPU", 0)});
  CHECK(alone.device.name == "A CPU");
  CHECK(alone.why["verdict"].get<std::string>().find("only cpu") != std::string::npos);
  CHECK_THROWS_AS(itercl::choose_auto_device({"kmeans", 1, 1}, {}), itercl::RuntimeError);
}

TEST_CASE("a bad offload entry is an error naming the entry and the field") {
  test::TempDir dir;
  const OwnDatabase db(dir, {{"types", {{"gpu", {{"kmeans", {{"setup_ms", 1}, {"gflops", 10}}}}}}}});
  CHECK_THROWS_WITH_AS(itercl::predicted_ms({"kmeans", 1, 1}, described("gpu", "A GPU", 0)),
                       doctest::Contains("kmeans.iteration_ms must be a number >= 0"), itercl::RuntimeError);
}

}  // namespace tuning_tests
