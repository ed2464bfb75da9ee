// Synthetic graphs with a seed: R-MAT and Barabasi-Albert.
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "core/number_text.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "itercl/error.hpp"
#include "itercl/graph.hpp"

namespace itercl {
namespace io {

// SplitMix64 (Steele, Lea, Flood 2014): the k-th number of the stream is mix(seed + k * gamma), so
// any edge's draws can be computed on its own, in any thread, in any order.
constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace io

constexpr std::uint64_t kMostEdges = std::uint64_t{1} << 40;

Graph make_rmat(const RmatParams& p) { return make_rmat(p, 0, rmat_edge_count(p)); }

std::int64_t rmat_edge_count(const RmatParams& p) {
  if (p.scale < 1 || p.scale > 30)
    throw ParamError("scale", "expected an integer from 1 to 30, got " + std::to_string(p.scale));
  if (p.edge_factor < 1)
    throw ParamError("edge_factor", "expected an integer >= 1, got " + std::to_string(p.edge_factor));
  for (const auto& [name, v] : {std::pair{"a", p.a}, {"b", p.b}, {"c", p.c}, {"d", p.d}})
    if (!(v >= 0 && v <= 1)) throw ParamError(name, "expected a probability in [0, 1], got " + number_text(v));
  if (std::abs(p.a + p.b + p.c + p.d - 1) > 1e-9)
    throw ParamError("d", "a + b + c + d = " + number_text(p.a + p.b + p.c + p.d) + "; expected 1");
  // Edges are counted in 64 bits (R-MAT 27 has 2^31); 2^40 edges, 8 TB of ids, is past any host's memory.
  const std::uint64_t m = (std::uint64_t{1} << p.scale) * static_cast<std::uint64_t>(p.edge_factor);
  if (m > kMostEdges) throw ParamError("edge_factor", std::to_string(m) + " edges; at most 2^40");
  return static_cast<std::int64_t>(m);
}

Graph make_rmat(const RmatParams& p, std::int64_t first_edge, std::int64_t last_edge) {
  const std::int64_t m = rmat_edge_count(p);  // checks p
  if (first_edge < 0 || last_edge < first_edge || last_edge > m)
    throw InputError("rmat: edges [" + std::to_string(first_edge) + ", " + std::to_string(last_edge) +
                     ") of a graph of " + std::to_string(m));
  // Quadrant thresholds on 32 random bits: [0, ta) a, [ta, tb) b, [tb, tc) c, the rest d.
  auto threshold = [](double q) { return static_cast<std::uint64_t>(std::min(q, 1.0) * 0x1p32); };
  const std::uint64_t ta = threshold(p.a), tb = threshold(p.a + p.b), tc = threshold(p.a + p.b + p.c);
  Graph g;
  g.n_nodes = std::int32_t{1} << p.scale;
  const auto count = static_cast<std::size_t>(last_edge - first_edge);
  g.src.resize(count), g.dst.resize(count);
  // Edge e draws the numbers e * 16 + k (k < 15: two levels per 64-bit number) of one SplitMix64
  // stream: the graph does not depend on the number of threads, and edge e is the same in any part. The quadrant is
  // picked without branches (random bits mispredict every other branch).
  const std::uint64_t seed = io::mix(p.random_state + io::kGamma);
  parallel_blocks(count, worker_count(count), [&](std::size_t first, std::size_t last, int) {
    for (std::size_t at = first; at < last; ++at) {
      const std::uint64_t e = static_cast<std::uint64_t>(first_edge) + at;
      std::uint64_t counter = seed + e * 16 * io::kGamma, bits = 0;
      std::uint32_t u = 0, v = 0;
      for (int level = p.scale - 1; level >= 0; --level) {
        if ((p.scale - 1 - level) % 2 == 0) bits = io::mix(counter += io::kGamma);
        const std::uint64_t r = bits & 0xffffffffu;
        bits >>= 32;
        const std::uint32_t in_c_or_d = r >= tb, in_b = (r >= ta) & (r < tb), in_d = r >= tc;
        u |= in_c_or_d << level;
        v |= (in_b | in_d) << level;
      }
      g.src[at] = static_cast<std::int32_t>(u), g.dst[at] = static_cast<std::int32_t>(v);
    }
  });
  return g;
}

Graph make_barabasi_albert(const BarabasiAlbertParams& p) {
  if (p.m < 1) throw ParamError("m", "expected an integer >= 1, got " + std::to_string(p.m));
  if (p.n_nodes <= p.m)
    throw ParamError("n_nodes",
                     "expected more than m = " + std::to_string(p.m) + " nodes, got " + std::to_string(p.n_nodes));
  const auto m = static_cast<std::size_t>(p.m);
  if ((static_cast<std::uint64_t>(p.n_nodes) - m) * m * 2 > kMostEdges)
    throw ParamError("n_nodes", "n_nodes * m * 2 edges exceed 2^40");
  Graph g;
  g.n_nodes = p.n_nodes;
  auto link = [&](std::int32_t a, std::int32_t b) {
    g.src.push_back(a), g.dst.push_back(b);
    g.src.push_back(b), g.dst.push_back(a);
  };
  // networkx: star_graph(m), then `repeated` lists every node once per unit of degree.
  std::vector<std::int32_t> repeated;
  for (std::int32_t leaf = 1; leaf <= p.m; ++leaf) {
    link(0, leaf);
    repeated.push_back(0), repeated.push_back(leaf);
  }
  Rng rng(p.random_state);
  std::vector<std::int32_t> targets;
  std::unordered_set<std::int32_t> chosen;
  for (std::int32_t source = p.m + 1; source < p.n_nodes; ++source) {
    targets.clear(), chosen.clear();
    while (targets.size() < m) {
      const auto pick = static_cast<std::size_t>(uniform01(rng) * static_cast<double>(repeated.size()));
      const std::int32_t t = repeated[std::min(pick, repeated.size() - 1)];
      if (chosen.insert(t).second) targets.push_back(t);
    }
    for (const std::int32_t t : targets) link(source, t);
    repeated.insert(repeated.end(), targets.begin(), targets.end());
    repeated.insert(repeated.end(), m, source);
  }
  return g;
}

}  // namespace itercl
