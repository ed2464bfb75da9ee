// The in-link CSR that every PageRank format is built from.
#include "itercl/graph.hpp"

#include <algorithm>
#include <limits>

#include "itercl/error.hpp"
#include "parallel.hpp"

namespace itercl {
namespace {

// Stable counting sort of the edges by destination: row offsets, and each row's sources in the
// edges' order.
void rows_by_destination(const Graph& g, std::vector<std::int32_t>& offsets, std::vector<std::int32_t>& sources) {
  offsets.assign(static_cast<std::size_t>(g.n_nodes) + 1, 0);
  for (const std::int32_t d : g.dst) ++offsets[static_cast<std::size_t>(d) + 1];
  for (std::size_t i = 0; i < static_cast<std::size_t>(g.n_nodes); ++i) offsets[i + 1] += offsets[i];
  std::vector<std::int32_t> next(offsets.begin(), offsets.end() - 1);
  sources.resize(g.src.size());
  for (std::size_t e = 0; e < g.src.size(); ++e)
    sources[static_cast<std::size_t>(next[static_cast<std::size_t>(g.dst[e])]++)] = g.src[e];
}

// Sorts every row's sources, the rows shared among threads by their links (one long row does not
// leave the other threads idle behind it).
void sort_rows(const std::vector<std::int32_t>& offsets, std::vector<std::int32_t>& sources) {
  const std::size_t rows = offsets.size() - 1, links = sources.size();
  const int workers = worker_count(links);
  std::vector<std::size_t> first_row(static_cast<std::size_t>(workers) + 1, rows);
  for (int w = 0; w < workers; ++w) {
    const auto target =
        static_cast<std::int64_t>(links * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers));
    first_row[static_cast<std::size_t>(w)] =
        static_cast<std::size_t>(std::lower_bound(offsets.begin(), offsets.end() - 1, target) - offsets.begin());
  }
  parallel_blocks(static_cast<std::size_t>(workers), workers, [&](std::size_t w, std::size_t, int) {
    for (std::size_t i = first_row[w]; i < first_row[w + 1]; ++i) {
      const auto begin = sources.begin() + offsets[i], end = sources.begin() + offsets[i + 1];
      if (!std::is_sorted(begin, end)) std::sort(begin, end);
    }
  });
}

}  // namespace

InLinks in_links(const Graph& g, const LinkOptions& options) {
  const std::size_t m = g.src.size();
  if (g.dst.size() != m)
    throw InputError("graph: " + std::to_string(m) + " sources for " + std::to_string(g.dst.size()) + " destinations");
  if (m > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw InputError("graph: " + std::to_string(m) +
                     " edges; the kernels index links with 32-bit integers (at most 2^31 - 1)");
  if (g.n_nodes < 0) throw InputError("graph: a negative node count");
  for (std::size_t e = 0; e < m; ++e)
    if (g.src[e] < 0 || g.src[e] >= g.n_nodes || g.dst[e] < 0 || g.dst[e] >= g.n_nodes)
      throw InputError("graph: edge " + std::to_string(e) + " (" + std::to_string(g.src[e]) + " -> " +
                       std::to_string(g.dst[e]) + ") names a node outside 0.." + std::to_string(g.n_nodes - 1));

  InLinks L;
  L.n_nodes = g.n_nodes;
  // Sources ascending in every row: the kernels then gather the rank vector in address order, and
  // repeats sit side by side.
  rows_by_destination(g, L.offsets, L.sources);
  sort_rows(L.offsets, L.sources);

  // Count self-loops and repeats; drop those the options leave out, compacting in place.
  std::size_t out = 0;
  for (std::int32_t i = 0; i < L.n_nodes; ++i) {
    const auto begin = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i)]);
    const auto end = static_cast<std::size_t>(L.offsets[static_cast<std::size_t>(i) + 1]);
    L.offsets[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(out);
    std::int32_t previous = -1;
    for (std::size_t k = begin; k < end; ++k) {
      const std::int32_t s = L.sources[k];
      const bool loop = s == i, repeat = s == previous;
      previous = s;
      L.self_loops += loop, L.duplicates += repeat;
      if ((loop && !options.self_loops) || (repeat && !options.duplicates)) continue;
      L.sources[out++] = s;
    }
  }
  L.offsets[static_cast<std::size_t>(L.n_nodes)] = static_cast<std::int32_t>(out);
  L.dropped = static_cast<std::int64_t>(m - out);
  L.sources.resize(out);
  L.sources.shrink_to_fit();
  L.out_degree.assign(static_cast<std::size_t>(L.n_nodes), 0);
  for (const std::int32_t s : L.sources) ++L.out_degree[static_cast<std::size_t>(s)];
  return L;
}

}  // namespace itercl
