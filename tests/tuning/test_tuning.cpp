// The tuning database (lookup from general to specific, user entries, storing) and the label check
// every tuning candidate must pass. No device needed.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "itercl/error.hpp"
#include "itercl/tuning.hpp"
#include "kmeans/kmeans_description.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pairwise/pair_histogram_kernel.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "smacof/smacof_kernel.hpp"
#include "test_support.hpp"
#include "tune/tuners.hpp"

namespace {

itercl::DeviceInfo fake(const std::string& type, const std::string& name) {
  itercl::DeviceInfo info;
  info.type = type;
  info.name = name;
  info.vendor = "Example Inc.";
  info.compute_units = type == "gpu" ? 132 : 2;
  info.max_work_group_size = type == "gpu" ? 1024 : 4096;
  info.local_memory = type == "gpu" ? 49152 : 262144;
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
  CHECK(cpu.sources == std::vector<std::string>{"default", "types/cpu"});
  CHECK(cpu.values["variant"] == "point_blocks");  // the type's values win
  CHECK(cpu.values["work_group_size"] == 256);
  CHECK(cpu.values["update"] == "host");  // the default's stays where the type is silent

  const auto gpu = itercl::tuned_parameters("kmeans", fake("gpu", "Some GPU"));
  CHECK(gpu.sources == std::vector<std::string>{"default", "types/gpu"});
  CHECK(gpu.values["work_group_size"] == 128);       // the type's value wins
  CHECK(gpu.values["variant"] == "tiled");           // the type's, measured on an H200 and an H100
  CHECK(gpu.values["local_memory_bytes"] == 16384);  // the default's stays where the type is silent
  CHECK_FALSE(gpu.values.contains("measured_on"));   // a note about the entry, not a parameter

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
  CHECK(itercl::tuned_parameters("kmeans", fake("gpu", "Another GPU")).values["variant"] == "tiled");

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
  CHECK(itercl::kmeans::labels_mismatch(X, C, reference, reference, itercl::Precision::f32).empty());
  CHECK(itercl::kmeans::labels_mismatch(X, C, std::vector<std::int32_t>{0, 1, 1}, reference, itercl::Precision::f64)
            .empty());  // the tie may go either way
  CHECK(itercl::kmeans::labels_mismatch(X, C, std::vector<std::int32_t>{0, 0, 0}, reference, itercl::Precision::f32) ==
        "point 2: label 0 where the reference has 1");
  CHECK(itercl::kmeans::labels_mismatch(X, C, std::vector<std::int32_t>{7, 0, 1}, reference, itercl::Precision::f32) ==
        "point 0 labelled 7");
}

// What each family resolved to before its defaults moved from C++ tables into tuning/*.json: the
// databases must give the same on both device types.
TEST_CASE("every family's database resolves to the defaults the C++ tables had, on a CPU and a GPU") {
  const auto cpu = fake("cpu", "Some CPU"), gpu = fake("gpu", "Some GPU");
  std::vector<std::string> sources;

  SUBCASE("smacof") {
    const auto on_cpu = itercl::smacof::resolve({}, cpu, {.n = 4096}, sources);
    CHECK(sources == std::vector<std::string>{"default"});
    // 2 slices: none longer than 2,048 columns (smacof_kernel.cpp, kMaxSliceColumns, newer than the tables).
    CHECK(nlohmann::json(on_cpu) == nlohmann::json(itercl::SmacofKernel{.variant = "fused_rows",
                                                                        .packed = itercl::YesNo::no,
                                                                        .symmetric = itercl::YesNo::no,
                                                                        .work_group_size = 64,
                                                                        .slices = 2,
                                                                        .groups_per_unit = 1,
                                                                        .rows_per_item = 1}));
    const auto on_gpu = itercl::smacof::resolve({}, gpu, {.n = 4096}, sources);
    CHECK(sources == std::vector<std::string>{"default", "types/gpu"});
    // 132 units x 8 groups over 16 row groups: 66 slices, capped at 4096 / 64 columns. Packed storage from
    // N = 32,768 (the GPU type's, measured on an H200 and an H100).
    CHECK(nlohmann::json(on_gpu) == nlohmann::json(itercl::SmacofKernel{.variant = "fused",
                                                                        .packed = itercl::YesNo::no,
                                                                        .symmetric = itercl::YesNo::no,
                                                                        .packed_from = 32768,
                                                                        .work_group_size = 256,
                                                                        .slices = 64,
                                                                        .groups_per_unit = 8,
                                                                        .rows_per_item = 1}));
    CHECK(itercl::smacof::resolve({.variant = "naive"}, gpu, {.n = 4096}, sources).work_group_size == 256);
    // Packed storage with the CPU's choice, fused_rows (full storage only): auto takes fused instead.
    CHECK(itercl::smacof::resolve({.packed = itercl::YesNo::yes}, cpu, {.n = 4096}, sources).variant == "fused");
  }

  SUBCASE("pagerank") {
    // Node 0 has 40 in-links, nodes 1-9 have 2: a mean row of 5.8.
    itercl::Graph g;
    g.n_nodes = 50;
    for (std::int32_t j = 10; j < 50; ++j) g.src.push_back(j), g.dst.push_back(0);
    for (std::int32_t i = 1; i < 10; ++i)
      for (std::int32_t j : {10, 11}) g.src.push_back(j), g.dst.push_back(i);
    const itercl::InLinks L = itercl::in_links(g);
    auto resolved = [&](const std::string& format, const itercl::DeviceInfo& info) {
      return nlohmann::json(itercl::pagerank::resolve({.format = format}, info, {L, itercl::Precision::f32}, sources));
    };
    auto kernel = [](itercl::PageRankKernel k) { return nlohmann::json(k); };
    CHECK(resolved("auto", cpu) ==
          kernel({.format = "csr_scalar", .reorder = "none", .graph_build = "host", .work_group_size = 256}));
    CHECK(resolved("csr_vector", cpu) == kernel({.format = "csr_vector",
                                                 .reorder = "none",
                                                 .graph_build = "host",
                                                 .work_group_size = 256,
                                                 .vector_size = 2}));
    CHECK(resolved("hybrid", cpu) == kernel({.format = "hybrid",
                                             .reorder = "none",
                                             .graph_build = "host",
                                             .work_group_size = 256,
                                             .hybrid_k = itercl::pagerank::auto_hybrid_k(L, 0.5),
                                             .hybrid_rho = 0.5}));
    CHECK(resolved("auto", gpu) ==
          kernel({.format = "csr_adaptive", .reorder = "degree", .graph_build = "device", .work_group_size = 256}));
    // Bell and Garland's rule: the smallest power of two covering the mean row.
    CHECK(resolved("csr_vector", gpu) == kernel({.format = "csr_vector",
                                                 .reorder = "degree",
                                                 .graph_build = "device",
                                                 .work_group_size = 256,
                                                 .vector_size = 8}));
    // The GPU's graph_build is its CSR formats': hybrid builds on the host.
    CHECK(resolved("hybrid", gpu) == kernel({.format = "hybrid",
                                             .reorder = "degree",
                                             .graph_build = "host",
                                             .work_group_size = 256,
                                             .hybrid_k = itercl::pagerank::auto_hybrid_k(L, 50),
                                             .hybrid_rho = 50}));
    CHECK(sources == std::vector<std::string>{"default", "types/gpu"});
  }

  SUBCASE("pairwise") {
    // knn: the tiles, as before the fused kernel (cityblock could not run it anyway); the knn tile, which no
    // entry but a GPU's sets, is fused's own default.
    const itercl::PairwiseKernel tiled = {.variant = "tiled",
                                          .knn = "tiles",
                                          .tile_rows = 16,
                                          .tile_cols = 16,
                                          .subtiles = 8,
                                          .cols_per_item = 8,
                                          .slice = 8,
                                          .knn_tile_rows = 32,
                                          .knn_tile_cols = 8,
                                          .knn_subtiles = 4,
                                          .knn_cols_per_item = 8,
                                          .knn_slice = 8};
    for (const auto& info : {cpu, gpu}) {
      const auto k = itercl::pairwise::resolve({}, info, {itercl::Metric::cityblock, itercl::Precision::f32}, sources);
      CHECK(nlohmann::json(k) == nlohmann::json(tiled));
    }
    // The H200's entry: knn rows, with a tile of its own (benchmarks/results/nvidia-h200/knn-fused/); the
    // distances keep theirs. Past rows' registers (97 dimensions: 2 x 100) auto takes fused. A knn tile
    // field the config sets wins over the entry's.
    auto h200 = gpu;
    h200.name = "NVIDIA H200";
    const auto resolve_h200 = [&](itercl::PairwiseKernel k, int dim) {
      return itercl::pairwise::resolve(k, h200, {itercl::Metric::euclidean, itercl::Precision::f32, dim}, sources);
    };
    const auto on_h200 = resolve_h200({}, 64);
    CHECK(on_h200.knn == "rows");
    CHECK(std::tuple(on_h200.knn_tile_rows, on_h200.knn_tile_cols, on_h200.knn_subtiles, on_h200.knn_cols_per_item) ==
          std::tuple(128, 1, 2, 4));
    CHECK(std::tuple(on_h200.tile_rows, on_h200.subtiles, on_h200.slice) == std::tuple(16, 8, 16));
    const auto past_rows = resolve_h200({}, 97);  // fused, with its own default tile
    CHECK(past_rows.knn == "fused");
    CHECK(std::tuple(past_rows.knn_tile_rows, past_rows.knn_subtiles, past_rows.knn_slice) == std::tuple(32, 4, 8));
    CHECK(resolve_h200({.knn_subtiles = 1}, 97).knn == "rows");
    // Fused named there: its tile is not the entry's (measured for rows) but fused's own default.
    const auto fused_h200 = resolve_h200({.knn = "fused"}, 64);
    CHECK(std::tuple(fused_h200.knn_tile_rows, fused_h200.knn_tile_cols, fused_h200.knn_subtiles,
                     fused_h200.knn_cols_per_item, fused_h200.knn_slice) == std::tuple(32, 8, 4, 8, 8));
    auto small = gpu;
    small.max_work_group_size = 128;  // 128 / 16 rows
    CHECK(
        itercl::pairwise::resolve({}, small, {itercl::Metric::euclidean, itercl::Precision::f32}, sources).tile_rows ==
        8);
  }

  SUBCASE("pair_histogram") {  // its resolve needs a device (for the atomics): the entries, then
    const auto on_cpu = itercl::tuned_parameters("pair_histogram", cpu).values;
    CHECK(on_cpu == nlohmann::json({{"variant", "private_hist_balanced"},
                                    {"work_group_size", 64},
                                    {"replicas", 1},
                                    {"uniform_check", "guarded"},
                                    {"even_edges", "lookup"},
                                    {"table_copies", 1},
                                    {"groups_per_unit", 1}}));
    const auto on_gpu = itercl::tuned_parameters("pair_histogram", gpu).values;
    CHECK(on_gpu == nlohmann::json({{"variant", "private_hist_balanced"},
                                    {"work_group_size", 256},
                                    {"replicas", 32},
                                    {"uniform_check", "corrected"},
                                    {"even_edges", "place"},
                                    {"table_copies", 32},
                                    {"groups_per_unit", 64}}));
  }
}

TEST_CASE("a bad database entry is an error naming the family and its entries") {
  test::TempDir dir;
  TuningDir env(dir.path);
  const auto device = fake("gpu", "Example GPU 9000");
  std::vector<std::string> sources;
  itercl::store_tuned_parameters(dir.path, "smacof", device, {{"variant", "fused"}, {"work_group_siz", 128}});
  CHECK_THROWS_WITH_AS(itercl::smacof::resolve({}, device, {.n = 100}, sources),
                       doctest::Contains("tuning database, smacof entries ["), itercl::RuntimeError);
  CHECK_THROWS_WITH_AS(itercl::smacof::resolve({}, device, {.n = 100}, sources),
                       doctest::Contains("\"devices/Example GPU 9000\"]: kernel.work_group_siz: unknown field"),
                       itercl::RuntimeError);
  itercl::store_tuned_parameters(dir.path, "pairwise", device, {{"tile_rows", 0}});
  CHECK_THROWS_WITH_AS(
      itercl::pairwise::resolve({}, device, {itercl::Metric::euclidean, itercl::Precision::f32}, sources),
      doctest::Contains("tuning database, pairwise entries"), itercl::RuntimeError);
  itercl::store_tuned_parameters(dir.path, "pagerank", device, {{"format", "coo"}});
  CHECK_THROWS_WITH_AS(
      itercl::pagerank::resolve({}, device, {itercl::in_links(itercl::Graph{}), itercl::Precision::f32}, sources),
      doctest::Contains("kernel.format: expected one of"), itercl::RuntimeError);
}

TEST_CASE("the user's tuning folder (XDG) lies over the built-in database, below $ITERCL_TUNING_DIR") {
  test::TempDir xdg, dir;
  const test::EnvVar on("ITERCL_NO_USER_TUNING", nullptr), home("XDG_CONFIG_HOME", xdg.path.c_str());
  REQUIRE(itercl::user_tuning_dir() == xdg.path / "itercl" / "tuning");
  const auto device = fake("gpu", "Example GPU 9000");
  itercl::store_tuned_parameters(*itercl::user_tuning_dir(), "kmeans", device, {{"work_group_size", 512}}, false);
  auto tuned = itercl::tuned_parameters("kmeans", device);
  CHECK(tuned.sources == std::vector<std::string>{"default", "types/gpu", "user:devices/Example GPU 9000"});
  CHECK(tuned.values["work_group_size"] == 512);

  // $ITERCL_TUNING_DIR (--tuning) overrides the user's entries; its own are named as the built-in ones.
  itercl::store_tuned_parameters(dir.path, "kmeans", device, {{"work_group_size", 32}}, false);
  {
    const TuningDir env(dir.path);
    tuned = itercl::tuned_parameters("kmeans", device);
    CHECK(tuned.sources.back() == "devices/Example GPU 9000");
    CHECK(tuned.values["work_group_size"] == 32);
  }

  // The switch the tests run under hides the folder; so does an invalid (relative) $XDG_CONFIG_HOME
  // when there is no $HOME.
  {
    const test::EnvVar off("ITERCL_NO_USER_TUNING", "1");
    CHECK_FALSE(itercl::user_tuning_dir());
    CHECK(itercl::tuned_parameters("kmeans", device).values["work_group_size"] == 128);
  }
  {
    const test::EnvVar relative("XDG_CONFIG_HOME", "relative/path"), no_home("HOME", nullptr);
    CHECK_FALSE(itercl::user_tuning_dir());
  }
  const test::EnvVar relative("XDG_CONFIG_HOME", "relative/path"), other_home("HOME", "/home/someone");
  CHECK(itercl::user_tuning_dir() == std::filesystem::path("/home/someone/.config/itercl/tuning"));
}

namespace {

// Every int field of `fields` set, in JSON, to each value beyond int: a ParamError naming the field, the
// value as written and the range, never the wrapped value. Walks the table, so a field added to it is
// checked the day it is added.
template <class K>
void check_int_fields_refuse_wrapping(const std::vector<itercl::KernelField<K>>& fields) {
  const nlohmann::json beyond[] = {4294967360LL, 2147483648LL, -2147483649LL, 18446744073709551615ULL};
  for (const auto& field : fields) {
    if (!std::holds_alternative<int K::*>(field.member)) continue;
    for (const nlohmann::json& value : beyond) {
      CAPTURE(std::string(field.name));
      CAPTURE(value.dump());
      K k;
      try {
        from_json(nlohmann::json{{field.name, value}}, k);
        FAIL_CHECK("expected a ParamError");
      } catch (const itercl::ParamError& e) {
        CHECK(e.field() == std::string("kernel.") + field.name);
        // "expected an integer from 0 to 2147483647"; a field that also takes "auto" says so
        // (PageRankKernel::hybrid_k: "expected an integer >= 1 or \"auto\" (or 0, as \"auto\")").
        CHECK(e.detail().find(value.dump()) != std::string::npos);
        CHECK(e.detail().find("expected an integer") != std::string::npos);
      }
    }
  }
}

}  // namespace

// Issue 34: "work_group_size": 4294967360 ran with 64, and every int field wrapped the same way.
TEST_CASE("every family's int kernel fields refuse values beyond int instead of wrapping them") {
  check_int_fields_refuse_wrapping(itercl::kmeans::fields());
  check_int_fields_refuse_wrapping(itercl::smacof::fields());
  check_int_fields_refuse_wrapping(itercl::pagerank::fields());
  check_int_fields_refuse_wrapping(itercl::pairwise::fields<itercl::PairwiseKernel>());
  check_int_fields_refuse_wrapping(itercl::pairwise::fields<itercl::PairHistogramKernel>());
  // The largest int is read as written; validate() then holds it to the field's own range.
  itercl::KMeansKernel k;
  from_json(nlohmann::json{{"points_per_item", 2147483647}}, k);
  CHECK(k.points_per_item == 2147483647);
  CHECK_THROWS_WITH_AS(k.validate(), doctest::Contains("kernel.points_per_item: expected an integer from 1 to"),
                       itercl::ParamError);
}

TEST_CASE("every entry of the tuning database names the card it was measured on") {
  // A type's or vendor's entry holds for GPUs never measured, so it must say which cards it stands for; a
  // device's entry was measured on that device. The files as committed (tuning/), read as JSON.
  int entries = 0;
  for (const auto& file : std::filesystem::directory_iterator(test::source_dir() / "tuning")) {
    const nlohmann::json db = nlohmann::json::parse(test::slurp(file.path()));
    CAPTURE(file.path().filename().string());
    std::vector<std::pair<std::string, const nlohmann::json*>> found;
    if (!db["default"].empty()) found.emplace_back("default", &db["default"]);
    for (const char* section : {"types", "vendors", "devices"})
      for (const auto& [key, entry] : db[section].items()) found.emplace_back(std::string(section) + "/" + key, &entry);
    for (const auto& [where, entry] : found) {
      CAPTURE(where);
      REQUIRE(entry->contains("measured_on"));
      const std::string card = (*entry)["measured_on"];
      CHECK(!card.empty());
      if (where.starts_with("devices/")) CHECK(card.starts_with(where.substr(8)));
      ++entries;
    }
  }
  CHECK(entries >= 20);
}
