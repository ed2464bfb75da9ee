// PageRank config errors through run_experiment: each names the config and the field, and each is
// found before a device is selected (every run asks for a device that cannot exist, so a check that
// comes too late fails with "no such device" instead of the expected message).
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "test_support.hpp"

namespace pagerank_tests {

using nlohmann::json;

// A folder with a 4-node edge list; pagerank_config() passes every check.
struct GraphFolder : test::TempDir {
  GraphFolder() {
    std::ofstream(path / "g.txt") << "# toy\n10 20\n20 30\n30 10\n40 10\n";
    std::ofstream(path / "p.csv") << "node,weight\n10,1\n30,3\n";
    std::ofstream(path / "three.csv") << "10,1,2\n";
  }
};

json pagerank_config() {
  return {{"algorithm", "pagerank"},
          {"data", {{"path", "g.txt"}}},
          {"params", {{"format", "bsr"}, {"personalization", "p.csv"}}},
          {"output", {{"path", "results.json"}, {"ranks", "ranks.csv"}}}};
}

void check_error(const json& config, const std::filesystem::path& base, const std::string& message) {
  itercl::RunOverrides overrides;
  overrides.device = "itercl-tests-no-such-device";
  CAPTURE(config.dump());
  CHECK_THROWS_WITH_AS(itercl::run_experiment(config, "cfg.json", base, overrides), doctest::Contains(message.c_str()),
                       itercl::InputError);
}

TEST_CASE("a good PageRank config gets as far as selecting the device") {
  GraphFolder dir;
  check_error(pagerank_config(), dir.path, "device 'itercl-tests-no-such-device': no such device");
  json rmat = pagerank_config();
  rmat["data"] = {{"generator", "rmat"}, {"scale", 6}, {"edge_factor", 4}, {"random_state", 1}, {"self_loops", false}};
  rmat["params"].erase("personalization");
  check_error(rmat, dir.path, "no such device");
  rmat["data"] = {{"generator", "barabasi_albert"}, {"n_nodes", 50}, {"m", 2}};
  check_error(rmat, dir.path, "no such device");
}

TEST_CASE("PageRank config errors name the field") {
  GraphFolder dir;
  struct Case {
    std::function<void(json&)> edit;
    std::string message;
  };
  const Case cases[] = {
      {[](json& c) { c["params"]["format"] = "coo"; },
       "cfg.json: params.format: expected one of auto, csr_scalar, csr_vector, csr_adaptive, ell, hybrid, bsr; got "
       "\"coo\""},
      {[](json& c) {
         c["params"]["kernel"] = {{"format", "ell"}};
       },
       "params.kernel: give the format as params.format"},
      {[](json& c) {
         c["params"]["kernel"] = {{"bsr_width", 2}};
       },
       "cfg.json: params.kernel.bsr_width: expected an integer >= 4"},
      {[](json& c) {
         c["params"]["kernel"] = {{"vector_size", 8}};
       },
       "cfg.json: params.kernel.vector_size: applies to format csr_vector, not bsr"},
      {[](json& c) {
         c["params"]["kernel"] = {{"hybrid_k", -2}};
       },
       "params.kernel.hybrid_k: expected an integer >= 1"},
      {[](json& c) {
         c["params"]["kernel"] = {{"tile", 8}};
       },
       "params.kernel.tile: unknown field"},
      {[](json& c) { c["params"]["alpha"] = 1.2; }, "cfg.json: params.alpha: expected a number in [0, 1], got 1.2"},
      {[](json& c) { c["params"]["max_iter"] = 0; }, "cfg.json: params.max_iter: expected an integer >= 1"},
      {[](json& c) { c["params"]["damping"] = 0.85; }, "cfg.json: params.damping: unknown field"},
      {[](json& c) {
         c["params"]["personalization"] = {{"10", 1}, {"99", 2}};
       },
       "cfg.json: params.personalization: node 99 is not in the graph"},
      {[](json& c) {
         c["params"]["personalization"] = {{"ten", 1}};
       },
       "params.personalization: key \"ten\" is not a node id"},
      {[](json& c) {
         c["params"]["personalization"] = {{"10", 0}};
       },
       "cfg.json: params.personalization: sums to 0"},
      {[](json& c) {
         c["params"]["dangling"] = {{"10", -1}};
       },
       "params.dangling: node 10 has -1; expected a finite value >= 0"},
      {[](json& c) { c["params"]["dangling"] = 3; }, "params.dangling: expected a file path or an object"},
      {[](json& c) { c["params"]["personalization"] = "three.csv"; },
       "three.csv: expected 2 columns (node, value), found 3"},
      {[](json& c) {
         c["params"]["personalization"] = "g.txt";
         c["params"]["dangling"] = "p.csv";
       },
       "no such device"},  // the edge list reads as (node, value) pairs: 4 valid weights
      {[](json& c) { c["data"]["path"] = "missing.txt"; }, "cfg.json: data.path: "},
      {[](json& c) { c["data"]["generator"] = "rmat"; }, "data.path: give exactly one of \"path\" and \"generator\""},
      {[](json& c) { c["data"]["format"] = "csv"; }, "data.format: expected one of auto, edgelist, mtx"},
      {[](json& c) { c["data"]["header"] = "yes"; }, "data.header: expected true or false"},
      {[](json& c) { c["data"]["weights"] = true; }, "data.weights: unknown field"},
      {[](json& c) {
         c["data"] = {{"generator", "rmat"}, {"a", 0.5}, {"b", 0.3}, {"c", 0.3}, {"d", 0.1}};
       },
       "cfg.json: data.d: a + b + c + d = 1.2"},
      {[](json& c) {
         c["data"] = {{"generator", "rmat"}, {"scale", 40}};
       },
       "data.scale: expected an integer from 1 to 30"},
      {[](json& c) {
         c["data"] = {{"generator", "barabasi_albert"}, {"n_nodes", 5}, {"m", 5}};
       },
       "data.n_nodes: expected more than m = 5 nodes"},
      {[](json& c) {
         c["data"] = {{"generator", "erdos"}};
       },
       "data.generator: expected \"rmat\" or \"barabasi_albert\""},
      {[](json& c) { c["output"]["rank"] = "r.csv"; }, "cfg.json: output.rank: unknown field"},
  };
  for (const Case& c : cases) {
    json config = pagerank_config();
    c.edit(config);
    check_error(config, dir.path, c.message);
  }
  // A bad line in the graph file: the file and line, under the config field that named the file.
  std::ofstream(dir.path / "g.txt", std::ios::app) << "50 x\n";
  check_error(pagerank_config(), dir.path,
              "cfg.json: data.path: " + (dir.path / "g.txt").string() + ":6: expected two node ids");
}

}  // namespace pagerank_tests
