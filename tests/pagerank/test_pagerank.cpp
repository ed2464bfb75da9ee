// PageRank on the device: every format in float and double against the double-precision reference
// on awkward graphs, networkx's published example, non-convergence, personalization, and the
// parameter checks.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "reference/pagerank_reference.hpp"
#include "test_support.hpp"
#include "tune_checks.hpp"

namespace pagerank_tests {

using itercl::Graph;
using itercl::PageRankKernel;
using itercl::PageRankParams;
using itercl::Precision;

// Every format with the tunings worth covering: odd widths, vector sizes at both ends, the seed's k.
std::vector<PageRankKernel> all_kernels() {
  return {{.format = "csr_scalar"},
          {.format = "csr_vector", .vector_size = 2},
          {.format = "csr_vector", .work_group_size = 64, .vector_size = 32},
          {.format = "csr_vector"},
          {.format = "csr_adaptive"},
          {.format = "csr_adaptive", .work_group_size = 32},
          {.format = "csr_adaptive", .reorder = "degree"},
          {.format = "csr_scalar", .reorder = "degree"},
          {.format = "ell", .ell_max_fill = 1e6},
          {.format = "hybrid", .hybrid_k = 4},
          {.format = "hybrid", .hybrid_k = 16},
          {.format = "hybrid", .work_group_size = 32},
          {.format = "bsr", .bsr_width = 5},
          {.format = "bsr", .work_group_size = 128, .bsr_width = 32},
          {.format = "bsr"},
          {.format = "bsr", .reorder = "degree"}};
}

// 3,000 nodes: random links from nodes 0..2399 (so 600 are dangling, unless linked to the hub row);
// nodes 2400..2699 link but receive nothing; 2700..2999 are isolated; node 7 receives a link from
// nearly every node (the enormous row); repeats and self-loops occur as drawn.
Graph awkward_graph(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> any(0, 2399), degree(0, 12);
  Graph g;
  g.n_nodes = 3000;
  auto link = [&](std::int32_t a, std::int32_t b) { g.src.push_back(a), g.dst.push_back(b); };
  for (std::int32_t u = 0; u < 2700; ++u) {
    const int k = u < 2400 && u % 4 == 0 ? 0 : degree(rng);  // a quarter of the first nodes dangle
    for (int e = 0; e < k; ++e) link(u, any(rng));
  }
  for (std::int32_t u = 0; u < 2700; u += 1)
    if (u % 4 != 0 || u >= 2400) link(u, 7);
  return g;
}

// Parameters with a few fields changed (designated initializers would leave the vectors and the
// kernel to -Wmissing-field-initializers).
struct Set {
  double alpha = 0.85;
  int max_iter = 100;
  double tol = 1e-6;
  Precision precision = Precision::f32;
  PageRankKernel kernel = {};
};
PageRankParams params(const Set& s) {
  PageRankParams p;
  p.alpha = s.alpha, p.max_iter = s.max_iter, p.tol = s.tol, p.precision = s.precision, p.kernel = s.kernel;
  return p;
}

itercl::PageRankResult run(const Graph& g, PageRankParams p) {
  return itercl::PageRank(test::device(), std::move(p)).fit(itercl::in_links(g));
}

TEST_SUITE_BEGIN("pagerank");

TEST_CASE("the tests below run every format of the library's table") {
  // A format added to the table (pagerank_kernel.hpp) fails here until all_kernels runs it.
  for (const itercl::pagerank::Format& f : itercl::pagerank::kFormatTable) {
    CAPTURE(f.name);
    const std::vector<PageRankKernel> kernels = all_kernels();
    CHECK(std::any_of(kernels.begin(), kernels.end(), [&](const PageRankKernel& k) { return k.format == f.name; }));
  }
  CHECK(itercl::pagerank_formats().size() == std::size(itercl::pagerank::kFormatTable));
}

TEST_CASE("every format matches the reference iteration by iteration on an awkward graph, float and double") {
  const Graph g = awkward_graph(1);
  // tol 0: exactly max_iter iterations on both sides, so the iterates themselves are compared.
  const auto ref = reference::pagerank(g, 0.85, 25, 0.0);
  for (Precision precision : test::kPrecisions) {
    for (const PageRankKernel& kernel : all_kernels()) {
      CAPTURE(itercl::precision_name(precision));
      CAPTURE(kernel);
      const auto r = run(g, params({.max_iter = 25, .tol = 0, .precision = precision, .kernel = kernel}));
      CHECK(r.kernel.format == kernel.format);
      CHECK(r.n_iter == 25);
      CHECK_FALSE(r.converged);
      REQUIRE(r.ranks.size() == 3000);
      CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(precision));
      REQUIRE(r.iterations.size() == 25);
      for (int it = 0; it < 25; ++it)
        CHECK(r.iterations[static_cast<std::size_t>(it)].residual ==
              doctest::Approx(ref.residuals[static_cast<std::size_t>(it)])
                  .epsilon(precision == Precision::f64 ? 1e-9 : 1e-3));
    }
  }
}

// awkward_graph with weights as networkx reads them: 0 (no link) for one link in nine, so that some
// nodes' only links weigh 0 and they dangle; 0.25 to 40 otherwise, spread over two decades.
Graph weighted_awkward_graph(std::uint64_t seed) {
  Graph g = awkward_graph(seed);
  std::mt19937_64 rng(seed + 100);
  std::uniform_real_distribution<double> decades(-0.6, 1.6);
  for (std::size_t e = 0; e < g.src.size(); ++e)
    g.weights.push_back(rng() % 9 == 0 ? 0.0 : std::pow(10.0, decades(rng)));
  for (std::size_t e = 0; e < g.src.size(); ++e)  // nodes 2400.. link with weight 0 only: dangling
    if (g.src[e] >= 2400) g.weights[e] = 0;
  return g;
}

TEST_CASE("weighted links: every format matches the weighted reference iteration by iteration, float and double") {
  const Graph g = weighted_awkward_graph(5);
  REQUIRE(itercl::in_links(g).weighted());
  const auto ref = reference::pagerank(g, 0.85, 25, 0.0);
  for (Precision precision : test::kPrecisions) {
    for (const PageRankKernel& kernel : all_kernels()) {
      CAPTURE(itercl::precision_name(precision));
      CAPTURE(kernel);
      const auto r = run(g, params({.max_iter = 25, .tol = 0, .precision = precision, .kernel = kernel}));
      CHECK(r.build_options.find("-D WEIGHTED") != std::string::npos);
      REQUIRE(r.ranks.size() == 3000);
      CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(precision));
      for (int it = 0; it < 25; ++it)
        CHECK(r.iterations[static_cast<std::size_t>(it)].residual ==
              doctest::Approx(ref.residuals[static_cast<std::size_t>(it)])
                  .epsilon(precision == Precision::f64 ? 1e-9 : 1e-3));
    }
  }
  // Unweighted graphs, and links that all weigh the same, build without the value array.
  Graph same = awkward_graph(5);
  same.weights.assign(same.src.size(), 3.0);
  const auto r = run(same, params({.max_iter = 25, .tol = 0, .precision = Precision::f64}));
  CHECK(r.build_options.find("WEIGHTED") == std::string::npos);
  CHECK(reference::l1_distance(r.ranks, reference::pagerank(awkward_graph(5), 0.85, 25, 0.0).ranks) <=
        tolerance::ranks_l1(Precision::f64));
}

TEST_CASE("weighted links with personalization and a dangling vector, against the reference") {
  const Graph g = weighted_awkward_graph(6);
  std::vector<double> p(3000, 0.0), d(3000, 0.0);
  for (std::size_t i = 0; i < 3000; i += 7) p[i] = 1.0 + static_cast<double>(i % 5);
  for (std::size_t i = 100; i < 3000; i += 11) d[i] = 2.0;
  const auto ref = reference::pagerank(g, 0.7, 100, 1e-10, p, d);
  REQUIRE(ref.converged);
  for (const char* format : {"csr_adaptive", "hybrid", "bsr"}) {
    const std::string name = format;
    CAPTURE(name);
    const auto r = run(g, {.alpha = 0.7,
                           .tol = 1e-10,
                           .personalization = p,
                           .dangling = d,
                           .nstart = {},
                           .precision = Precision::f64,
                           .kernel = {.format = format}});
    CHECK(r.n_iter == ref.n_iter);
    CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(Precision::f64));
  }
}

TEST_CASE("64-bit link offsets, forced on a small graph: every format, weighted or not, matches the reference") {
  // A graph of 2^31 links does not fit CI's memory; ITERCL_PAGERANK_WIDE_OFFSETS=1 builds the kernels with
  // -D OFFSET=long and uploads 8-byte offsets and block starts, the paths such a graph takes.
  struct WideOffsets {
    WideOffsets() { setenv("ITERCL_PAGERANK_WIDE_OFFSETS", "1", 1); }
    ~WideOffsets() { unsetenv("ITERCL_PAGERANK_WIDE_OFFSETS"); }
  } wide;
  for (const Graph& g : {awkward_graph(7), weighted_awkward_graph(7)}) {
    const auto ref = reference::pagerank(g, 0.85, 25, 0.0);
    // One of each format; csr_adaptive's 32 work-items cut the hub row into many pieces.
    for (const PageRankKernel& kernel : std::vector<PageRankKernel>{{.format = "csr_scalar"},
                                                                    {.format = "csr_vector", .vector_size = 4},
                                                                    {.format = "csr_adaptive", .work_group_size = 32},
                                                                    {.format = "ell", .ell_max_fill = 1e6},
                                                                    {.format = "hybrid", .hybrid_k = 4},
                                                                    {.format = "bsr", .bsr_width = 5}}) {
      for (const Precision precision : test::kPrecisions) {
        if (precision == Precision::f32 && kernel.format != "csr_adaptive") continue;  // one float build suffices
        CAPTURE(kernel);
        CAPTURE(g.weights.empty());
        const auto r = run(g, params({.max_iter = 25, .tol = 0, .precision = precision, .kernel = kernel}));
        CHECK(r.build_options.find("-D OFFSET=long") != std::string::npos);
        CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(precision));
      }
    }
  }
}

TEST_CASE("converged runs stop where the reference stops, with networkx's rule ||dx||_1 < n tol") {
  const Graph g = awkward_graph(2);
  const auto ref = reference::pagerank(g, 0.85, 100, 1e-6);
  REQUIRE(ref.converged);
  for (const PageRankKernel& kernel : all_kernels()) {
    CAPTURE(kernel);
    const auto r = run(g, params({.precision = Precision::f64, .kernel = kernel}));
    CHECK(r.converged);
    CHECK(r.n_iter == ref.n_iter);
    CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(Precision::f64));
    CHECK(r.format.csr_bytes == (3000 + 1 + itercl::in_links(g).n_links()) * 4);
    CHECK(r.format.matrix_bytes > 0);
  }
}

TEST_CASE("networkx's Langville-Meyer example, alpha = 0.9, in every format") {
  // networkx's test_pagerank.py; the values are the dominant eigenvector of its Google matrix.
  Graph g;
  g.n_nodes = 6;
  for (auto [a, b] :
       std::vector<std::pair<int, int>>{{1, 2}, {1, 3}, {3, 1}, {3, 2}, {3, 5}, {4, 5}, {4, 6}, {5, 4}, {5, 6}, {6, 4}})
    g.src.push_back(a - 1), g.dst.push_back(b - 1);
  const double expected[] = {0.03721197, 0.05395735, 0.04150565, 0.37508082, 0.20599833, 0.28624589};
  for (Precision precision : test::kPrecisions) {
    for (const PageRankKernel& kernel : all_kernels()) {
      CAPTURE(itercl::precision_name(precision));
      CAPTURE(kernel);
      // double: tol 1e-13 leaves the iterate within 1e-11 of the fixed point; the values are
      // printed to 8 decimals. float: tol 1e-7 is reachable in float rounding.
      const bool f64 = precision == Precision::f64;
      const auto r = run(
          g,
          params(
              {.alpha = 0.9, .max_iter = 1000, .tol = f64 ? 1e-13 : 1e-7, .precision = precision, .kernel = kernel}));
      CHECK(r.converged);
      for (std::size_t i = 0; i < 6; ++i) CHECK(std::abs(r.ranks[i] - expected[i]) <= (f64 ? 6e-9 : 2e-6));
    }
  }
}

TEST_CASE("an empty graph, a single node, a single self-loop") {
  const auto empty = run(Graph{}, PageRankParams{});
  CHECK(empty.ranks.empty());
  CHECK(empty.converged);
  CHECK(empty.n_iter == 0);
  for (const PageRankKernel& kernel : all_kernels()) {
    CAPTURE(kernel);
    Graph one;
    one.n_nodes = 1;
    auto r = run(one, params({.precision = Precision::f64, .kernel = kernel}));
    CHECK(r.ranks == std::vector<double>{1.0});
    CHECK(r.converged);
    CHECK(r.n_iter == 1);
    one.src = {0}, one.dst = {0};
    r = run(one, params({.precision = Precision::f64, .kernel = kernel}));
    CHECK(r.ranks[0] == doctest::Approx(1.0).epsilon(1e-15));
    CHECK(r.n_iter == 1);
  }
}

TEST_CASE("personalization and a separate dangling vector, against the reference") {
  const Graph g = awkward_graph(3);
  std::vector<double> p(3000, 0.0), d(3000, 0.0);
  for (std::size_t i = 0; i < 3000; i += 7) p[i] = 1.0 + static_cast<double>(i % 5);
  for (std::size_t i = 100; i < 3000; i += 11) d[i] = 2.0;
  const auto ref = reference::pagerank(g, 0.7, 100, 1e-6, p, d);
  for (const char* format : {"csr_scalar", "hybrid", "bsr"}) {
    const std::string name = format;
    CAPTURE(name);
    const auto r = run(g, {.alpha = 0.7,
                           .personalization = p,
                           .dangling = d,
                           .nstart = {},
                           .precision = Precision::f64,
                           .kernel = {.format = format}});
    CHECK(r.n_iter == ref.n_iter);
    CHECK(reference::l1_distance(r.ranks, ref.ranks) <= tolerance::ranks_l1(Precision::f64));
  }
}

TEST_CASE("not converging within max_iter is reported, not thrown") {
  const Graph g = awkward_graph(4);
  const auto r = run(g, params({.max_iter = 3, .tol = 1e-12, .kernel = {.format = "bsr"}}));
  CHECK_FALSE(r.converged);
  CHECK(r.n_iter == 3);
  CHECK(r.iterations.size() == 3);
  CHECK(r.ranks.size() == 3000);
  CHECK(r.iterations.back().timings.kernel_s > 0);
  CHECK(r.iterations.back().spmv_kernel_s > 0);
  CHECK(r.iterations.back().timings.wall_s >= r.iterations.back().timings.kernel_s);
}

TEST_CASE("invalid parameters name the field") {
  const Graph g = awkward_graph(5);
  auto fails = [&](PageRankParams p, const char* message) {
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(run(g, std::move(p)), doctest::Contains(message), itercl::ParamError);
  };
  auto kernel = [](PageRankKernel k) { return params({.kernel = k}); };
  fails(params({.alpha = 1.5}), "alpha: expected a number in [0, 1], got 1.5");
  fails(params({.max_iter = 0}), "max_iter: expected an integer >= 1");
  fails(params({.tol = -1}), "tol: expected a number >= 0");
  PageRankParams p;
  p.personalization = {1, 2};
  fails(p, "personalization: has 2 values for 3000 nodes");
  p.personalization.assign(3000, 0.0);
  fails(p, "personalization: sums to 0");
  p.personalization.clear();
  p.dangling.assign(3000, 1.0);
  p.dangling[9] = -1;
  fails(p, "dangling: value 9 is -1");
  fails(kernel({.format = "coo"}), "kernel.format: expected one of auto, csr_scalar");
  fails(kernel({.format = "bsr", .vector_size = 8}), "kernel.vector_size: applies to format csr_vector, not bsr");
  fails(kernel({.format = "csr_vector", .work_group_size = 16, .vector_size = 32}),
        "kernel.vector_size: 32 work-items");
  fails(kernel({.format = "bsr", .work_group_size = 48}), "kernel.work_group_size: expected a power of two");
  fails(kernel({.format = "bsr", .bsr_width = 3}), "kernel.bsr_width: expected an integer >= 4");
  fails(kernel({.format = "ell"}), "kernel.ell_max_fill:");  // node 7's long row
}

TEST_SUITE_END();

TEST_CASE("PageRank tuning checks every format against csr_scalar and proposes the fastest correct one") {
  const auto r = test::check_tune("pagerank", {{"scale", 8}, {"edge_factor", 4}}, "ranks differ");
  CHECK(r.problem["scale"] == 8);
  CHECK(r.entry.contains("format"));
  test::check_tune_problem_error("pagerank", {{"scale", 40}}, "scale");
  test::check_tune_problem_error("pagerank", {{"nodes", 8}}, "nodes: unknown field");
}

}  // namespace pagerank_tests
