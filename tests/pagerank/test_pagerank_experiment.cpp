// PageRank configs end to end on the device: the results file, ranks in the input's ids, the top 10,
// the per-format layout report, and agreement with the library call.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "itercl/experiment.hpp"
#include "itercl/pagerank.hpp"
#include "test_support.hpp"

namespace pagerank_tests {

using nlohmann::json;

std::map<std::int64_t, double> read_ranks(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "node,rank");
  std::map<std::int64_t, double> ranks;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    ranks[std::stoll(line.substr(0, comma))] = std::stod(line.substr(comma + 1));
  }
  return ranks;
}

TEST_SUITE_BEGIN("pagerank");

TEST_CASE("a PageRank config ranks the Langville-Meyer graph from a Matrix Market file, ids as in the file") {
  test::TempDir tmp;
  // networkx's example as a 1-based pattern matrix; entry (i, j) is the link i -> j.
  std::ofstream(tmp / "lm.mtx") << "%%MatrixMarket matrix coordinate pattern general\n6 6 10\n"
                                   "1 2\n1 3\n3 1\n3 2\n3 5\n4 5\n4 6\n5 4\n5 6\n6 4\n";
  const json config = {
      {"algorithm", "pagerank"},
      {"precision", "double"},
      {"data", {{"path", "lm.mtx"}}},
      {"params",
       {{"alpha", 0.9}, {"tol", 1e-13}, {"max_iter", 500}, {"format", "hybrid"}, {"kernel", {{"hybrid_k", 2}}}}},
      {"output", {{"path", "r.json"}, {"ranks", "out/ranks.csv"}}}};
  const auto outcome = itercl::run_experiment(config, "lm.json", tmp.path);
  const json& r = outcome.results;
  CHECK(r["algorithm"] == "pagerank");
  CHECK(r["data"]["format"] == "mtx");
  CHECK(r["data"]["n_nodes"] == 6);
  CHECK(r["data"]["dangling_nodes"] == 1);
  CHECK(r["result"]["converged"] == true);
  CHECK(r["result"]["residual_trace"].size() == r["result"]["n_iter"].get<std::size_t>());
  CHECK(r["timings"]["per_iteration"].size() == r["result"]["n_iter"].get<std::size_t>());
  CHECK(r["result"]["edges_per_second"]["iteration"].get<double>() > 0);
  CHECK(r["kernel"]["files"] == json{"pagerank_ell.cl", "pagerank.cl"});
  CHECK(r["kernel"]["layout"]["hybrid"]["cpu_rows"] == 4);  // nodes 2, 4, 5, 6 have 2 in-links each
  // networkx's values (test_pagerank.py), ids 1..6 as the file numbers them, node 4 on top.
  const auto ranks = read_ranks(tmp / "out/ranks.csv");
  const std::map<std::int64_t, double> expected = {{1, 0.03721197}, {2, 0.05395735}, {3, 0.04150565},
                                                   {4, 0.37508082}, {5, 0.20599833}, {6, 0.28624589}};
  REQUIRE(ranks.size() == 6);
  for (const auto& [node, value] : expected) CHECK(std::abs(ranks.at(node) - value) < 6e-9);
  REQUIRE(r["result"]["top"].size() == 6);
  CHECK(r["result"]["top"][0]["node"] == 4);
  CHECK(r["result"]["top"][1]["node"] == 6);
  CHECK(r["result"]["top"][5]["node"] == 1);
  CHECK(outcome.summary.find("top 6: 4 (0.375") != std::string::npos);
}

TEST_CASE("personalization from a file in the input's ids agrees with the library; large graphs' ranks go to a file") {
  test::TempDir tmp;
  std::ofstream(tmp / "g.txt") << "# sparse ids\n100 200\n200 300\n300 100\n300 400\n400 400\n";
  std::ofstream(tmp / "p.txt") << "200 1\n400 3\n";
  const json config = {{"algorithm", "pagerank"},
                       {"precision", "double"},
                       {"data", {{"path", "g.txt"}, {"self_loops", false}}},
                       {"params", {{"personalization", "p.txt"}, {"format", "csr_scalar"}}},
                       {"output", "r.json"}};
  const json r = itercl::run_experiment(config, "p.json", tmp.path).results;
  CHECK(r["data"]["self_loops"] == 1);
  CHECK(r["data"]["n_links"] == 4);
  const json& inline_ranks = r["result"]["ranks"];  // few nodes: inline, keyed by id
  REQUIRE(inline_ranks.size() == 4);

  itercl::Graph g;
  g.n_nodes = 4;
  g.src = {0, 1, 2, 2}, g.dst = {1, 2, 0, 3};  // 400 -> 400 dropped
  itercl::PageRankParams p;
  p.precision = itercl::Precision::f64;
  p.personalization = {0, 1, 0, 3};
  p.kernel.format = "csr_scalar";
  const auto direct = itercl::PageRank(test::device(), p).fit(itercl::in_links(g));
  const char* ids[] = {"100", "200", "300", "400"};
  for (std::size_t i = 0; i < 4; ++i) CHECK(inline_ranks[ids[i]].get<double>() == direct.ranks[i]);
  CHECK(r["result"]["n_iter"] == direct.n_iter);

  json big = {{"algorithm", "pagerank"},
              {"data", {{"generator", "rmat"}, {"scale", 14}, {"edge_factor", 4}, {"random_state", 5}}},
              {"params", {{"format", "bsr"}, {"kernel", {{"bsr_width", 16}}}}},
              {"output", "big.json"}};
  const json rb = itercl::run_experiment(big, "big.json", tmp.path).results;
  const std::filesystem::path file = rb["result"]["ranks"].get<std::string>();
  CHECK(file == tmp / "big.ranks.csv");
  const auto ranks = read_ranks(file);
  CHECK(ranks.size() == 16384);
  double sum = 0;
  for (const auto& [node, value] : ranks) sum += value;
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-4));
  CHECK(rb["kernel"]["layout"]["bsr"]["rows"].get<std::int64_t>() > 0);
  CHECK(rb["kernel"]["layout"]["bytes_over_csr"].get<double>() > 1.0);
}

TEST_SUITE_END();

}  // namespace pagerank_tests
