// PageRankGraph: one upload, many runs (personalization vectors, nstart), one step at a time, and the
// progress callback's cancel; against the double-precision reference and PageRank::fit.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/pagerank.hpp"
#include "reference/pagerank_reference.hpp"
#include "test_support.hpp"

namespace pagerank_graph_tests {

using itercl::Graph;
using itercl::PageRankParams;
using itercl::Precision;

// 2,000 nodes, random out-degrees 0..8 (about one node in nine dangles), repeats and self-loops as drawn.
Graph random_graph(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> any(0, 1999), degree(0, 8);
  Graph g;
  g.n_nodes = 2000;
  for (std::int32_t u = 0; u < g.n_nodes; ++u)
    for (int e = degree(rng); e > 0; --e) g.src.push_back(u), g.dst.push_back(any(rng));
  return g;
}

// Non-negative weights, a third of them zero (a personalization that jumps to some nodes only).
std::vector<double> random_weights(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> w(n);
  for (double& v : w) v = u(rng) < 1.0 / 3 ? 0 : u(rng) * 5;
  return w;
}

PageRankParams params(Precision precision, int max_iter = 100, double tol = 1e-6) {
  PageRankParams p;
  p.precision = precision;
  p.max_iter = max_iter;
  p.tol = tol;
  return p;
}

TEST_SUITE_BEGIN("pagerank");

TEST_CASE("PageRankGraph: a batch of personalization vectors on one upload equals separate runs and the reference") {
  const Graph g = random_graph(11);
  const itercl::InLinks links = itercl::in_links(g);
  for (Precision precision : test::kPrecisions) {
    CAPTURE(itercl::precision_name(precision));
    itercl::PageRankGraph graph(test::device(), links, params(precision));
    for (std::uint64_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      const std::vector<double> p = k == 0 ? std::vector<double>{} : random_weights(2000, 100 + k);
      const auto batch = graph.run(p);
      const auto ref = reference::pagerank(g, 0.85, 100, 1e-6, p);
      CHECK(batch.converged == ref.converged);
      CHECK(batch.n_iter == ref.n_iter);
      CHECK(reference::l1_distance(batch.ranks, ref.ranks) <= tolerance::ranks_l1(precision));
      PageRankParams separate = params(precision);
      separate.personalization = p;
      const auto alone = itercl::PageRank(test::device(), separate).fit(links);
      REQUIRE(alone.ranks.size() == batch.ranks.size());
      CHECK(alone.n_iter == batch.n_iter);
      // The same kernels on the same start: the same rounding, up to the reductions' order.
      CHECK(reference::l1_distance(alone.ranks, batch.ranks) <= tolerance::ranks_l1(precision));
    }
  }
}

TEST_CASE("PageRankGraph: nstart is the start, normalised as networkx does, iteration by iteration") {
  const Graph g = random_graph(12);
  const std::vector<double> nstart = random_weights(2000, 7), p = random_weights(2000, 8);
  // tol 0 and few iterations: the start still shows in the iterates.
  const auto ref = reference::pagerank(g, 0.85, 4, 0.0, p, {}, nstart);
  const auto uniform = reference::pagerank(g, 0.85, 4, 0.0, p);
  REQUIRE(reference::l1_distance(ref.ranks, uniform.ranks) > 1e-3);  // so the check below can fail
  PageRankParams fit_params = params(Precision::f64, 4, 0.0);
  fit_params.personalization = p;
  fit_params.nstart = nstart;
  const auto r = itercl::PageRank(test::device(), fit_params).fit(itercl::in_links(g));
  CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(Precision::f64));
  for (std::size_t it = 0; it < 4; ++it)
    CHECK(r.iterations[it].residual == doctest::Approx(ref.residuals[it]).epsilon(1e-9));
  fit_params.nstart = {1.0, 2.0};
  CHECK_THROWS_WITH_AS(itercl::PageRank(test::device(), fit_params).fit(itercl::in_links(g)),
                       "nstart: has 2 values for 2000 nodes", itercl::ParamError);
}

TEST_CASE("a config's params.nstart, in the input's ids, is the start of the iteration") {
  test::TempDir tmp;
  std::ofstream(tmp / "g.txt") << "100 200\n200 300\n300 100\n300 400\n";
  const nlohmann::json config = {
      {"algorithm", "pagerank"},
      {"precision", "double"},
      {"data", {{"path", "g.txt"}}},
      {"params", {{"nstart", {{"100", 1}, {"400", 4}}}, {"max_iter", 2}, {"tol", 0}, {"format", "csr_scalar"}}},
      {"output", "r.json"}};
  const nlohmann::json r = itercl::run_experiment(config, "p.json", tmp.path).results;
  Graph g;
  g.n_nodes = 4;
  g.src = {0, 1, 2, 2}, g.dst = {1, 2, 0, 3};
  const auto ref = reference::pagerank(g, 0.85, 2, 0.0, {}, {}, {1, 0, 0, 4});
  const char* ids[] = {"100", "200", "300", "400"};
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(r["result"]["ranks"][ids[i]].get<double>() == doctest::Approx(ref.ranks[i]).epsilon(1e-12));
}

TEST_CASE("PageRankGraph: steps driven by the caller equal the full run, and a restart repeats it") {
  const Graph g = random_graph(13);
  const std::vector<double> p = random_weights(2000, 9), nstart = random_weights(2000, 10);
  for (Precision precision : test::kPrecisions) {
    CAPTURE(itercl::precision_name(precision));
    itercl::PageRankGraph graph(test::device(), itercl::in_links(g), params(precision));
    const auto full = graph.run(p, nstart);
    REQUIRE(full.converged);
    for (int repeat = 0; repeat < 2; ++repeat) {
      graph.start(p, nstart);
      for (const itercl::PageRankIteration& expected : full.iterations) {
        const itercl::PageRankIteration step = graph.step();
        CHECK(step.residual == expected.residual);  // the same kernels on the same data
      }
      CHECK(graph.ranks() == full.ranks);
    }
  }
}

TEST_CASE("PageRank: a progress callback that throws Cancelled stops the run at that iteration") {
  const Graph g = random_graph(14);
  PageRankParams p = params(Precision::f32, 100, 0.0);
  int calls = 0, cancel_at = 3;
  p.progress = [&](const itercl::ProgressEvent& e) {
    ++calls;
    if (e.iteration == cancel_at) throw itercl::Cancelled();
  };
  itercl::PageRankGraph graph(test::device(), itercl::in_links(g), p);
  CHECK_THROWS_AS(graph.run(), itercl::Cancelled);
  CHECK(calls == 3);
  // The graph stays usable: a run without the cancel gives the reference's ranks.
  cancel_at = 0;
  const auto r = graph.run();
  CHECK(r.n_iter == 100);
  CHECK(reference::l1_distance(r.ranks, reference::pagerank(g, 0.85, 100, 0.0).ranks) <=
        tolerance::ranks_l1(Precision::f32));
}

TEST_SUITE_END();

}  // namespace pagerank_graph_tests
