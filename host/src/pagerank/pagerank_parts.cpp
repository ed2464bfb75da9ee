// A rank's rows of PageRank's graph from edges drawn in parts over the ranks: the per-node counts summed
// over the ranks, the plan every rank computes alike from them, and the edges exchanged by destination.
#include "pagerank/pagerank_parts.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <numeric>
#include <utility>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "core/phase_clock.hpp"
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

// Sends each edge, both ends renamed by `rename`, to the rank owner(its destination); returns the edges the
// ranks sent this one (in rank order). Every rank calls it. The edges to send are grouped by
// rank on the cores, each rank's in the order drawn (core::counting_scatter: the serial pass's order).
// Each array goes in its own all to all, its copy to send freed as soon as it left.
template <class Rename, class Owner>
Edges exchange_by_destination(core::Comm& comm, std::span<const std::int32_t> src, std::span<const std::int32_t> dst,
                              Rename rename, Owner owner) {
  Edges out{host_vector<std::int32_t>(src.size(), "the sources to send"),
            host_vector<std::int32_t>(dst.size(), "the destinations to send")};
  const std::vector<std::size_t> counts = core::counting_scatter(
      src.size(), static_cast<std::size_t>(comm.size()), worker_count(src.size()),
      [&](std::size_t e) { return owner(dst[e]); },
      [&](std::size_t e, std::size_t at) { out.src[at] = rename(src[e]), out.dst[at] = rename(dst[e]); });
  Edges in;
  in.src = comm.alltoallv<std::int32_t>(std::exchange(out.src, {}), counts);
  in.dst = comm.alltoallv<std::int32_t>(std::exchange(out.dst, {}), counts);
  return in;
}

// The links of `rows` as edges (each source -> its row), taking the sources.
Edges edges_of(InLinks rows) {
  Edges e;
  e.dst = host_vector<std::int32_t>(rows.sources.size(), "the links' rows");
  rows_by_links(rows.offsets, worker_count(rows.sources.size()), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      std::fill(e.dst.begin() + rows.offsets[i], e.dst.begin() + rows.offsets[i + 1], static_cast<std::int32_t>(i));
  });
  e.src = std::move(rows.sources);
  return e;
}

// Adds the self-loops, repeats and dropped edges of `rows` (the in_links of whole rows) to `counts`.
void add_edge_counts(const InLinks& rows, LinkCounts& counts) {
  counts.self_loops += rows.self_loops, counts.duplicates += rows.duplicates, counts.dropped += rows.dropped;
}

// Adds one to counts[v] from any number of threads at once (the counts are exact whatever the order).
void count_once(std::vector<std::int32_t>& counts, std::int32_t v) {
  std::atomic_ref<std::int32_t>(counts[static_cast<std::size_t>(v)]).fetch_add(1, std::memory_order_relaxed);
}

// Every rank's share of the graph from its part of the edges (pagerank_parts.hpp). Fills r's kernel
// fields, reorder time and upload (comm_s: the collectives) and `counts`; p's vectors end on every rank,
// in the engine's order. Each step a phase of the call (docs/pagerank.md), every pass over the links or
// the nodes on this rank's cores.
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
  const std::size_t m = part.src.size();
  {
    // The first edge naming a node outside 0..n-1, if any (each thread finds its block's first).
    const int workers = worker_count(m);
    std::vector<std::size_t> bad(static_cast<std::size_t>(workers), m);
    parallel_blocks(m, workers, [&](std::size_t begin, std::size_t end, int w) {
      for (std::size_t e = begin; e < end; ++e)
        if (part.src[e] < 0 || part.src[e] >= n || part.dst[e] < 0 || part.dst[e] >= n) {
          bad[static_cast<std::size_t>(w)] = e;
          return;
        }
    });
    if (const std::size_t e = *std::min_element(bad.begin(), bad.end()); e < m)
      throw InputError("graph: this rank's edge " + std::to_string(e) + " (" + std::to_string(part.src[e]) + " -> " +
                       std::to_string(part.dst[e]) + ") names a node outside 0.." + std::to_string(n - 1));
  }
  const auto same = [](std::int32_t v) { return v; };

  // Every node's links that stay, out and in, summed over the ranks. With repeats kept, each rank counts
  // its own edges (a self-loop is one on any rank); the rows are built, and their self-loops and repeats
  // counted, where the edges arrive at the end.
  std::vector<std::int32_t> out_degree, in_degree;
  Edges kept;  // duplicates: false: the links that stay, on the rank d mod P for destination d
  std::span<const std::int32_t> src = part.src, dst = part.dst;
  LinkOptions last_options = options;
  if (options.duplicates) {
    core::enter_phase("degree_counts");
    out_degree = host_vector<std::int32_t>(un, "the out-degrees");
    in_degree = host_vector<std::int32_t>(un, "the in-degrees");
    parallel_blocks(m, worker_count(m), [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t e = begin; e < end; ++e)
        if (options.self_loops || src[e] != dst[e]) count_once(out_degree, src[e]), count_once(in_degree, dst[e]);
    });
  } else {
    // The repeats of a link share its destination: rank d mod P gathers the edges into d and keeps each
    // link once (R-MAT's hubs, its low ids, dealt round-robin); only then are the counts known.
    core::enter_phase("exchange_edges");
    const auto round_robin = [ranks](std::int32_t d) { return static_cast<std::size_t>(d % ranks); };
    Edges drawn = exchange_by_destination(comm, src, dst, same, round_robin);
    core::enter_phase("graph_build");
    const Stopwatch clock;
    InLinks rows = in_links(EdgesView{n, drawn.src, drawn.dst, {}}, options);
    counts.rows_s += clock.seconds();
    drawn = {};
    add_edge_counts(rows, counts);
    out_degree = std::move(rows.out_degree);
    in_degree = host_vector<std::int32_t>(un, "the in-degrees");
    parallel_blocks(un, worker_count(un), [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t i = begin; i < end; ++i)
        in_degree[i] = static_cast<std::int32_t>(rows.offsets[i + 1] - rows.offsets[i]);
    });
    kept = edges_of(std::move(rows));
    src = kept.src, dst = kept.dst;
    last_options = {};  // nothing left to drop, and counted already
    core::enter_phase("degree_counts");
  }
  comm.allreduce_sum(std::span<std::int32_t>(out_degree));
  comm.allreduce_sum(std::span<std::int32_t>(in_degree));
  std::vector<std::int64_t> offsets = host_vector<std::int64_t>(un + 1, "the row pointer");
  std::copy(in_degree.begin(), in_degree.end(), offsets.begin() + 1);
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  in_degree = {};

  // The plan: rank 0's kernel, then the order and the cut, which every rank computes from the same
  // counts as rank 0 would from the whole graph (pagerank_ranks.cpp's share_graph).
  resolve_on_rank0(comm, device, p, offsets, /*weighted=*/false, r);
  core::enter_phase("reorder");
  RankShare share;
  const Stopwatch reorder_clock;
  // The node order of one process, then the hubs spread over the ranks (pagerank_split.hpp): both move
  // the row pointer and the out-degrees; order[i] is the node renamed i (the engine's order).
  const auto reorder = [&](const std::vector<std::int32_t>& order) {
    std::vector<std::int64_t> renamed = host_vector<std::int64_t>(un + 1, "the row pointer");
    parallel_blocks(un, worker_count(un), [&](std::size_t begin, std::size_t end, int) {
      for (std::size_t i = begin; i < end; ++i) {
        const auto old = static_cast<std::size_t>(order[i]);
        renamed[i + 1] = offsets[old + 1] - offsets[old];
      }
    });
    std::partial_sum(renamed.begin(), renamed.end(), renamed.begin());
    offsets = std::move(renamed);
    out_degree = to_new(out_degree, order);
  };
  if (r.kernel.reorder == "degree") {
    share.order = degree_order(out_degree);
    reorder(share.order);
  }
  // spread[i]: node i's id in one process's order, in which the rows are built below.
  const std::vector<std::int32_t> spread = spread_order(out_degree, ranks);
  reorder(spread);
  share.order = share.order.empty() ? spread : to_new(share.order, spread);
  // Each input node's id in the engine's order (the inverse of share.order: every place written once),
  // and in one process's.
  std::vector<std::int32_t> new_id = host_vector<std::int32_t>(un, "the node order");
  std::vector<std::int32_t> one_id = host_vector<std::int32_t>(un, "the node order");
  parallel_blocks(un, worker_count(un), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i)
      new_id[static_cast<std::size_t>(share.order[i])] = static_cast<std::int32_t>(i);
  });
  parallel_blocks(un, worker_count(un), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t v = begin; v < end; ++v) one_id[v] = spread[static_cast<std::size_t>(new_id[v])];
  });
  r.format.reorder_s = reorder_clock.seconds();
  share.bounds = link_balanced_rows(offsets, ranks);
  counts.links = offsets.back();
  counts.dangling_nodes = std::count(out_degree.begin(), out_degree.end(), 0);
  offsets = {};
  share_node_values(comm, p, share.order);
  if (comm.rank() != 0) share.order = {};  // rank 0 alone maps the ranks back

  // Every edge to the rank of its row (in the engine's order), named by one process's ids; the rows built
  // there as one process builds them (each row's links in one process's order, so each row's sum is one
  // process's), then renamed into the engine's order, each row's links kept in their order.
  core::enter_phase("exchange_edges");
  const auto one_process = [&one_id](std::int32_t v) { return one_id[static_cast<std::size_t>(v)]; };
  const auto owner = [&](std::int32_t d) {
    return static_cast<std::size_t>(
        std::upper_bound(share.bounds.begin(), share.bounds.end(), new_id[static_cast<std::size_t>(d)]) -
        share.bounds.begin() - 1);
  };
  Edges mine = exchange_by_destination(comm, src, dst, one_process, owner);
  kept = {}, new_id = {}, one_id = {};
  core::enter_phase("graph_build");
  const Stopwatch clock;
  InLinks rows = in_links(EdgesView{n, mine.src, mine.dst, {}}, last_options);
  mine = {};
  share.block = renumbered(rows, spread, /*sort_rows=*/false);
  rows = {};
  counts.rows_s += clock.seconds();
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
  core::enter_phase("checks");
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
