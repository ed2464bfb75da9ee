// PageRank over several MPI ranks (internal): rank 0 holds the graph, resolves the kernel for all of it
// and cuts its destination rows into blocks balanced by links (pagerank_split.hpp); each rank receives
// only its rows' in-links, with every node's out-degree, and updates its rows on its own device
// (the engine over Rows{first, last}). Per iteration the ranks gather z = x / outdeg (one
// MPI_Allgatherv in the device's precision, with each rank's L1 change and dangling mass), which every
// rank adds in rank order, so that all stop at the same iteration; x comes to rank 0 once, at the end.
// The degree order is applied on rank 0 before the split and undone on the ranks it gathers.
#pragma once

#include "core/comm.hpp"
#include "itercl/pagerank.hpp"

namespace itercl::pagerank {

// Refuses the formats that cannot run on a block of rows over several ranks (ParamError "format").
void check_format_over_ranks(const std::string& format);

// `all`: the whole graph on rank 0 (empty on the others). `p`: the parameters on every rank, their
// personalization, dangling and nstart vectors on rank 0 only (sent from there). Every rank calls it.
// Returns the ranks (in the input's ids) on rank 0 only; the timings are this rank's, `format` rank 0's
// block's.
PageRankResult fit_over_ranks(core::Comm& comm, const Device& device, PageRankParams p, const InLinks& all);

}  // namespace itercl::pagerank
