// The in-link CSR (self-loops and repeats counted, kept or dropped) and the seeded generators.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "itercl/error.hpp"
#include "itercl/graph.hpp"

using itercl::Graph;
using itercl::InLinks;

// Helpers and tests in the family's namespace: no helper name can meet another test file's.
namespace core_tests {

Graph graph(std::int32_t n, std::vector<std::pair<std::int32_t, std::int32_t>> e) {
  Graph g;
  g.n_nodes = n;
  for (auto [s, d] : e) g.src.push_back(s), g.dst.push_back(d);
  return g;
}

TEST_CASE("in-links: each row lists its sources ascending, repeats kept; out-degrees count every link") {
  // Edges in no particular order, with a repeat (2 -> 0 twice) and a self-loop (1 -> 1).
  const Graph g = graph(4, {{2, 0}, {1, 1}, {3, 0}, {2, 0}, {0, 1}, {1, 0}, {3, 2}});
  const InLinks L = itercl::in_links(g);
  CHECK(L.offsets == std::vector<std::int64_t>{0, 4, 6, 7, 7});
  CHECK(L.sources == std::vector<std::int32_t>{1, 2, 2, 3, 0, 1, 3});
  CHECK(L.out_degree == std::vector<std::int32_t>{1, 2, 2, 2});
  CHECK(L.self_loops == 1);
  CHECK(L.duplicates == 1);
  CHECK(L.dropped == 0);
  CHECK(L.row_length(3) == 0);

  const InLinks simple = itercl::in_links(g, {.self_loops = false, .duplicates = false});
  CHECK(simple.offsets == std::vector<std::int64_t>{0, 3, 4, 5, 5});
  CHECK(simple.sources == std::vector<std::int32_t>{1, 2, 3, 0, 3});
  CHECK(simple.out_degree == std::vector<std::int32_t>{1, 1, 1, 2});
  CHECK(simple.dropped == 2);

  CHECK_THROWS_WITH_AS(itercl::in_links(graph(3, {{0, 1}, {1, 3}})),
                       doctest::Contains("edge 1 (1 -> 3) names a node outside 0..2"), itercl::InputError);
  const InLinks empty = itercl::in_links(Graph{});
  CHECK(empty.offsets == std::vector<std::int64_t>{0});
  CHECK(empty.n_links() == 0);
}

TEST_CASE("weighted in-links: networkx's semantics for parallel links, repeats dropped, zero weights, one weight") {
  // 2 -> 0 three times (weights 1, 0, 4), 1 -> 1 a self-loop of 2, 3 -> 0 of 0 (no link), 0 -> 1 of 0.5,
  // 3 -> 2 of 3.
  Graph g = graph(4, {{2, 0}, {1, 1}, {2, 0}, {3, 0}, {0, 1}, {2, 0}, {3, 2}});
  g.weights = {1, 2, 0, 0, 0.5, 4, 3};
  // MultiDiGraph: each parallel link kept with its weight; zero weights left out, their nodes kept.
  const InLinks L = itercl::in_links(g);
  REQUIRE(L.weighted());
  CHECK(L.offsets == std::vector<std::int64_t>{0, 2, 4, 5, 5});
  CHECK(L.sources == std::vector<std::int32_t>{2, 2, 0, 1, 3});
  CHECK(L.values == std::vector<double>{1, 4, 0.5, 2, 3});
  CHECK(L.out_weight == std::vector<double>{0.5, 2, 5, 3});
  CHECK(L.out_degree == std::vector<std::int32_t>{1, 1, 2, 1});
  CHECK(L.zero_weights == 2);
  CHECK(L.duplicates == 2);
  // DiGraph: a repeat's weight replaces the earlier one, so the last read (4) stays; a link whose last
  // weight is 0 is no link at all.
  const InLinks last = itercl::in_links(g, {.self_loops = false, .duplicates = false});
  CHECK(last.sources == std::vector<std::int32_t>{2, 0, 3});
  CHECK(last.values == std::vector<double>{4, 0.5, 3});
  CHECK(last.out_weight == std::vector<double>{0.5, 0, 4, 3});  // node 1's only link was its self-loop
  CHECK(last.dropped == 3);
  g.weights = {1, 2, 5, 0, 0.5, 0, 3};  // now 2 -> 0's last weight is 0: the link goes
  const InLinks gone = itercl::in_links(g, {.self_loops = true, .duplicates = false});
  CHECK(gone.sources == std::vector<std::int32_t>{0, 1, 3});
  CHECK(gone.out_weight == std::vector<double>{0.5, 2, 0, 3});
  CHECK(gone.out_degree[2] == 0);  // dangling

  // Links that all weigh the same rank as unweighted ones: no values, no out-weights.
  g.weights = {2.5, 2.5, 0, 2.5, 2.5, 2.5, 2.5};
  const InLinks same = itercl::in_links(g);
  CHECK_FALSE(same.weighted());
  CHECK(same.values.empty());
  CHECK(same.sources == std::vector<std::int32_t>{2, 2, 3, 0, 1, 3});
  CHECK(same.zero_weights == 1);

  g.weights = {1, 2, -1, 0, 0.5, 4, 3};
  CHECK_THROWS_WITH_AS(itercl::in_links(g), doctest::Contains("edge 2 (2 -> 0) has weight -1"), itercl::InputError);
  g.weights = {1, 2, NAN, 0, 0.5, 4, 3};
  CHECK_THROWS_WITH_AS(itercl::in_links(g), doctest::Contains("weights must be finite"), itercl::InputError);
  g.weights = {1, 2};
  CHECK_THROWS_WITH_AS(itercl::in_links(g), doctest::Contains("2 weights for 7 edges"), itercl::InputError);
}

TEST_CASE("weighted in-links: each weight stays with its link through the parallel radix sort") {
  std::mt19937_64 rng(17);
  Graph g;
  g.n_nodes = 3000;
  std::uniform_int_distribution<std::int32_t> node(0, 2999);
  for (int e = 0; e < 200000; ++e) {
    g.src.push_back(node(rng)), g.dst.push_back(node(rng));
    // The weight names its edge, so a weight that strayed to another link shows.
    g.weights.push_back(1 + static_cast<double>(g.src.back()) * 3000 + g.dst.back() + 1e-7 * e);
  }
  const InLinks L = itercl::in_links(g);
  REQUIRE(L.weighted());
  std::vector<double> out(3000, 0.0);
  for (std::size_t e = 0; e < g.src.size(); ++e) out[static_cast<std::size_t>(g.src[e])] += g.weights[e];
  for (std::int32_t i = 0; i < 3000; ++i)
    for (auto k = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]);
         k < static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i) + 1]); ++k) {
      const double w = L.values[k];
      REQUIRE(std::floor(w - 1) == static_cast<double>(L.sources[k]) * 3000 + i);
      if (k > static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]) && L.sources[k] == L.sources[k - 1])
        REQUIRE(L.values[k] > L.values[k - 1]);  // repeats in the order read (stable)
    }
  for (std::size_t i = 0; i < 3000; ++i) CHECK(L.out_weight[i] == doctest::Approx(out[i]).epsilon(1e-13));
}

TEST_CASE("in-links: the sorted rows of a plain sort of (destination, source), on random graphs with repeats") {
  // Sizes around the parallel passes' thresholds and the radix digits' widths: one node, no edges, a few
  // edges, and graphs large enough to split over every core.
  for (const auto& [n, m] : std::vector<std::pair<std::int32_t, std::int32_t>>{
           {1, 0}, {1, 3}, {5, 0}, {7, 40}, {300, 5000}, {70000, 200000}, {2049, 100000}}) {
    CAPTURE(n);
    CAPTURE(m);
    std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 31 + static_cast<std::uint64_t>(m));
    Graph g;
    g.n_nodes = n;
    for (std::int32_t e = 0; e < m; ++e) {
      // A third of the edges among 8 nodes: repeats and self-loops are common.
      const std::int32_t span = e % 3 == 0 ? std::min(n, 8) : n;
      g.src.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(span)));
      g.dst.push_back(static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(span)));
    }
    std::vector<std::pair<std::int32_t, std::int32_t>> pairs;  // (destination, source)
    for (std::int32_t e = 0; e < m; ++e)
      pairs.emplace_back(g.dst[static_cast<std::size_t>(e)], g.src[static_cast<std::size_t>(e)]);
    std::sort(pairs.begin(), pairs.end());
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, 0);
    std::vector<std::int32_t> sources, out_degree(static_cast<std::size_t>(n), 0);
    std::int64_t loops = 0, repeats = 0;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      ++offsets[static_cast<std::size_t>(pairs[k].first) + 1];
      sources.push_back(pairs[k].second);
      ++out_degree[static_cast<std::size_t>(pairs[k].second)];
      loops += pairs[k].first == pairs[k].second;
      repeats += k > 0 && pairs[k] == pairs[k - 1];
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) offsets[i + 1] += offsets[i];
    const InLinks L = itercl::in_links(g);
    CHECK(L.offsets == offsets);
    CHECK(L.sources == sources);
    CHECK(L.out_degree == out_degree);
    CHECK(L.self_loops == loops);
    CHECK(L.duplicates == repeats);
  }
}

TEST_CASE("R-MAT: the size asked for, the same graph for the same seed, quadrants in proportion a:b:c:d") {
  const itercl::RmatParams p{
      .scale = 12, .edge_factor = 8, .a = 0.57, .b = 0.19, .c = 0.19, .d = 0.05, .random_state = 3};
  const Graph g = itercl::make_rmat(p);
  CHECK(g.n_nodes == 4096);
  CHECK(g.n_edges() == 4096 * 8);
  CHECK(g.labels.empty());
  const Graph again = itercl::make_rmat(p);
  CHECK(again.src == g.src);
  CHECK(again.dst == g.dst);
  auto other = p;
  other.random_state = 4;
  CHECK(itercl::make_rmat(other).src != g.src);

  // The top level's quadrant of each edge is a draw with probabilities a, b, c, d: each count lies
  // within 5 standard deviations of its mean (a false alarm once in ~1.7 million runs).
  double count[4] = {0, 0, 0, 0};
  for (std::size_t e = 0; e < g.src.size(); ++e) count[(g.src[e] >= 2048) * 2 + (g.dst[e] >= 2048)] += 1;
  const double m = static_cast<double>(g.n_edges());
  const double probability[4] = {p.a, p.b, p.c, p.d};
  for (int q = 0; q < 4; ++q) {
    CAPTURE(q);
    CHECK(std::abs(count[q] - m * probability[q]) <= 5 * std::sqrt(m * probability[q] * (1 - probability[q])));
  }

  CHECK_THROWS_WITH_AS(itercl::make_rmat({.scale = 4, .a = 0.5, .b = 0.2, .c = 0.2, .d = 0.2}),
                       doctest::Contains("d: a + b + c + d = 1.1"), itercl::ParamError);
  CHECK_THROWS_AS(itercl::make_rmat({.scale = 0}), itercl::ParamError);
  CHECK_THROWS_AS(itercl::make_rmat({.scale = 4, .edge_factor = 0}), itercl::ParamError);
}

TEST_CASE("R-MAT in parts: the parts' edges, in order, are make_rmat's; each part draws its own alone") {
  const itercl::RmatParams p{.scale = 9, .edge_factor = 5, .random_state = 8};
  const Graph whole = itercl::make_rmat(p);
  REQUIRE(itercl::rmat_edge_count(p) == whole.n_edges());
  for (const std::size_t parts : {1, 2, 3, 7, 2561}) {  // 2561 > m = 2560: parts without edges
    CAPTURE(parts);
    std::vector<std::int32_t> src, dst;
    for (std::size_t r = 0; r < parts; ++r) {
      const std::size_t m = whole.src.size(), first = m * r / parts, last = m * (r + 1) / parts;
      const Graph part = itercl::make_rmat(p, static_cast<std::int64_t>(first), static_cast<std::int64_t>(last));
      CHECK(part.n_nodes == whole.n_nodes);
      REQUIRE(part.n_edges() == static_cast<std::int64_t>(last - first));
      src.insert(src.end(), part.src.begin(), part.src.end());
      dst.insert(dst.end(), part.dst.begin(), part.dst.end());
    }
    CHECK(src == whole.src);
    CHECK(dst == whole.dst);
  }
  // One edge on its own, far into the graph, as the whole draw has it.
  const Graph one = itercl::make_rmat(p, 2000, 2001);
  CHECK(one.src == std::vector<std::int32_t>{whole.src[2000]});
  CHECK(one.dst == std::vector<std::int32_t>{whole.dst[2000]});
  CHECK_THROWS_WITH_AS(itercl::make_rmat(p, 10, 2561), doctest::Contains("edges [10, 2561) of a graph of 2560"),
                       itercl::InputError);
  CHECK_THROWS_AS(itercl::make_rmat(p, 5, 4), itercl::InputError);
  CHECK_THROWS_AS(itercl::make_rmat(p, -1, 4), itercl::InputError);
  CHECK_THROWS_AS(itercl::rmat_edge_count({.scale = 31}), itercl::ParamError);
}

TEST_CASE("Barabasi-Albert: networkx's construction, stored both ways, deterministic") {
  const itercl::BarabasiAlbertParams p{.n_nodes = 500, .m = 3, .random_state = 7};
  const Graph g = itercl::make_barabasi_albert(p);
  CHECK(g.n_nodes == 500);
  // A star on m + 1 nodes (m edges), then m edges per further node; every edge both ways.
  CHECK(g.n_edges() == 2 * (3 + (500 - 4) * 3));
  std::set<std::pair<std::int32_t, std::int32_t>> seen;
  std::vector<int> degree(500, 0);
  for (std::size_t e = 0; e < g.src.size(); ++e) {
    CHECK(g.src[e] != g.dst[e]);
    CHECK(seen.insert({g.src[e], g.dst[e]}).second);  // no edge twice
    ++degree[static_cast<std::size_t>(g.src[e])];
  }
  for (auto [s, d] : seen) CHECK(seen.count({d, s}) == 1);
  CHECK(*std::min_element(degree.begin() + 1, degree.end()) >= 1);
  CHECK(*std::min_element(degree.begin() + 4, degree.end()) >= 3);
  // Preferential attachment: the hub of the first nodes gathers far more than m links.
  CHECK(*std::max_element(degree.begin(), degree.end()) > 30);
  CHECK(itercl::make_barabasi_albert(p).dst == g.dst);
  CHECK_THROWS_WITH_AS(itercl::make_barabasi_albert({.n_nodes = 3, .m = 3}), doctest::Contains("n_nodes"),
                       itercl::ParamError);
  CHECK_THROWS_AS(itercl::make_barabasi_albert({.n_nodes = 10, .m = 0}), itercl::ParamError);
}

}  // namespace core_tests
