// The graph built on the device (kernel.graph_build "device"): its sort and scan against std::sort and
// std::exclusive_scan, its in-links and degree order against the host's in_links and renumbered, and its
// ranks against the host-built graph's, bit for bit.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "core/device_sort.hpp"
#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/device_graph.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "test_support.hpp"

namespace device_graph_tests {

using itercl::EdgesView;
using itercl::InLinks;
using itercl::LinkOptions;

template <class T>
cl::Buffer to_device(const std::vector<T>& v) {
  const itercl::Device& d = test::device();
  cl::Buffer b(d.context(), CL_MEM_READ_WRITE, std::max<std::size_t>(v.size() * sizeof(T), 1));
  if (!v.empty()) d.queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * sizeof(T), v.data());
  return b;
}

template <class T>
std::vector<T> from_device(const cl::Buffer& b, std::size_t n) {
  std::vector<T> v(n);
  if (n) test::device().queue().enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(T), v.data());
  return v;
}

TEST_CASE("the device's radix sort orders keys as std::sort does, for every length and key width") {
  std::mt19937_64 rng(5);
  // Lengths around the tile (2,048 keys) and the scan's block, and keys of few bits (many equal keys,
  // where a pass that is not stable would show) and of many.
  for (const std::size_t m : {0, 1, 2, 7, 2047, 2048, 2049, 6000, 70001})
    for (const int bits : {1, 5, 22, 44, 62}) {
      std::vector<std::uint64_t> keys(m);
      for (auto& k : keys) k = rng() & ((std::uint64_t{1} << bits) - 1);
      cl::Buffer b = to_device(keys), scratch = to_device(std::vector<std::uint64_t>(m));
      itercl::core::sort_keys(test::device(), b, scratch, m, bits);
      std::sort(keys.begin(), keys.end());
      INFO("m = " << m << ", bits = " << bits);
      CHECK(from_device<std::uint64_t>(b, m) == keys);
    }
}

TEST_CASE("the device's exclusive scan matches std::exclusive_scan across several levels of blocks") {
  std::mt19937 rng(9);
  for (const std::size_t n : {1, 2048, 2049, 100000, 5000000}) {
    std::vector<std::uint32_t> v(n);
    for (auto& x : v) x = rng() % 100;
    cl::Buffer b = to_device(v);
    itercl::core::exclusive_scan(test::device(), b, n);
    std::exclusive_scan(v.begin(), v.end(), v.begin(), std::uint32_t{0});
    INFO("n = " << n);
    CHECK(from_device<std::uint32_t>(b, n) == v);
  }
}

// Random links with repeats and self-loops, a hub, isolated and dangling nodes.
itercl::Graph random_graph(std::int32_t n, std::size_t m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> any(0, std::max(n - 1, 0)), few(0, std::max(n / 8, 1) - 1);
  itercl::Graph g;
  g.n_nodes = n;
  for (std::size_t e = 0; e < m; ++e) {
    const std::int32_t s = e % 3 ? any(rng) : few(rng), d = e % 5 ? any(rng) : 0;  // node 0 the hub
    g.src.push_back(s), g.dst.push_back(e % 97 == 0 ? s : d);                      // and some self-loops
    if (e % 13 == 0) g.src.push_back(s), g.dst.push_back(d);                       // and repeats
  }
  return g;
}

TEST_CASE("the device builds the host's in-links, counts and degree order, for every drop option") {
  for (const auto& [n, m] :
       std::vector<std::pair<std::int32_t, std::size_t>>{{1, 0}, {1, 3}, {5, 0}, {300, 2000}, {5000, 60000}})
    for (const bool loops : {true, false})
      for (const bool repeats : {true, false})
        for (const bool degree : {false, true}) {
          const itercl::Graph g = random_graph(n, m, static_cast<std::uint64_t>(n) + m);
          const EdgesView edges{g.n_nodes, g.src, g.dst, {}};  // unweighted
          const LinkOptions options{.self_loops = loops, .duplicates = repeats};
          InLinks host = itercl::in_links(edges, options);
          std::vector<std::int32_t> order;
          if (degree) {
            order = itercl::pagerank::degree_order(host);
            host = itercl::pagerank::renumbered(host, order);
          }
          itercl::Timings upload;
          const itercl::pagerank::DeviceGraph built =
              itercl::pagerank::build_on_device(test::device(), edges, options, degree, upload);
          INFO("n = " << n << ", m = " << m << ", self_loops " << loops << ", duplicates " << repeats << ", degree "
                      << degree);
          CHECK(built.links.offsets == host.offsets);
          CHECK(built.links.out_degree == host.out_degree);
          CHECK(built.links.n_links() == host.n_links());
          CHECK(from_device<std::int32_t>(built.csr.sources, host.sources.size()) == host.sources);
          CHECK(built.order == order);
          CHECK(built.links.self_loops == host.self_loops);
          CHECK(built.links.duplicates == host.duplicates);
          CHECK(built.links.dropped == host.dropped);
        }
}

TEST_CASE("a bad edge is named as the host names it") {
  const std::vector<std::int32_t> src{0, 1, 2, 1}, dst{1, 2, 7, -1};
  itercl::Timings upload;
  CHECK_THROWS_WITH_AS(itercl::pagerank::build_on_device(test::device(), EdgesView{3, src, dst, {}}, {}, true, upload),
                       "graph: edge 2 (2 -> 7) names a node outside 0..2", itercl::InputError);
}

TEST_CASE("ranks from a graph built on the device equal the host-built graph's, bit for bit") {
  const itercl::Graph g = random_graph(4000, 50000, 3);
  const EdgesView edges{g.n_nodes, g.src, g.dst, {}};  // unweighted
  for (const itercl::pagerank::Format& format : itercl::pagerank::kFormatTable) {
    if (!format.device_build) continue;  // the formats graph_build "device" serves, as the table says
    for (const char* reorder : {"none", "degree"})
      for (const itercl::Precision precision : {itercl::Precision::f32, itercl::Precision::f64}) {
        itercl::PageRankParams p;
        p.precision = precision, p.tol = 0, p.max_iter = 15;
        p.kernel = {.format = std::string(format.name), .reorder = reorder, .graph_build = "host"};
        const itercl::PageRankResult host = itercl::PageRank(test::device(), p).fit(edges, {.duplicates = false});
        p.kernel.graph_build = "device";
        const itercl::PageRankResult device = itercl::PageRank(test::device(), p).fit(edges, {.duplicates = false});
        INFO(format.name << ", " << reorder);
        CHECK(device.kernel.graph_build == "device");
        CHECK(device.ranks == host.ranks);
        CHECK(device.graph.links == host.graph.links);
        CHECK(device.graph.dropped == host.graph.dropped);
        CHECK(device.graph.dangling_nodes == host.graph.dangling_nodes);
      }
  }
}

TEST_CASE("graph_build \"device\" is refused for a format that does not read the in-links as built") {
  itercl::PageRankParams p;
  p.kernel = {.format = "ell", .graph_build = "device"};
  CHECK_THROWS_WITH_AS(p.validate(), doctest::Contains("kernel.graph_build"), itercl::ParamError);
}

}  // namespace device_graph_tests
