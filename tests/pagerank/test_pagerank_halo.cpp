// PageRank's halo over ranks (pagerank_halo.hpp): each rank's renumbered in-links, read through its z
// layout [halo below | rows | halo above] filled from its owners, against the whole graph's z in node
// order read at the original ids; the remote nodes read, against a set of the block's remote sources;
// the sends, against what every other rank reads; the rows split into those reading no halo and the
// others, on a small graph and on one that the host's passes split among several threads; and the edge
// cases the MPI tests run: a rank whose rows read no remote node, a rank without rows, a rank that sends
// nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "pagerank/pagerank_halo.hpp"
#include "pagerank/pagerank_split.hpp"
#include "pagerank/pagerank_test_graphs.hpp"

namespace pagerank_halo_tests {

using itercl::Graph;
using itercl::InLinks;
namespace pagerank = itercl::pagerank;
using pagerank_test_graphs::random_links;

// Plans every rank's halo of `links` split at `bounds` and checks it; returns the halos.
std::vector<pagerank::Halo> check_halos(const InLinks& links, const std::vector<std::int32_t>& bounds) {
  const std::size_t P = bounds.size() - 1;
  // Any values, distinct per node: z in node order as one process holds it.
  std::vector<double> z(static_cast<std::size_t>(links.n_nodes));
  for (std::size_t i = 0; i < z.size(); ++i) z[i] = 0.5 + static_cast<double>(i);
  std::vector<pagerank::Halo> halos;
  std::vector<std::vector<double>> local;
  for (std::size_t r = 0; r < P; ++r) {
    CAPTURE(r);
    const std::int32_t first = bounds[r], last = bounds[r + 1];
    const InLinks original = pagerank::row_block(links, first, last);
    InLinks block = original;
    halos.push_back(pagerank::halo_of_block(block, bounds, static_cast<int>(r)));
    const pagerank::Halo& h = halos.back();
    std::set<std::int32_t> remote;
    for (const std::int32_t s : original.sources)
      if (s < first || s >= last) remote.insert(s);
    CHECK(std::vector<std::int32_t>(remote.begin(), remote.end()) == h.needed);
    CHECK(h.received() == static_cast<std::int64_t>(h.needed.size()));
    CHECK(h.below == std::count_if(h.needed.begin(), h.needed.end(), [&](std::int32_t i) { return i < first; }));
    REQUIRE(h.receive_counts.size() == P);
    CHECK(h.receive_counts[r] == 0);
    for (std::size_t q = 0; q < P; ++q)
      CHECK(h.receive_counts[q] ==
            static_cast<std::size_t>(std::count_if(h.needed.begin(), h.needed.end(), [&](std::int32_t i) {
              return i >= bounds[q] && i < bounds[q + 1];
            })));
    // The rank's z filled as the exchange fills it: its owners' entries in `needed` order around its rows.
    std::vector<double> mine;
    for (std::int32_t k = 0; k < h.below; ++k) mine.push_back(z[static_cast<std::size_t>(h.needed[k])]);
    for (std::int32_t i = first; i < last; ++i) mine.push_back(z[static_cast<std::size_t>(i)]);
    for (std::size_t k = static_cast<std::size_t>(h.below); k < h.needed.size(); ++k)
      mine.push_back(z[static_cast<std::size_t>(h.needed[k])]);
    CHECK(block.offsets == original.offsets);
    REQUIRE(block.sources.size() == original.sources.size());
    for (std::size_t k = 0; k < block.sources.size(); ++k) {
      REQUIRE(block.sources[k] >= 0);
      REQUIRE(static_cast<std::size_t>(block.sources[k]) < mine.size());
      CHECK(mine[static_cast<std::size_t>(block.sources[k])] == z[static_cast<std::size_t>(original.sources[k])]);
      // The renumbering keeps the order of the ids within a row (the sums' order is one process's).
      if (k > 0 && original.sources[k - 1] < original.sources[k]) CHECK(block.sources[k - 1] < block.sources[k]);
    }
    // The rows split by what they read: each row's links, in order, in exactly one part; the local part's
    // read only the rank's own entries, the halo part's some remote one.
    const pagerank::RowsByReach parts = pagerank::split_by_reach(block, h, first, last);
    const std::int32_t own_first = h.below, own_last = h.below + (last - first);
    for (const InLinks* part : {&parts.local, &parts.halo}) {
      CHECK(part->n_nodes == block.n_nodes);
      CHECK(part->out_degree == block.out_degree);
    }
    CHECK(parts.local.n_links() + parts.halo.n_links() == block.n_links());
    for (std::int32_t i = 0; i < block.n_nodes; ++i) {
      const auto row = [i](const InLinks& l) {
        return std::vector<std::int32_t>(l.sources.begin() + l.offsets[static_cast<std::size_t>(i)],
                                         l.sources.begin() + l.offsets[static_cast<std::size_t>(i) + 1]);
      };
      const std::vector<std::int32_t> whole = row(block), in_local = row(parts.local), in_halo = row(parts.halo);
      const bool reads_remote =
          std::any_of(whole.begin(), whole.end(), [&](std::int32_t s) { return s < own_first || s >= own_last; });
      CHECK(in_local == (reads_remote ? std::vector<std::int32_t>{} : whole));
      CHECK(in_halo == (reads_remote ? whole : std::vector<std::int32_t>{}));
    }
    local.push_back(std::move(mine));
  }
  // The sends, as plan_halo's all to all gives them; each entry sent is the one its reader expects.
  const std::vector<std::vector<std::int32_t>> sent = pagerank_test_graphs::exchange_needs(halos, bounds);
  for (std::size_t r = 0; r < P; ++r) {
    REQUIRE(halos[r].send.size() == sent[r].size());
    for (std::size_t k = 0; k < sent[r].size(); ++k)
      CHECK(local[r][static_cast<std::size_t>(halos[r].send[k])] == z[static_cast<std::size_t>(sent[r][k])]);
  }
  return halos;
}

TEST_CASE("PageRank halo: renumbered in-links read each rank's z as one process reads z") {
  const InLinks links = random_links(500, 4000, 3, 0.05);
  for (const int ranks : {1, 2, 3, 5, 8}) {
    CAPTURE(ranks);
    const std::vector<pagerank::Halo> halos = check_halos(links, pagerank::link_balanced_rows(links, ranks));
    if (ranks == 1) CHECK(halos[0].needed.empty());
  }
}

TEST_CASE("PageRank halo: planned on the cores, as on one (a graph large enough for several workers)") {
  const InLinks links = random_links(40000, 120000, 5, 0.001);
  for (const int ranks : {2, 3}) {
    CAPTURE(ranks);
    check_halos(links, pagerank::link_balanced_rows(links, ranks));
  }
}

TEST_CASE("PageRank halo: a rank whose rows read no remote node, a rank without rows, a rank sending nothing") {
  // Two separate rings, 0..3 and 4..7, split between them: neither reads the other.
  Graph rings;
  rings.n_nodes = 8;
  for (std::int32_t i = 0; i < 8; ++i) rings.src.push_back(i), rings.dst.push_back(i / 4 * 4 + (i + 1) % 4);
  const InLinks two = itercl::in_links(rings);
  for (const pagerank::Halo& h : check_halos(two, {0, 4, 8})) {
    CHECK(h.needed.empty());
    CHECK(h.send.empty());
  }
  // Rank 1 has no rows; ranks 0 and 2 read each other.
  Graph chain;
  chain.n_nodes = 6;
  for (std::int32_t i = 0; i < 6; ++i) chain.src.push_back(i), chain.dst.push_back((i + 1) % 6);
  const std::vector<pagerank::Halo> empty_middle = check_halos(itercl::in_links(chain), {0, 3, 3, 6});
  CHECK(empty_middle[1].needed.empty());
  CHECK(empty_middle[1].send.empty());
  CHECK(empty_middle[0].needed == std::vector<std::int32_t>{5});
  CHECK(empty_middle[2].needed == std::vector<std::int32_t>{2});
  // A star into node 0: rank 0 reads every other rank, which read nothing, so rank 0 sends nothing.
  Graph star;
  star.n_nodes = 9;
  for (std::int32_t i = 1; i < 9; ++i) star.src.push_back(i), star.dst.push_back(0);
  const std::vector<pagerank::Halo> into_zero = check_halos(itercl::in_links(star), {0, 3, 6, 9});
  CHECK(into_zero[0].send.empty());
  CHECK(into_zero[0].needed == std::vector<std::int32_t>{3, 4, 5, 6, 7, 8});
  CHECK(into_zero[0].below == 0);
  CHECK(into_zero[1].send.size() == 3);
}

}  // namespace pagerank_halo_tests
