// PageRank over several MPI ranks (internal): rank 0 holds the graph (or every rank a part of its edges:
// pagerank_parts.hpp), resolves the kernel for all of it and cuts its destination rows into blocks
// balanced by links (pagerank_split.hpp); each rank receives only its rows' in-links, with every node's out-degree, and
// updates its rows on its own device (the engine over Rows{first, last}). Per iteration the ranks exchange
// only the entries of z = x / outdeg that other ranks' in-links read (the halo, pagerank_halo.hpp: packed on
// the device, sent point to point, in the device's precision) and each rank's L1 change and dangling mass,
// which every rank adds in rank order, so that all stop at the same iteration; x comes to rank 0 once, at
// the end. The degree order and the spread of the hubs over the ranks (spread_order, pagerank_split.hpp)
// are applied before the split and undone on the ranks rank 0 gathers.
#pragma once

#include <span>

#include "core/comm.hpp"
#include "itercl/pagerank.hpp"

namespace itercl::pagerank {

// Refuses the formats that cannot run on a block of rows over several ranks (ParamError "format").
void check_format_over_ranks(const std::string& format);

// What a rank holds of the graph for the iteration, however it got there: rank 0 sending each rank its
// rows of the whole graph (fit_over_ranks below), or every rank drawing a part of the edges and the
// edges exchanged by destination (pagerank_parts.hpp).
struct RankShare {
  std::vector<std::int32_t> bounds;  // rank r updates rows [bounds[r], bounds[r + 1])
  std::vector<std::int32_t> order;   // rank 0: the engine's node i is the input's order[i] (degree order, spread)
  InLinks block;                     // this rank's rows' in-links and every node's out-degree, in the engine's order
};

// Rank 0 resolves the kernel for the whole graph from its in-link row pointer (`offsets`, in any node
// order; empty on the other ranks) and whether its links are weighted, and sends it to every rank:
// r.kernel, r.tuning_sources and r.build_options are rank 0's on every rank, so all compute with the same
// format and tuning.
void resolve_on_rank0(core::Comm& comm, const Device& device, const PageRankParams& p,
                      std::span<const std::int64_t> offsets, bool weighted, PageRankResult& r);

// Rank 0's personalization, dangling and nstart vectors on every rank, moved to the node order `order`
// (rank 0's; empty: the input's order).
void share_node_values(core::Comm& comm, PageRankParams& p, const std::vector<std::int32_t>& order);

// The power iteration over the ranks' shares; `p`'s vectors in the engine's order on every rank
// (share_node_values), `r` as the share's builder filled it (kernel, upload, reorder time). Returns the
// ranks (in the input's ids) on rank 0 only; the timings are this rank's, `format` rank 0's block's.
// The share's block is renumbered into the halo's layout here (plan_halo), hence taken by value.
PageRankResult fit_share(core::Comm& comm, const Device& device, const PageRankParams& p, RankShare share,
                         PageRankResult r);

// `all`: the whole graph on rank 0 (empty on the others). `p`: the parameters on every rank, their
// personalization, dangling and nstart vectors on rank 0 only (sent from there). Every rank calls it.
// Returns as fit_share.
PageRankResult fit_over_ranks(core::Comm& comm, const Device& device, PageRankParams p, const InLinks& all);

}  // namespace itercl::pagerank
