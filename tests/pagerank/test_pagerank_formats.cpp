// The PageRank formats' host-side layouts: the seed's Figure 8 Balanced CSR, ELLPACK padding, the
// hybrid's bins and its CPU rows, each against layouts and sums worked out here; a layout too large
// for host memory; PageRankKernel's JSON; the description's reference check and tuning graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <set>
#include <tuple>

#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_description.hpp"
#include "pagerank/pagerank_formats.hpp"

namespace pagerank_tests {

using itercl::Graph;
using itercl::InLinks;
namespace pagerank = itercl::pagerank;

// A graph whose in-link rows are `rows` (1-based, as the seed prints them): row i lists the nodes
// linking to i.
InLinks from_rows(std::int32_t n, const std::vector<std::vector<std::int32_t>>& rows) {
  Graph g;
  g.n_nodes = n;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (const std::int32_t j : rows[i]) g.src.push_back(j - 1), g.dst.push_back(static_cast<std::int32_t>(i));
  return itercl::in_links(g);
}

constexpr std::int32_t A = -100, B = -200, E = -300;  // alpha, beta, epsilon as written in the figure

TEST_CASE("BSR: the seed's Figure 8 matrix builds the seed's Figure 8 layout (W = 8)") {
  // Seed 004, Figure 8: the printed A does not match the printed layout (the text transcription is garbled);
  // the layout is self-consistent and follows the construction rule for W = 8, and this is the A it implies.
  const InLinks L = from_rows(14, {{2, 3}, {1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14}, {3, 8}, {2, 3, 5, 6, 14}});
  const pagerank::BsrLayout bsr = pagerank::build_bsr(L, 8);
  const std::vector<std::vector<std::int32_t>> figure = {{A, 1, 2, 3, A, 2, 1, E},
                                                         {B, 3, 1, 2, 3, 4, 5, 6},
                                                         {B, 3, 7, 8, 9, 10, 11, 13},
                                                         {B, 3, 14, A, 4, 3, 8, E},
                                                         {A, 5, 2, 3, 5, 6, 14, E}};
  REQUIRE(bsr.n_rows == 5);
  CHECK(bsr.width == 8);
  for (std::int64_t r = 0; r < 5; ++r) {
    for (int c = 0; c < 8; ++c) {
      const std::int32_t f = figure[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      const std::int32_t expected = f == A   ? pagerank::kBsrNewRow
                                    : f == B ? pagerank::kBsrPartialRow
                                    : f == E ? pagerank::kBsrFiller
                                             : f - 1;  // our ids start at 0
      CAPTURE(r);
      CAPTURE(c);
      CHECK(bsr.at(r, c) == expected);
    }
  }
  // Column-major: slot c of BSR row r at c * rows + r.
  CHECK(bsr.slots[1 * 5 + 2] == 2);  // row 3's id in BSR row 3 (0-based 2)
  CHECK(bsr.slots[2 * 5 + 0] == 1);  // BSR row 1's first link: node 2
  CHECK(bsr.split_rows == 1);
  CHECK(bsr.filler_slots == 3);
}

TEST_CASE("BSR: rows split in the middle of a BSR row, empty rows left out, widths too small rejected") {
  // W = 6: row 1 (2 links) takes 4 slots, leaving 2: closed with fillers. Row 2 (3 links, needs 5)
  // starts the next BSR row whole; 1 slot left: closed. Row 3 has no in-links: not stored. Row 4
  // (7 links, needs 9) is split: 4 links in one BSR row, its last 3 in the next; row 5 (1 link)
  // needs 3 slots where 1 is left, so it starts a new row.
  const InLinks L = from_rows(5, {{1, 2}, {3, 4, 5}, {}, {1, 2, 3, 4, 5, 1, 2}, {3}});
  const pagerank::BsrLayout bsr = pagerank::build_bsr(L, 6);
  const std::vector<std::vector<std::int32_t>> expected = {
      {A, 1, 1, 2, E, E}, {A, 2, 3, 4, 5, E}, {B, 4, 1, 1, 2, 2}, {B, 4, 3, 4, 5, E}, {A, 5, 3, E, E, E}};
  REQUIRE(bsr.n_rows == static_cast<std::int64_t>(expected.size()));
  for (std::int64_t r = 0; r < bsr.n_rows; ++r)
    for (int c = 0; c < 6; ++c) {
      const std::int32_t f = expected[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      CAPTURE(r);
      CAPTURE(c);
      CHECK(bsr.at(r, c) == (f == A   ? pagerank::kBsrNewRow
                             : f == B ? pagerank::kBsrPartialRow
                             : f == E ? pagerank::kBsrFiller
                                      : f - 1));
    }
  CHECK_THROWS_WITH_AS(pagerank::build_bsr(L, 3), doctest::Contains("kernel.bsr_width: expected an integer >= 4"),
                       itercl::ParamError);
  CHECK(pagerank::build_bsr(from_rows(0, {}), 8).n_rows == 0);
}

TEST_CASE("BSR: a split that starts in a partly used BSR row") {
  // W = 8: row 1 (1 link) takes 3 slots; row 2 (9 links) needs 11 > 5 left, so a beta piece of 3
  // links fills this BSR row, and the next takes the remaining 6.
  const InLinks L = from_rows(9, {{5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}});
  const pagerank::BsrLayout bsr = pagerank::build_bsr(L, 8);
  REQUIRE(bsr.n_rows == 2);
  const std::vector<std::int32_t> row0 = {pagerank::kBsrNewRow, 0, 4, pagerank::kBsrPartialRow, 1, 0, 1, 2};
  const std::vector<std::int32_t> row1 = {pagerank::kBsrPartialRow, 1, 3, 4, 5, 6, 7, 8};
  for (int c = 0; c < 8; ++c) {
    CHECK(bsr.at(0, c) == row0[static_cast<std::size_t>(c)]);
    CHECK(bsr.at(1, c) == row1[static_cast<std::size_t>(c)]);
  }
}

TEST_CASE("ELLPACK: column-major, padded with the index of the zero after the rank vector; fill limit") {
  const InLinks L = from_rows(4, {{2, 3, 4}, {}, {1}, {1, 2}});
  const pagerank::EllBlock ell = pagerank::build_ell(L, 10);
  CHECK(ell.width == 3);
  CHECK(ell.n_rows == 4);
  CHECK(ell.rows.empty());
  const std::vector<std::int32_t> columns = {1, 4, 0, 0, 2, 4, 4, 1, 3, 4, 4, 4};  // pad = 4 = n_nodes
  CHECK(ell.columns == columns);
  // 12 slots for 6 links is 2 per link.
  CHECK_THROWS_WITH_AS(pagerank::build_ell(L, 1.5), doctest::Contains("12 slots for 6 links, 2 per link"),
                       itercl::ParamError);
}

// `L` with a weight per link that names it (1 + its index), so that a weight laid out beside the wrong
// link shows.
InLinks weighted(InLinks L) {
  L.values.resize(L.sources.size());
  L.out_weight.assign(static_cast<std::size_t>(L.n_nodes), 0.0);
  for (std::size_t k = 0; k < L.values.size(); ++k) {
    L.values[k] = 1.0 + static_cast<double>(k);
    L.out_weight[static_cast<std::size_t>(L.sources[k])] += L.values[k];
  }
  return L;
}

TEST_CASE("weighted layouts: every ELL, BSR and hybrid slot's weight is its link's, padding and markers 0") {
  const InLinks L = weighted(
      from_rows(14, {{2, 3}, {1}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14}, {3, 8}, {2, 3, 5, 6, 14}, {}, {4}}));
  const pagerank::EllBlock ell = pagerank::build_ell(L, 100);
  REQUIRE(ell.values.size() == ell.columns.size());
  for (std::int64_t r = 0; r < ell.n_rows; ++r)
    for (int c = 0; c < ell.width; ++c) {
      const auto at = static_cast<std::size_t>(c * ell.n_rows + r);
      const bool link = c < L.row_length(static_cast<std::int32_t>(r));
      CHECK(ell.values[at] ==
            (link ? L.values[static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(r)] + c)] : 0));
    }
  // BSR read row by row, slot by slot: its links come in the CSR's order, each with its weight; the
  // markers, row ids and fillers weigh 0.
  const pagerank::BsrLayout bsr = pagerank::build_bsr(L, 8);
  REQUIRE(bsr.values.size() == bsr.slots.size());
  std::vector<std::pair<std::int32_t, double>> read;
  for (std::int64_t r = 0; r < bsr.n_rows; ++r)
    for (int c = 0; c < bsr.width; ++c) {
      const std::int32_t v = bsr.at(r, c);
      const double w = bsr.values[static_cast<std::size_t>(c * bsr.n_rows + r)];
      if (v < 0) {
        CHECK(w == 0);
        if (v != pagerank::kBsrFiller) CHECK(bsr.values[static_cast<std::size_t>(++c * bsr.n_rows + r)] == 0);
        continue;
      }
      read.emplace_back(v, w);
    }
  REQUIRE(read.size() == L.sources.size());
  for (std::size_t k = 0; k < read.size(); ++k) {
    CHECK(read[k].first == L.sources[k]);
    CHECK(read[k].second == L.values[k]);
  }
  // The hybrid: the CPU's rows keep their links' weights, and its sums weigh them.
  const pagerank::HybridLayout h = pagerank::build_hybrid(L, 4);
  REQUIRE(h.cpu_rows == std::vector<std::int32_t>{2, 4});
  REQUIRE(h.cpu_values.size() == h.cpu_sources.size());
  std::vector<double> z(15), got(2);
  for (std::size_t i = 0; i < 14; ++i) z[i] = 1.0 / static_cast<double>(i + 2);
  pagerank::cpu_row_sums(h, z.data(), got.data());
  for (std::size_t r = 0; r < 2; ++r) {
    double expected = 0;
    const auto row = static_cast<std::size_t>(h.cpu_rows[r]);
    for (auto k = static_cast<std::size_t>(L.offsets[row]); k < static_cast<std::size_t>(L.offsets[row + 1]); ++k)
      expected += L.values[k] * z[static_cast<std::size_t>(L.sources[k])];
    CHECK(got[r] == doctest::Approx(expected).epsilon(1e-14));
  }
  for (const pagerank::EllBlock& bin : h.bins) CHECK(bin.values.size() == bin.columns.size());
}

TEST_CASE("hybrid: ELL bins 1-3, 4-7, 8-15 for k = 16, longer rows to the CPU as CSR") {
  std::vector<std::vector<std::int32_t>> rows;
  for (int length : {0, 1, 3, 4, 7, 8, 15, 16, 40, 2})
    rows.emplace_back(static_cast<std::size_t>(length), 1), std::iota(rows.back().begin(), rows.back().end(), 1);
  const InLinks L = from_rows(40, rows);
  const pagerank::HybridLayout h = pagerank::build_hybrid(L, 16);
  REQUIRE(h.bins.size() == 3);
  CHECK(h.bins[0].rows == std::vector<std::int32_t>{1, 2, 9});
  CHECK(h.bins[0].width == 3);
  CHECK(h.bins[1].rows == std::vector<std::int32_t>{3, 4});
  CHECK(h.bins[1].width == 7);
  CHECK(h.bins[2].rows == std::vector<std::int32_t>{5, 6});
  CHECK(h.bins[2].width == 15);
  CHECK(h.bins[2].min_length == 8);
  CHECK(h.bins[2].max_length == 15);
  CHECK(h.cpu_rows == std::vector<std::int32_t>{7, 8});
  CHECK(h.cpu_offsets == std::vector<std::int64_t>{0, 16, 56});
  // Bin 0, block row 2 is row 9 (2 links: nodes 0 and 1), padded with n = 40 to width 3.
  CHECK(h.bins[0].columns[0 * 3 + 2] == 0);
  CHECK(h.bins[0].columns[1 * 3 + 2] == 1);
  CHECK(h.bins[0].columns[2 * 3 + 2] == 40);
  // The seed's k = 4: one bin of rows up to 3 in-links.
  CHECK(pagerank::build_hybrid(L, 4).bins.size() == 1);
  CHECK(pagerank::hybrid_bin(1) == 0);
  CHECK(pagerank::hybrid_bin(3) == 0);
  CHECK(pagerank::hybrid_bin(4) == 1);
  CHECK(pagerank::hybrid_bin(16) == 3);
}

TEST_CASE("hybrid CPU rows: one enormous row shared among threads sums as a plain loop does") {
  // 150,000 links in one row, more than one thread's share, between two short dense rows.
  std::vector<std::vector<std::int32_t>> rows(200);
  rows[3].assign(20, 7);
  for (int k = 0; k < 150000; ++k) rows[10].push_back(1 + k % 200);
  rows[11].assign(30, 9);
  const InLinks L = from_rows(200, rows);
  const pagerank::HybridLayout h = pagerank::build_hybrid(L, 16);
  REQUIRE(h.cpu_rows == std::vector<std::int32_t>{3, 10, 11});
  std::vector<double> z(201);
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = 1.0 / static_cast<double>(i + 3);
  z[200] = 0;
  std::vector<double> got(3, -1);
  pagerank::cpu_row_sums(h, z.data(), got.data());
  for (std::size_t r = 0; r < 3; ++r) {
    double expected = 0;
    for (const std::int32_t j : rows[static_cast<std::size_t>(h.cpu_rows[r])])
      expected += z[static_cast<std::size_t>(j - 1)];
    CAPTURE(r);
    CHECK(got[r] == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("hybrid k = auto: the CPU's rows hold at most the share its speed earns, 1 / (1 + rho) of the links") {
  // 300 rows of 1 in-link, 10 of 10, 2 of 300: 1,000 links, 70% in rows of 4 or more, 60% from 16.
  std::vector<std::vector<std::int32_t>> rows(312);
  for (std::size_t i = 0; i < 312; ++i) rows[i].assign(i < 300 ? 1 : i < 310 ? 10 : 300, 1);
  const InLinks L = from_rows(312, rows);
  CHECK(pagerank::auto_hybrid_k(L, 0.5) == 16);  // up to 2/3 of the links
  CHECK(pagerank::auto_hybrid_k(L, 50) == 512);  // up to 1/51, so no row here
  CHECK(pagerank::auto_hybrid_k(from_rows(3, {{}, {}, {}}), 0.5) == 4);
}

TEST_CASE("PageRankKernel as JSON: hybrid_k takes \"auto\" (or 0) or an integer >= 1, the ratios numbers") {
  itercl::PageRankKernel k;
  from_json(nlohmann::json{{"hybrid_k", "auto"}, {"hybrid_rho", 0.5}, {"ell_max_fill", 3}}, k);
  CHECK(k.hybrid_k == 0);
  CHECK(k.hybrid_rho == 0.5);
  CHECK(k.ell_max_fill == 3.0);
  from_json(nlohmann::json{{"hybrid_k", 16}}, k);
  CHECK(k.hybrid_k == 16);
  const nlohmann::json j = k;
  CHECK(j == nlohmann::json{{"format", "auto"},
                            {"reorder", "auto"},
                            {"graph_build", "auto"},
                            {"work_group_size", 0},
                            {"vector_size", 0},
                            {"bsr_width", 0},
                            {"hybrid_k", 16},
                            {"hybrid_rho", 0.5},
                            {"ell_max_fill", 3.0}});
  auto fails = [&](const nlohmann::json& bad, const char* message) {
    CAPTURE(bad.dump());
    CHECK_THROWS_WITH_AS(from_json(bad, k), doctest::Contains(message), itercl::ParamError);
  };
  // 0 is the default, "auto", as for every tuning field.
  from_json(nlohmann::json{{"hybrid_k", 0}}, k);
  CHECK(k.hybrid_k == 0);
  fails({{"hybrid_k", -1}}, "kernel.hybrid_k: expected an integer >= 1 or \"auto\" (or 0, as \"auto\"), got -1");
  fails({{"hybrid_k", "many"}}, "kernel.hybrid_k: expected an integer >= 1 or \"auto\"");
  fails({{"hybrid_rho", "fast"}}, "kernel.hybrid_rho: expected a number, got \"fast\"");
  fails({{"vector_size", 2.5}}, "kernel.vector_size: expected an integer, got 2.5");
  fails({{"format", 3}}, "kernel.format: expected a string");
  fails({{"width", 3}},
        "kernel.width: unknown field (expected format, reorder, graph_build, work_group_size, vector_size, bsr_width, "
        "hybrid_k, hybrid_rho, ell_max_fill)");
}

TEST_CASE("the description: a candidate's ranks within twice ranks_l1 of the reference's; the tuner's R-MAT graph") {
  const std::vector<double> reference = {0.5, 0.25, 0.25};
  const double bound = 2 * itercl::tolerance::ranks_l1(itercl::Precision::f64);
  CHECK(pagerank::ranks_mismatch({0.5, 0.25 + bound / 4, 0.25 - bound / 4}, reference, itercl::Precision::f64).empty());
  CHECK(pagerank::ranks_mismatch({0.5, 0.25 + bound, 0.25 - bound}, reference, itercl::Precision::f64) ==
        "ranks differ from csr_scalar's by 4e-10 in L1, beyond 2e-10");
  const itercl::InLinks links = pagerank::TuningGraph{.scale = 8, .edge_factor = 4}.links();
  CHECK(links.n_nodes == 256);
  CHECK(links.n_links() == 1024);
  CHECK(itercl::pagerank::additions_per_iteration(links) == 1024);
}

TEST_CASE("csr_adaptive row blocks: rows packed within capacity and max rows, long rows cut into pieces") {
  // capacity 4, at most 3 rows: rows 1-2 (1 + 2 links) fit, row 3 (2) would not; rows 3, 4 (empty),
  // 5 (1) make a block; row 6 (9 links) is cut 4 + 4 + 1; rows 7 (4 links, whole) and 8 (empty).
  const InLinks L = from_rows(8, {{1}, {1, 2}, {3, 4}, {}, {5}, {1, 2, 3, 4, 5, 6, 7, 8, 1}, {1, 2, 3, 4}, {}});
  const pagerank::RowBlocks b = pagerank::build_row_blocks(L, 4, 3);
  // The first row and first link of every block, then n and the links: rows 0-based, links as offsets.
  CHECK(b.rows == std::vector<std::int32_t>{0, 2, 5, 5, 5, 6, 8});
  CHECK(b.links == std::vector<std::int64_t>{0, 3, 6, 10, 14, 15, 19});
  CHECK(b.n_blocks() == 6);
  CHECK(b.split == std::vector<std::int32_t>{5, 2, 3});  // row 6 (0-based 5): pieces from block 2, three
  CHECK_THROWS_AS(pagerank::build_row_blocks(L, 0, 3), itercl::ParamError);
}

TEST_CASE("csr_adaptive row blocks on random graphs: every row in one block, every link in one, within limits") {
  std::mt19937_64 rng(5);
  for (const int capacity : {1, 7, 64}) {
    Graph g;
    g.n_nodes = 500;
    std::uniform_int_distribution<std::int32_t> node(0, 499), hub(0, 4);
    for (int e = 0; e < 4000; ++e) g.src.push_back(node(rng)), g.dst.push_back(e % 3 ? node(rng) : hub(rng));
    const InLinks L = itercl::in_links(g);
    const pagerank::RowBlocks b = pagerank::build_row_blocks(L, capacity, 16);
    CAPTURE(capacity);
    std::vector<int> covered(500, 0);
    std::int64_t pieces = 0;
    for (std::int64_t k = 0; k < b.n_blocks(); ++k) {
      const auto uk = static_cast<std::size_t>(k);
      const std::int32_t first = b.rows[uk], next = b.rows[uk + 1];
      const std::int64_t begin = b.links[uk], end = b.links[uk + 1];
      CHECK(end - begin <= capacity);
      CHECK(begin <= end);
      if (begin == L.offsets[static_cast<std::size_t>(first)] && next == first + 1 &&
          end == L.offsets[static_cast<std::size_t>(first) + 1])
        ++covered[static_cast<std::size_t>(first)];
      else if (next - first <= 1 && begin != end && L.row_length(first) > capacity)
        ++pieces;  // a piece of a split row, counted through `split` below
      else {
        CHECK(next - first <= 16);
        CHECK(begin == L.offsets[static_cast<std::size_t>(first)]);
        CHECK(end == L.offsets[static_cast<std::size_t>(next)]);
        for (std::int32_t r = first; r < next; ++r) ++covered[static_cast<std::size_t>(r)];
      }
    }
    for (std::int64_t i = 0; i < b.n_split(); ++i) {
      const std::int32_t row = b.split[static_cast<std::size_t>(3 * i)];
      CHECK(b.split[static_cast<std::size_t>(3 * i + 2)] == (L.row_length(row) + capacity - 1) / capacity);
      ++covered[static_cast<std::size_t>(row)];
      pieces -= b.split[static_cast<std::size_t>(3 * i + 2)];
    }
    CHECK(pieces == 0);
    CHECK(std::all_of(covered.begin(), covered.end(), [](int c) { return c == 1; }));
  }
}

TEST_CASE("reorder degree: nodes by out-degree, largest first; the renumbered graph has the same links") {
  std::mt19937_64 rng(9);
  Graph g;
  g.n_nodes = 300;
  std::uniform_int_distribution<std::int32_t> node(0, 299), few(0, 20);
  for (int e = 0; e < 3000; ++e) {
    const std::int32_t u = e % 2 ? few(rng) : node(rng);  // nodes 0..20 link most
    g.src.push_back(u), g.dst.push_back(node(rng));
  }
  g.src.push_back(5), g.dst.push_back(5);  // a self-loop
  const InLinks L = itercl::in_links(g);
  const std::vector<std::int32_t> order = pagerank::degree_order(L);
  for (std::size_t i = 1; i < order.size(); ++i) {
    const auto a = L.out_degree[static_cast<std::size_t>(order[i - 1])];
    const auto b = L.out_degree[static_cast<std::size_t>(order[i])];
    CHECK((a > b || (a == b && order[i - 1] < order[i])));
  }
  const InLinks R = pagerank::renumbered(L, order);
  std::vector<std::int32_t> new_id(300);
  for (std::size_t i = 0; i < 300; ++i) new_id[static_cast<std::size_t>(order[i])] = static_cast<std::int32_t>(i);
  std::multiset<std::pair<std::int32_t, std::int32_t>> before, after;
  for (std::int32_t v = 0; v < 300; ++v) {
    for (std::int64_t k = L.offsets[static_cast<std::size_t>(v)]; k < L.offsets[static_cast<std::size_t>(v) + 1]; ++k)
      before.insert({new_id[static_cast<std::size_t>(L.sources[static_cast<std::size_t>(k)])],
                     new_id[static_cast<std::size_t>(v)]});
    CHECK(R.out_degree[static_cast<std::size_t>(new_id[static_cast<std::size_t>(v)])] ==
          L.out_degree[static_cast<std::size_t>(v)]);
  }
  for (std::int32_t v = 0; v < 300; ++v) {
    const auto row = R.sources.begin() + R.offsets[static_cast<std::size_t>(v)];
    CHECK(std::is_sorted(row, R.sources.begin() + R.offsets[static_cast<std::size_t>(v) + 1]));
    for (std::int64_t k = R.offsets[static_cast<std::size_t>(v)]; k < R.offsets[static_cast<std::size_t>(v) + 1]; ++k)
      after.insert({R.sources[static_cast<std::size_t>(k)], v});
  }
  CHECK(before == after);
  // Weighted: each link keeps its weight through the renaming, and each node its out-weight.
  const InLinks W = weighted(L);
  const InLinks RW = pagerank::renumbered(W, order);
  std::multiset<std::tuple<std::int32_t, std::int32_t, double>> weighed_before, weighed_after;
  for (std::int32_t v = 0; v < 300; ++v) {
    for (std::int64_t k = W.offsets[static_cast<std::size_t>(v)]; k < W.offsets[static_cast<std::size_t>(v) + 1]; ++k)
      weighed_before.insert({new_id[static_cast<std::size_t>(W.sources[static_cast<std::size_t>(k)])],
                             new_id[static_cast<std::size_t>(v)], W.values[static_cast<std::size_t>(k)]});
    CHECK(RW.out_weight[static_cast<std::size_t>(new_id[static_cast<std::size_t>(v)])] ==
          W.out_weight[static_cast<std::size_t>(v)]);
  }
  for (std::int32_t v = 0; v < 300; ++v)
    for (std::int64_t k = RW.offsets[static_cast<std::size_t>(v)]; k < RW.offsets[static_cast<std::size_t>(v) + 1]; ++k)
      weighed_after.insert({RW.sources[static_cast<std::size_t>(k)], v, RW.values[static_cast<std::size_t>(k)]});
  CHECK(weighed_before == weighed_after);
  const std::vector<double> values = {1, 2, 3};
  const std::vector<std::int32_t> three = {2, 0, 1};
  CHECK(pagerank::to_new(values, three) == std::vector<double>{3, 1, 2});
  CHECK(pagerank::to_old(pagerank::to_new(values, three), three) == values);
}

}  // namespace pagerank_tests
