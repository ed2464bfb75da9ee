// A rank's rows of PageRank's graph from edges drawn in parts over the ranks: the per-node counts summed
// over the ranks, the plan every rank computes alike from them, and the edges exchanged by destination.
#include "pagerank/pagerank_parts.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "itercl/error.hpp"
#include "itercl/timing.hpp"
#include "pagerank/pagerank_engine.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_ranks.hpp"
#include "pagerank/pagerank_split.hpp"

namespace itercl::pagerank {
namespace {

// Edges as two arrays: src[e] -> dst[e].
struct Edges {
  std::vector<std::int32_t> src, dst;
};

// Sends each edge, both ends renamed by `rename`, to the rank owner(renamed destination); returns the
// edges the ranks sent this one (in rank order). Every rank calls it. Each array goes in its own all to
// all, its copy to send freed as soon as it left.
template <class Rename, class Owner>
Edges exchange_by_destination(core::Comm& comm, std::span<const std::int32_t> src, std::span<const std::int32_t> dst,
                              Rename rename, Owner owner) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  std::vector<std::size_t> counts(ranks), next(ranks);
  for (const std::int32_t d : dst) ++counts[owner(rename(d))];
  for (std::size_t q = 1; q < ranks; ++q) next[q] = next[q - 1] + counts[q - 1];
  Edges out{host_array<std::int32_t>(src.size(), 0, "the sources to send"),
            host_array<std::int32_t>(dst.size(), 0, "the destinations to send")};
  for (std::size_t e = 0; e < src.size(); ++e) {
    const std::int32_t d = rename(dst[e]);
    const std::size_t at = next[owner(d)]++;
    out.src[at] = rename(src[e]), out.dst[at] = d;
  }
  Edges in;
  in.src = comm.alltoallv<std::int32_t>(std::exchange(out.src, {}), counts);
  in.dst = comm.alltoallv<std::int32_t>(std::exchange(out.dst, {}), counts);
  return in;
}

// The links of `rows` as edges (each source -> its row), taking the sources.
Edges edges_of(InLinks rows) {
  Edges e;
  e.dst = host_array<std::int32_t>(rows.sources.size(), 0, "the links' rows");
  e.src = std::move(rows.sources);
  for (std::int32_t i = 0; i < rows.n_nodes; ++i)
    std::fill(e.dst.begin() + rows.offsets[static_cast<std::size_t>(i)],
              e.dst.begin() + rows.offsets[static_cast<std::size_t>(i) + 1], i);
  return e;
}

// Adds the self-loops, repeats and dropped edges of `rows` (the in_links of whole rows) to `counts`.
void add_edge_counts(const InLinks& rows, LinkCounts& counts) {
  counts.self_loops += rows.self_loops, counts.duplicates += rows.duplicates, counts.dropped += rows.dropped;
}

// Every rank's share of the graph from its part of the edges (pagerank_parts.hpp). Fills r's kernel
// fields, reorder time and upload (comm_s: the collectives) and `counts`; p's vectors end on every rank,
// in the engine's order.
RankShare share_parts(core::Comm& comm, const Device& device, PageRankParams& p, const Graph& part,
                      const LinkOptions& options, PageRankResult& r, LinkCounts& counts) {
  const Stopwatch wall;
  const double comm_before = comm.seconds();
  const std::int32_t n = part.n_nodes;
  const auto un = static_cast<std::size_t>(n);
  const int ranks = comm.size();
  if (!part.weights.empty())
    throw InputError(
        "graph: a graph given in parts over ranks is unweighted (the ranks exchange its links without weights); "
        "read a weighted graph on rank 0 (itercl run), or run on one rank");
  if (part.src.size() != part.dst.size())
    throw InputError("graph: " + std::to_string(part.src.size()) + " sources for " + std::to_string(part.dst.size()) +
                     " destinations");
  for (std::size_t e = 0; e < part.src.size(); ++e)
    if (part.src[e] < 0 || part.src[e] >= n || part.dst[e] < 0 || part.dst[e] >= n)
      throw InputError("graph: this rank's edge " + std::to_string(e) + " (" + std::to_string(part.src[e]) + " -> " +
                       std::to_string(part.dst[e]) + ") names a node outside 0.." + std::to_string(n - 1));
  const auto same = [](std::int32_t v) { return v; };

  // Every node's links that stay, out and in, summed over the ranks. With repeats kept, each rank counts
  // its own edges (a self-loop is one on any rank); the rows are built, and their self-loops and repeats
  // counted, where the edges arrive at the end.
  std::vector<std::int32_t> out_degree, in_degree;
  Edges kept;  // duplicates: false: the links that stay, on the rank d mod P for destination d
  std::span<const std::int32_t> src = part.src, dst = part.dst;
  LinkOptions last_options = options;
  if (options.duplicates) {
    out_degree = host_array<std::int32_t>(un, 0, "the out-degrees");
    in_degree = host_array<std::int32_t>(un, 0, "the in-degrees");
    for (std::size_t e = 0; e < src.size(); ++e)
      if (options.self_loops || src[e] != dst[e])
        ++out_degree[static_cast<std::size_t>(src[e])], ++in_degree[static_cast<std::size_t>(dst[e])];
  } else {
    // The repeats of a link share its destination: rank d mod P gathers the edges into d and keeps each
    // link once (R-MAT's hubs, its low ids, dealt round-robin); only then are the counts known.
    const auto round_robin = [ranks](std::int32_t d) { return static_cast<std::size_t>(d % ranks); };
    Edges drawn = exchange_by_destination(comm, src, dst, same, round_robin);
    const Stopwatch clock;
    InLinks rows = in_links(EdgesView{n, drawn.src, drawn.dst, {}}, options);
    counts.rows_s += clock.seconds();
    drawn = {};
    add_edge_counts(rows, counts);
    out_degree = std::move(rows.out_degree);
    in_degree = host_array<std::int32_t>(un, 0, "the in-degrees");
    for (std::size_t i = 0; i < un; ++i)
      in_degree[i] = static_cast<std::int32_t>(rows.offsets[i + 1] - rows.offsets[i]);
    kept = edges_of(std::move(rows));
    src = kept.src, dst = kept.dst;
    last_options = {};  // nothing left to drop, and counted already
  }
  comm.allreduce_sum(std::span<std::int32_t>(out_degree));
  comm.allreduce_sum(std::span<std::int32_t>(in_degree));
  std::vector<std::int64_t> offsets = host_array<std::int64_t>(un + 1, 0, "the row pointer");
  for (std::size_t i = 0; i < un; ++i) offsets[i + 1] = offsets[i] + in_degree[i];
  in_degree = {};

  // The plan: rank 0's kernel, then the order and the cut, which every rank computes from the same
  // counts as rank 0 would from the whole graph (pagerank_ranks.cpp's share_graph).
  resolve_on_rank0(comm, device, p, offsets, /*weighted=*/false, r);
  RankShare share;
  const Stopwatch reorder_clock;
  // The node order of one process, then the hubs spread over the ranks (pagerank_split.hpp): both move
  // the row pointer and the out-degrees; order[i] is the node renamed i.
  const auto reorder = [&](const std::vector<std::int32_t>& order) {
    std::vector<std::int64_t> renamed = host_array<std::int64_t>(un + 1, 0, "the row pointer");
    for (std::size_t i = 0; i < un; ++i) {
      const auto old = static_cast<std::size_t>(order[i]);
      renamed[i + 1] = renamed[i] + offsets[old + 1] - offsets[old];
    }
    offsets = std::move(renamed);
    out_degree = to_new(out_degree, order);
  };
  if (r.kernel.reorder == "degree") {
    share.order = degree_order(out_degree);
    reorder(share.order);
  }
  // spread[i]: node i's id in one process's order, which sorts each row's links below.
  const std::vector<std::int32_t> spread = spread_order(out_degree, ranks);
  reorder(spread);
  share.order = share.order.empty() ? spread : to_new(share.order, spread);
  std::vector<std::int32_t> new_id = host_array<std::int32_t>(un, 0, "the node order");
  for (std::size_t i = 0; i < un; ++i) new_id[static_cast<std::size_t>(share.order[i])] = static_cast<std::int32_t>(i);
  r.format.reorder_s = reorder_clock.seconds();
  share.bounds = link_balanced_rows(offsets, ranks);
  counts.links = offsets.back();
  counts.dangling_nodes = std::count(out_degree.begin(), out_degree.end(), 0);
  offsets = {};
  share_node_values(comm, p, share.order);
  if (comm.rank() != 0) share.order = {};  // rank 0 alone maps the ranks back

  // Every edge to the rank of its row, in the engine's order; the rows built there as one process
  // builds them, with every node's out-degree.
  const auto rename = [&new_id](std::int32_t v) { return new_id[static_cast<std::size_t>(v)]; };
  const auto owner = [&share](std::int32_t d) {
    return static_cast<std::size_t>(std::upper_bound(share.bounds.begin(), share.bounds.end(), d) -
                                    share.bounds.begin() - 1);
  };
  Edges mine = exchange_by_destination(comm, src, dst, rename, owner);
  kept = {}, new_id = {};
  const Stopwatch clock;
  share.block = in_links(EdgesView{n, mine.src, mine.dst, {}}, last_options);
  // Each row's links in one process's order (by their ids before the spread), so each row's sum is one
  // process's.
  parallel_blocks(un, worker_count(share.block.sources.size()), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i)
      std::sort(share.block.sources.begin() + share.block.offsets[i],
                share.block.sources.begin() + share.block.offsets[i + 1], [&spread](std::int32_t a, std::int32_t b) {
                  return spread[static_cast<std::size_t>(a)] < spread[static_cast<std::size_t>(b)];
                });
  });
  counts.rows_s += clock.seconds();
  mine = {};
  if (options.duplicates) add_edge_counts(share.block, counts);
  share.block.out_degree = std::move(out_degree);
  std::array<std::int64_t, 3> summed{counts.self_loops, counts.duplicates, counts.dropped};
  comm.allreduce_sum(std::span<std::int64_t>(summed));
  counts.self_loops = summed[0], counts.duplicates = summed[1], counts.dropped = summed[2];
  r.upload.comm_s += comm.seconds() - comm_before;
  r.upload.wall_s += wall.seconds();
  return share;
}

}  // namespace

PageRankResult fit_over_ranks(core::Comm& comm, const Device& device, PageRankParams p, const Graph& part,
                              const LinkOptions& options, LinkCounts& counts) {
  p.validate();
  device.require(p.precision);
  const std::int32_t n = part.n_nodes;  // the same on every rank
  if (comm.rank() == 0) p.validate(n);
  counts = {};
  PageRankResult r;
  r.kernel = p.kernel;
  if (n == 0) {  // as one process: nothing to build, {} converged
    r.converged = true;
    return r;
  }
  check_node_count(n);
  RankShare share = share_parts(comm, device, p, part, options, r, counts);
  return fit_share(comm, device, p, std::move(share), std::move(r));
}

}  // namespace itercl::pagerank
