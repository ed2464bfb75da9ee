// PageRank's rows split over ranks (pagerank_split.hpp): the cuts against a scan of the row pointer
// written here, the balance they promise, and the blocks, which together give back every in-link once;
// the spread of the hubs against orders written out by hand, and the graph renumbered with each row's
// links kept in their order.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "itercl/error.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pagerank/pagerank_split.hpp"
#include "pagerank/pagerank_test_graphs.hpp"

namespace pagerank_split_tests {

using itercl::Graph;
using itercl::InLinks;
namespace pagerank = itercl::pagerank;
using pagerank_test_graphs::random_links;

// Checks the cuts of `links` over `ranks`, then that the blocks partition its in-links.
void check_split(const InLinks& links, int ranks) {
  CAPTURE(ranks);
  const std::vector<std::int32_t> b = pagerank::link_balanced_rows(links, ranks);
  REQUIRE(b.size() == static_cast<std::size_t>(ranks) + 1);
  CHECK(b.front() == 0);
  CHECK(b.back() == links.n_nodes);
  const std::int64_t total = links.n_links();
  std::int32_t longest = 0;
  for (std::int32_t i = 0; i < links.n_nodes; ++i) longest = std::max(longest, links.row_length(i));
  for (int r = 0; r < ranks; ++r) {
    CAPTURE(r);
    const auto ur = static_cast<std::size_t>(r);
    CHECK(b[ur] <= b[ur + 1]);
    if (total > 0) {
      // The reference cut: the first row whose offset reaches n_links r / P, by a scan.
      std::int32_t cut = 0;
      while (cut < links.n_nodes && links.offsets[static_cast<std::size_t>(cut)] < total * r / ranks) ++cut;
      if (r > 0) CHECK(b[ur] == cut);
      const std::int64_t held =
          links.offsets[static_cast<std::size_t>(b[ur + 1])] - links.offsets[static_cast<std::size_t>(b[ur])];
      CHECK(held <= total / ranks + 1 + longest);
    } else {
      CHECK(b[ur + 1] - b[ur] <= links.n_nodes / ranks + 1);
    }
  }
  // Every row's in-links are in its rank's block, at the same row, and in no other block.
  std::vector<int> seen(static_cast<std::size_t>(links.n_nodes), 0);
  std::int64_t links_seen = 0;
  for (int r = 0; r < ranks; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const InLinks block = pagerank::row_block(links, b[ur], b[ur + 1]);
    REQUIRE(block.n_nodes == links.n_nodes);
    REQUIRE(block.offsets.size() == links.offsets.size());
    CHECK(block.out_degree == links.out_degree);
    CHECK(block.offsets.front() == 0);
    CHECK(block.offsets.back() == block.n_links());
    links_seen += block.n_links();
    for (std::int32_t i = 0; i < links.n_nodes; ++i) {
      const bool mine = i >= b[ur] && i < b[ur + 1];
      if (!mine) {
        CHECK(block.row_length(i) == 0);
        continue;
      }
      ++seen[static_cast<std::size_t>(i)];
      REQUIRE(block.row_length(i) == links.row_length(i));
      for (std::int32_t k = 0; k < links.row_length(i); ++k)
        CHECK(block.sources[static_cast<std::size_t>(block.offsets[static_cast<std::size_t>(i)] + k)] ==
              links.sources[static_cast<std::size_t>(links.offsets[static_cast<std::size_t>(i)] + k)]);
    }
  }
  CHECK(links_seen == total);
  for (const int s : seen) CHECK(s == 1);
}

TEST_CASE("PageRank rows over ranks: cuts balanced by links, blocks that hold every in-link once") {
  for (const int ranks : {1, 2, 3, 5}) {
    check_split(random_links(50, 400, 7), ranks);
    check_split(random_links(7, 30, 8), ranks);
  }
  // More ranks than rows: some blocks are empty, none is lost.
  check_split(random_links(3, 10, 9), 5);
  // No links at all: rows split evenly.
  Graph empty;
  empty.n_nodes = 10;
  const InLinks none = itercl::in_links(empty);
  check_split(none, 3);
  CHECK(pagerank::link_balanced_rows(none, 3) == std::vector<std::int32_t>{0, 3, 6, 10});
  // One row holds every link: the first rank takes it, the others get the empty rows after it.
  Graph star;
  star.n_nodes = 6;
  for (std::int32_t j = 1; j < 6; ++j) star.src.push_back(j), star.dst.push_back(0);
  const InLinks hub = itercl::in_links(star);
  check_split(hub, 3);
  CHECK(pagerank::link_balanced_rows(hub, 3) == std::vector<std::int32_t>{0, 1, 1, 6});
}

TEST_CASE("64-bit link offsets: cuts, blocks and auto k past 2^31 links, on row pointers without their links") {
  // R-MAT 27 and web graphs hold 2^31 links or more; CI cannot hold such a graph, but the row pointer
  // alone (n + 1 offsets) is what these compute from. Five rows: 1.5, 0.7, 0, 2.1 and 0.2 billion links.
  const std::int64_t G = 1'000'000'000 / 10;
  const std::vector<std::int64_t> offsets = {0, 15 * G, 22 * G, 22 * G, 43 * G, 45 * G};
  // n_links r / P: 1.125e9, 2.25e9 (past 2^31 = 2.147e9) and 3.375e9 for 4 ranks; each cut is the first row
  // starting there or later: rows 1 (at 1.5e9), 4 (at 4.3e9: rows 2 and 3 start at 2.2e9) and 4 again.
  CHECK(pagerank::link_balanced_rows(offsets, 4) == std::vector<std::int32_t>{0, 1, 4, 4, 5});
  CHECK(pagerank::link_balanced_rows(offsets, 2) == std::vector<std::int32_t>{0, 4, 5});
  // A rank's block keeps the whole graph's offsets less its first one, in 64 bits.
  const std::vector<std::int64_t> ends = {offsets[4], offsets[5]};  // rows 3 and 4
  const InLinks block = pagerank::block_of_rows(5, 3, offsets[3], ends, std::vector<std::int32_t>(3), {0, 0, 0, 0, 0});
  CHECK(block.offsets == std::vector<std::int64_t>{0, 0, 0, 0, 21 * G, 23 * G});
  CHECK(block.row_length(3) == 2'100'000'000);
  // hybrid's k: the CPU's rows hold at most 1 / (1 + rho) of the 4.5e9 links, counted in 64 bits. rho =
  // 0.01: at most 4.455e9; the rows of 2^28 links or more hold 4.3e9 (all rows 4.5e9).
  CHECK(pagerank::auto_hybrid_k(offsets, 0.01) == 1 << 28);
  CHECK(pagerank::needs_wide_offsets(offsets.back()));
  CHECK_FALSE(pagerank::needs_wide_offsets(1'000'000));
  CHECK(pagerank::wide_offsets(pagerank::defines({.format = "csr_adaptive"}, itercl::Precision::f32, false, true)));
  CHECK_FALSE(pagerank::wide_offsets(pagerank::defines({.format = "bsr"}, itercl::Precision::f32, false, false)));
}

TEST_CASE("PageRank rows over ranks: a bad count or range is an InputError") {
  const InLinks links = random_links(5, 20, 3);
  CHECK_THROWS_AS(pagerank::link_balanced_rows(links, 0), itercl::InputError);
  CHECK_THROWS_AS(pagerank::row_block(links, 3, 2), itercl::InputError);
  CHECK_THROWS_AS(pagerank::row_block(links, 0, 6), itercl::InputError);
}

TEST_CASE("PageRank spread: the hubs dealt round-robin over the ranks, every node once") {
  // Out-degrees 9, 0, 7, 7, 1, 0, 3, 8: by degree (ties by id) 0, 7, 2, 3, 6, 4, 1, 5.
  const std::vector<std::int32_t> degree = {9, 0, 7, 7, 1, 0, 3, 8};
  CHECK(pagerank::spread_order(degree, 1) == std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(pagerank::spread_order(degree, 2) == std::vector<std::int32_t>{0, 2, 6, 1, 7, 3, 4, 5});
  CHECK(pagerank::spread_order(degree, 3) == std::vector<std::int32_t>{0, 3, 1, 7, 6, 5, 2, 4});
  CHECK(pagerank::spread_order(degree, 9) == std::vector<std::int32_t>{0, 7, 2, 3, 6, 4, 1, 5});
  CHECK_THROWS_AS(pagerank::spread_order(degree, 0), itercl::InputError);
}

TEST_CASE("PageRank renumbered keeping each row's links in order") {
  const InLinks links = random_links(300, 3000, 9);
  const std::vector<std::int32_t> order = pagerank::spread_order(links.out_degree, 3);
  const InLinks kept = pagerank::renumbered(links, order, /*sort_rows=*/false);
  for (std::int32_t i = 0; i < links.n_nodes; ++i) {
    const auto old = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
    REQUIRE(kept.row_length(i) == links.row_length(static_cast<std::int32_t>(old)));
    CHECK(kept.out_degree[static_cast<std::size_t>(i)] == links.out_degree[old]);
    for (std::int32_t k = 0; k < kept.row_length(i); ++k)  // the same link at the same place, renamed
      CHECK(order[static_cast<std::size_t>(
                kept.sources[static_cast<std::size_t>(kept.offsets[static_cast<std::size_t>(i)] + k)])] ==
            links.sources[static_cast<std::size_t>(links.offsets[old] + k)]);
  }
}

TEST_CASE("PageRank degree order and spread on the cores: the serial orders, bit for bit") {
  // Enough nodes for several workers, skewed degrees (a few hubs, many of degree 0 and 1), ties kept by id.
  std::mt19937 rng(12);
  std::geometric_distribution<std::int32_t> skewed(0.05);
  std::vector<std::int32_t> degree(200003);
  for (std::int32_t& d : degree) d = skewed(rng);
  degree[17] = 5000;  // a hub far past the others: many degrees, few nodes each
  std::vector<std::int32_t> by_degree(degree.size());
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](std::int32_t a, std::int32_t b) {
    return degree[static_cast<std::size_t>(a)] > degree[static_cast<std::size_t>(b)];
  });
  CHECK(pagerank::degree_order(degree) == by_degree);
  for (const int ranks : {2, 3, 7}) {
    CAPTURE(ranks);
    std::vector<std::int32_t> dealt;  // the groups one after another, node k of the degree order in group k mod P
    for (std::size_t group = 0; group < static_cast<std::size_t>(ranks); ++group)
      for (std::size_t k = group; k < by_degree.size(); k += static_cast<std::size_t>(ranks))
        dealt.push_back(by_degree[k]);
    CHECK(pagerank::spread_order(degree, ranks) == dealt);
  }
}

TEST_CASE("PageRank rows by links: blocks covering every row once, each about links / workers") {
  const InLinks links = random_links(5000, 60000, 13, 0.01);
  for (const int workers : {1, 2, 3, 8}) {
    CAPTURE(workers);
    std::vector<int> seen(static_cast<std::size_t>(links.n_nodes), 0);
    std::vector<std::pair<std::size_t, std::size_t>> blocks(static_cast<std::size_t>(workers));
    std::atomic<int> calls{0};
    pagerank::rows_by_links(links.offsets, workers, [&](std::size_t begin, std::size_t end) {
      const int call = calls++;
      blocks[static_cast<std::size_t>(call)] = {begin, end};
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    CHECK(calls == workers);
    CHECK(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; }));
    // No block holds more than its share of the links and one row's (where a cut falls).
    std::int64_t longest = 0;
    for (std::int32_t i = 0; i < links.n_nodes; ++i) longest = std::max<std::int64_t>(longest, links.row_length(i));
    for (const auto& [begin, end] : blocks)
      CHECK(links.offsets[end] - links.offsets[begin] <= links.n_links() / workers + 1 + longest);
  }
  pagerank::rows_by_links(std::span<const std::int64_t>{}, 4, [](std::size_t, std::size_t) { FAIL("no rows"); });
}

}  // namespace pagerank_split_tests
