// csr_adaptive and reorder "degree" on the device: random graphs with the rows that stress them
// (empty rows, dangling nodes, self-loops, repeated links, rows longer than a row block, so cut into
// pieces), with personalization and dangling vectors that tie ranks to node ids, against the
// double-precision reference in the input's ids; and the config's checks of the new field.
#include <doctest/doctest.h>

#include <random>

#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "reference/pagerank_reference.hpp"
#include "test_support.hpp"

namespace pagerank_adaptive_tests {

using itercl::Graph;
using itercl::PageRankKernel;
using itercl::PageRankParams;
using itercl::Precision;

// n nodes; a fifth dangle, a tenth receive nothing; nodes 0..hubs-1 receive a link from most nodes
// (rows of about n links: several row blocks' worth for small work-groups); repeats and self-loops
// as drawn.
Graph random_graph(std::uint64_t seed, std::int32_t n, int hubs) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> any(0, n - 1), degree(0, 9);
  Graph g;
  g.n_nodes = n;
  for (std::int32_t u = 0; u < n; ++u) {
    if (u % 5 == 1) continue;  // dangling
    for (int e = degree(rng); e > 0; --e) {
      const std::int32_t v = any(rng);
      if (v % 10 != 3) g.src.push_back(u), g.dst.push_back(v);  // nodes 3, 13, ... receive nothing
    }
    for (int h = 0; h < hubs; ++h)
      if (u % 3 != 0) g.src.push_back(u), g.dst.push_back(h);
  }
  g.src.push_back(2), g.dst.push_back(2);  // a self-loop, twice
  g.src.push_back(2), g.dst.push_back(2);
  return g;
}

PageRankParams params(Precision precision, const PageRankKernel& kernel, std::vector<double> p = {},
                      std::vector<double> d = {}) {
  PageRankParams params;
  params.alpha = 0.85, params.max_iter = 30, params.tol = 0, params.precision = precision, params.kernel = kernel;
  params.personalization = std::move(p), params.dangling = std::move(d);
  return params;
}

TEST_SUITE_BEGIN("pagerank");

TEST_CASE("csr_adaptive and reorder degree match the reference in the input's ids on random graphs") {
  const std::vector<PageRankKernel> kernels = {{.format = "csr_adaptive", .reorder = "none", .work_group_size = 16},
                                               {.format = "csr_adaptive", .reorder = "degree"},
                                               {.format = "csr_adaptive", .reorder = "degree", .work_group_size = 64},
                                               {.format = "csr_vector", .reorder = "degree"},
                                               {.format = "hybrid", .reorder = "degree", .hybrid_k = 8}};
  for (const std::int32_t n : {7, 600, 5000}) {
    const Graph g = random_graph(static_cast<std::uint64_t>(n), n, n > 100 ? 3 : 1);
    std::vector<double> p(static_cast<std::size_t>(n)), d(static_cast<std::size_t>(n), 0.0);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<double>(i % 7);
    d[static_cast<std::size_t>(n) - 1] = 1;  // all dangling rank goes to the last node
    const auto plain = reference::pagerank(g, 0.85, 30, 0.0);
    const auto personal = reference::pagerank(g, 0.85, 30, 0.0, p, d);
    for (Precision precision : test::kPrecisions) {
      for (const PageRankKernel& kernel : kernels) {
        CAPTURE(n);
        CAPTURE(itercl::precision_name(precision));
        CAPTURE(kernel);
        const itercl::PageRank uniform(test::device(), params(precision, kernel));
        auto r = uniform.fit(itercl::in_links(g));
        CHECK(r.kernel.reorder == kernel.reorder);
        CHECK(r.n_iter == 30);
        CHECK(reference::l1_distance(r.ranks, plain.ranks) <= tolerance::ranks_l1(precision));
        CHECK(r.iterations.back().residual ==
              doctest::Approx(plain.residuals.back()).epsilon(precision == Precision::f64 ? 1e-9 : 1e-3));
        r = itercl::PageRank(test::device(), params(precision, kernel, p, d)).fit(itercl::in_links(g));
        CHECK(reference::l1_distance(r.ranks, personal.ranks) <= tolerance::ranks_l1(precision));
        if (kernel.reorder == "degree") CHECK(r.format.reorder_s >= 0);
      }
    }
  }
}

TEST_CASE("reorder: auto or a known order; other values name the field") {
  PageRankParams p;
  p.kernel.reorder = "random";
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("kernel.reorder: expected one of auto, none, degree"),
                       itercl::ParamError);
  p.kernel.reorder = "none";
  CHECK_NOTHROW(p.validate());
}

TEST_SUITE_END();

}  // namespace pagerank_adaptive_tests
