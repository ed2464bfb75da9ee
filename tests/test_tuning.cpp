// The tuning database (lookup from general to specific, user entries, storing) and the label check
// every tuning candidate must pass. No device needed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "itercl/error.hpp"
#include "itercl/tuning.hpp"
#include "test_support.hpp"
#include "tuners.hpp"

namespace {

itercl::DeviceInfo fake(const std::string& type, const std::string& name) {
  itercl::DeviceInfo info;
  info.type = type;
  info.name = name;
  info.vendor = "Example Inc.";
  return info;
}

// Sets $ITERCL_TUNING_DIR for the scope.
struct TuningDir {
  explicit TuningDir(const std::filesystem::path& p) { setenv("ITERCL_TUNING_DIR", p.c_str(), 1); }
  ~TuningDir() { unsetenv("ITERCL_TUNING_DIR"); }
};

}  // namespace

TEST_CASE("tuned parameters merge default, type, vendor and device entries") {
  const auto cpu = itercl::tuned_parameters("kmeans", fake("cpu", "Some CPU"));
  CHECK(cpu.sources == std::vector<std::string>{"default"});
  CHECK(cpu.values["variant"] == "expanded");
  CHECK(cpu.values["work_group_size"] == 64);

  const auto gpu = itercl::tuned_parameters("kmeans", fake("gpu", "Some GPU"));
  CHECK(gpu.sources == std::vector<std::string>{"default", "types/gpu"});
  CHECK(gpu.values["work_group_size"] == 128);  // the type's value wins
  CHECK(gpu.values["variant"] == "expanded");   // the default's stays where the type is silent

  CHECK(itercl::tuned_parameters("no-such-kernel", fake("cpu", "x")).values.empty());
}

TEST_CASE("stored entries are found for their device only, and override the built-in database") {
  test::TempDir dir;
  TuningDir env(dir.path);
  const auto device = fake("gpu", "Example GPU 9000");
  itercl::store_tuned_parameters(
      dir.path, "kmeans", device,
      {{"variant", "local_centroids"}, {"work_group_size", 256}, {"tuned", {{"median_ms", 1}}}});
  const auto tuned = itercl::tuned_parameters("kmeans", device);
  CHECK(tuned.sources.back() == "devices/Example GPU 9000");
  CHECK(tuned.values["variant"] == "local_centroids");
  CHECK(tuned.values["work_group_size"] == 256);
  CHECK(tuned.values["register_values"] == 32);  // from types/gpu
  CHECK_FALSE(tuned.values.contains("tuned"));   // metadata, not a parameter
  CHECK(itercl::tuned_parameters("kmeans", fake("gpu", "Another GPU")).values["variant"] == "expanded");

  // The stored file keeps the built-in entries it started from.
  std::ifstream in(dir.path / "kmeans.json");
  const auto stored = nlohmann::json::parse(in);
  CHECK(stored["default"]["variant"] == "expanded");
  CHECK(stored["devices"]["Example GPU 9000"]["tuned"]["median_ms"] == 1);

  std::ofstream(dir.path / "kmeans.json") << "{ not json";
  CHECK_THROWS_WITH_AS(itercl::tuned_parameters("kmeans", device), doctest::Contains("not valid JSON"),
                       itercl::RuntimeError);
}

TEST_CASE("a tuning candidate's labels must match the reference's but for near-ties") {
  itercl::Matrix X(3, 1), C(2, 1);
  X << 0.0, 1.0, 10.0;  // 1.0 is exactly halfway between the centroids
  C << 0.0, 2.0;
  const std::vector<std::int32_t> reference = {0, 0, 1};
  CHECK(itercl::kmeans_labels_mismatch(X, C, reference, reference, itercl::Precision::f32).empty());
  CHECK(itercl::kmeans_labels_mismatch(X, C, std::vector<std::int32_t>{0, 1, 1}, reference, itercl::Precision::f64)
            .empty());  // the tie may go either way
  CHECK(itercl::kmeans_labels_mismatch(X, C, std::vector<std::int32_t>{0, 0, 0}, reference, itercl::Precision::f32) ==
        "point 2: label 0 where the reference has 1");
  CHECK(itercl::kmeans_labels_mismatch(X, C, std::vector<std::int32_t>{7, 0, 1}, reference, itercl::Precision::f32) ==
        "point 0 labelled 7");
}
