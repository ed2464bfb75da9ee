// The PageRank engine over row blocks, as MPI ranks run it, emulated here in one process: P engines,
// each holding only its rows' in-links (pagerank_split.hpp) and updating only those rows, the entries of z
// the others read packed and copied to their halos (pagerank_halo.hpp) while the rows that read none are
// summed, and their dangling masses and L1 changes summed in rank order after every step.
// Against the double-precision reference iteration by iteration, and the whole-graph engine.
#include <doctest/doctest.h>

#include <cstring>
#include <numeric>
#include <random>

#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_engine.hpp"
#include "pagerank/pagerank_halo.hpp"
#include "pagerank/pagerank_split.hpp"
#include "pagerank/pagerank_test_graphs.hpp"
#include "reference/pagerank_reference.hpp"
#include "test_support.hpp"
#include "tuning/tolerances.hpp"

namespace pagerank_rows_tests {

using itercl::Graph;
using itercl::Precision;
namespace pagerank = itercl::pagerank;
namespace tolerance = itercl::tolerance;

// 600 nodes, out-degrees 0..6 (one node in seven dangles) and a hub row that most links reach.
Graph skewed_graph(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> any(0, 599), degree(0, 6);
  Graph g;
  g.n_nodes = 600;
  for (std::int32_t u = 0; u < g.n_nodes; ++u)
    for (int e = degree(rng); e > 0; --e) g.src.push_back(u), g.dst.push_back(e % 2 ? 3 : any(rng));
  return g;
}

// Weights as networkx reads them: 0 (no link) for one link in five, else 0.5 to 8.
Graph weighted(Graph g) {
  std::mt19937_64 rng(23);
  for (std::size_t e = 0; e < g.src.size(); ++e) g.weights.push_back(rng() % 5 == 0 ? 0.0 : 0.5 * (1 + rng() % 16));
  return g;
}

TEST_CASE("PageRank engine over row blocks: every rank's rows gathered equal the reference and one engine") {
  for (const bool with_weights : {false, true}) {
    CAPTURE(with_weights);
    const Graph g = with_weights ? weighted(skewed_graph(11)) : skewed_graph(11);
    const itercl::InLinks links = itercl::in_links(g);
    REQUIRE(links.weighted() == with_weights);
    std::vector<double> personalization(600);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0, 1);
    for (double& v : personalization) v = u(rng) < 0.3 ? 0 : u(rng);
    constexpr int kIterations = 25;
    const reference::PageRank ref = reference::pagerank(g, 0.85, kIterations, 0, personalization);

    for (const Precision precision : {Precision::f64, Precision::f32})
      for (const std::string format : {"csr_scalar", "csr_vector", "csr_adaptive", "hybrid", "bsr"})
        for (const int ranks : {2, 3, 7}) {
          CAPTURE(format);
          CAPTURE(ranks);
          CAPTURE(precision == Precision::f32);
          itercl::PageRankParams params;
          params.precision = precision;
          params.kernel.format = format;
          // Every rank resolves for the whole graph, so all compute with the same kernel.
          const pagerank::Problem whole{links, precision};
          std::vector<std::string> sources;
          const itercl::PageRankKernel kernel = pagerank::resolve(params.kernel, test::device().info(), whole, sources);
          const std::string options = pagerank::defines(kernel, whole);
          itercl::Timings t;
          const auto one = pagerank::make_engine(test::device(), params, whole, kernel, options, t);
          one->start(personalization, {}, t);

          const std::vector<std::int32_t> bounds = pagerank::link_balanced_rows(links, ranks);
          const auto P = static_cast<std::size_t>(ranks);
          std::vector<pagerank::RowsByReach> parts;
          std::vector<pagerank::Halo> halos;
          std::vector<std::unique_ptr<pagerank::Engine>> engines;
          for (std::size_t r = 0; r < P; ++r) {
            itercl::InLinks block = pagerank::row_block(links, bounds[r], bounds[r + 1]);
            halos.push_back(pagerank::halo_of_block(block, bounds, static_cast<int>(r)));
            parts.push_back(pagerank::split_by_reach(block, halos[r], bounds[r], bounds[r + 1]));
          }
          for (std::size_t r = 0; r < P; ++r) {  // parts no longer grows: the engines' pointers into it hold
            engines.push_back(pagerank::make_engine(test::device(), params,
                                                    pagerank::Problem{parts[r].local, precision}, kernel, options, t,
                                                    {bounds[r], bounds[r + 1], halos[r].below, &parts[r].halo}));
            engines.back()->start(personalization, {}, t);
          }
          pagerank_test_graphs::exchange_needs(halos, bounds);  // what plan_halo's all to all does
          std::vector<pagerank::Engine::HaloBuffers> buffers;
          for (std::size_t r = 0; r < P; ++r) buffers.push_back(engines[r]->set_halo(halos[r]));
          // What the point-to-point exchange does: every rank packs what the others read; rank q, in its
          // step, receives rank r's piece for it after the pieces of the ranks before r, and writes its halo.
          const auto pack_all = [&] {
            for (const auto& e : engines) e->pack(t);
          };
          const auto receive = [&](std::size_t q) {
            return [&, q](itercl::Timings& step_timings) {
              std::size_t at = 0;
              for (std::size_t r = 0; r < P; ++r) {
                const std::size_t before =
                    std::accumulate(halos[r].send_counts.begin(), halos[r].send_counts.begin() + q, std::size_t{0});
                const std::size_t bytes = buffers[r].value_bytes;
                REQUIRE(halos[r].send_counts[q] == halos[q].receive_counts[r]);
                if (halos[r].send_counts[q])
                  std::memcpy(buffers[q].received + at * bytes, buffers[r].send + before * bytes,
                              halos[r].send_counts[q] * bytes);
                at += halos[q].receive_counts[r];
              }
              engines[q]->write_halo(step_timings);
            };
          };
          pack_all();
          for (int it = 0; it < kIterations; ++it) {
            CAPTURE(it);
            const double alone = one->step().residual;
            double change = 0, mass = 0;
            for (std::size_t q = 0; q < P; ++q) {
              change += engines[q]->step(receive(q)).residual;
              mass += engines[q]->rows_dangling_mass();
            }
            pack_all();
            for (const auto& e : engines) e->set_dangling_mass(mass, t);
            const double bound = precision == Precision::f32 ? 1e-5 : 1e-12;
            CHECK(std::abs(change - ref.residuals[static_cast<std::size_t>(it)]) <= bound);
            CHECK(std::abs(change - alone) <= bound);
          }
          std::vector<double> gathered;
          for (const auto& e : engines) {
            const std::vector<double> rows = e->rows_of_ranks(t);
            gathered.insert(gathered.end(), rows.begin(), rows.end());
          }
          CHECK(reference::l1_distance(gathered, ref.ranks) <= tolerance::ranks_l1(precision));
          CHECK(reference::l1_distance(gathered, one->ranks(t)) <= tolerance::ranks_pagerank(precision));
        }
  }
}

}  // namespace pagerank_rows_tests
