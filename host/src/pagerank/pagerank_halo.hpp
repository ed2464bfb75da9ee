// PageRank's halo exchange over MPI ranks (internal; issue 33, the model of PETSc's VecScatter and
// Trilinos' Import): a rank reads z = x / outdeg only at its rows and at the sources of its rows'
// in-links, so each iteration moves only the remote entries its in-links read, each once, from their
// owner, instead of every row to every rank (an allgather). At load, each rank lists the remote sources
// of its in-links by owner and tells the owners (an all to all of counts, then of ids); its z on the
// device becomes [halo below | its rows | halo above] (the remote entries of the ranks before it, its
// rows, those of the ranks after it, each part in ascending node order), and its in-links' sources are
// renumbered into that layout once. The renumbering keeps the order of the ids, and no link moves within
// its row, so every sum adds the same values in the same order as one process does (the bound
// tolerance::ranks_pagerank is unchanged). Nodes without out-links are never read: they have no in-links
// to any row, so their z (0) is never sent.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/comm.hpp"
#include "itercl/graph.hpp"

namespace itercl::pagerank {

struct Halo {
  std::int32_t below = 0, above = 0;  // remote entries of the ranks before this one, and after
  // The remote entries this rank reads, from each rank in rank order (ascending node ids in all): they
  // arrive in this order, the first `below` at z[0, below), the rest after the rows.
  std::vector<std::size_t> receive_counts;
  std::vector<std::int32_t> needed;  // their node ids
  // The entries the other ranks read from this one, as positions in this rank's z, grouped by rank in
  // rank order: the pack kernel gathers them in this order into the buffer that is sent.
  std::vector<std::size_t> send_counts;
  std::vector<std::int32_t> send;
  std::int64_t received() const { return below + above; }
};

// This rank's side of the halo: the remote sources of `block`'s in-links (rows [bounds[me],
// bounds[me + 1]) of a graph split at `bounds`), grouped by owner, and `block`'s sources renumbered in
// place into z's layout. send and send_counts stay empty (set_sends).
Halo halo_of_block(InLinks& block, std::span<const std::int32_t> bounds, int me);

// Fills h's sends from the node ids each rank reads from this one (`ids`, counts[q] from rank q, in rank
// order), this rank's rows starting at `first`.
void set_sends(Halo& h, std::int32_t first, std::span<const std::int32_t> ids, std::vector<std::size_t> counts);

// Both sides, over the ranks: every rank calls it with its block, renumbered in place.
Halo plan_halo(core::Comm& comm, std::span<const std::int32_t> bounds, InLinks& block);

// The rows of `block` (renumbered by halo_of_block, rows [first, last)) split by what their in-links read,
// for the overlap (PETSc's diagonal and off-diagonal parts, by rows): `local` the rows that read only this
// rank's rows, whose sums run while the halo is in flight, `halo` the rows that read some of it. Each a
// whole graph of n rows (the other's empty), with every node's out-degrees and its rows' links as they
// were, in order: each row's sum is the one it was.
struct RowsByReach {
  InLinks local, halo;
};
RowsByReach split_by_reach(const InLinks& block, const Halo& h, std::int32_t first, std::int32_t last);

}  // namespace itercl::pagerank
