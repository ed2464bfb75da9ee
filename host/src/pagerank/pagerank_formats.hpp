// The host side of the PageRank formats (internal): building ELLPACK, the hybrid's bins and CPU rows,
// and the Balanced CSR layout from the in-link CSR, and the hybrid's CPU sums. No OpenCL here, so the
// host tests check the layouts directly (the seed's Figure 8).
#pragma once

#include <cstdint>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"
#include "core/parallel.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/graph.hpp"

namespace itercl::pagerank {

// ELLPACK rows padded to one width, column-major: slot c of block row r at c * rows + r, so the
// work-items of a group read consecutive addresses. Padding holds n_nodes, the index of an extra
// zero at the end of the rank vector, so the kernels need no branch for it.
struct EllBlock {
  std::vector<std::int32_t> rows;      // the matrix row of each block row; empty: block row r is row r
  std::int64_t n_rows = 0;             // block rows
  int width = 0;                       // the longest row's length
  int min_length = 0, max_length = 0;  // of the rows in the block (a bin's range)
  std::vector<std::int32_t> columns;   // width * n_rows
  std::vector<double> values;          // a weighted graph's: each slot's weight (padding 0); else empty
};

// Every row, padded to the longest. Throws ParamError("kernel.ell_max_fill") when the padded array
// would hold more than max_fill slots per link.
EllBlock build_ell(const InLinks& L, double max_fill);

// The seed's hybrid (section 5.3.3): rows with 1 to k - 1 in-links in ELLPACK bins of lengths 1-3,
// 4-7, 8-15, ... (the seed's three kernels for k = 16), one kernel each; rows with k or more in-links
// in CSR for the CPU. Rows without in-links are in neither: their sum is 0.
struct HybridLayout {
  int k = 0;
  std::vector<EllBlock> bins;             // non-empty bins, shortest rows first
  std::vector<std::int32_t> cpu_rows;     // the dense rows, ascending
  std::vector<std::int64_t> cpu_offsets;  // their in-links as CSR
  std::vector<std::int32_t> cpu_sources;
  std::vector<double> cpu_values;  // and their weights (a weighted graph; else empty)
};
HybridLayout build_hybrid(const InLinks& L, int k);

// The k of hybrid_k = "auto" (README.md, "PageRank") for a device that sums `rho` links for each one the
// CPU sums (PageRankKernel::hybrid_rho), from the in-link row pointer.
int auto_hybrid_k(std::span<const std::int64_t> offsets, double rho);
inline int auto_hybrid_k(const InLinks& L, double rho) { return auto_hybrid_k(L.offsets, rho); }

// The bin of a row of `length` in-links (length >= 1): 0 for 1-3, then j for [2^(j+1), 2^(j+2)).
int hybrid_bin(int length);

// The CPU rows' sums of z over their in-links (of weight * z for a weighted graph, each weight rounded to
// T as the device's values are), with threads. The links are split evenly among the
// threads whatever the rows' lengths (one enormous row is shared); rows cut by a split are summed
// from their pieces in thread order, so the result does not vary from run to run.
template <class T>
void cpu_row_sums(const HybridLayout& h, const T* z, T* out);

// csr_adaptive's row blocks (cl/pagerank_csr.cl): consecutive rows packed while their links fit in
// `capacity` and they number at most `max_rows` (the work-group size: at least one work-item per
// row); a row longer than capacity is cut into pieces of capacity links (the last shorter), one
// block each, and listed in `split` for csr_adaptive_pieces. Every row is in exactly one block.
struct RowBlocks {
  std::vector<std::int32_t> rows;   // each block's first row, then n_nodes
  std::vector<std::int64_t> links;  // each block's first link, then n_links (64-bit: a graph may pass 2^31)
  std::vector<std::int32_t> split;  // (row, first block, pieces) per split row
  std::int64_t n_blocks() const { return static_cast<std::int64_t>(rows.size()) - 1; }
  std::int64_t n_split() const { return static_cast<std::int64_t>(split.size() / 3); }
};
// Throws ParamError("kernel.work_group_size") unless 1 <= max_rows and 1 <= capacity.
RowBlocks build_row_blocks(const InLinks& L, int capacity, int max_rows);

// The node order of `reorder: "degree"`: order[new id] = old id, by out-degree, largest first (ties
// by id). The z values gathered most often (a node's is read once per out-link) then lie together
// at the start of the vector, where they share cache lines; dangling nodes come last.
std::vector<std::int32_t> degree_order(std::span<const std::int32_t> out_degree);
inline std::vector<std::int32_t> degree_order(const InLinks& L) { return degree_order(L.out_degree); }

// The same graph with node order[i] renamed i: rows, sources (ascending within each row) and
// out-degrees permuted. The counts of self-loops, duplicates and dropped edges carry over. With
// `sort_rows` false, each row keeps its links in their order (only their ids renamed): every row then
// sums the same values in the same order as before (the spread over ranks, pagerank_split.hpp).
InLinks renumbered(const InLinks& L, const std::vector<std::int32_t>& order, bool sort_rows = true);

// Per-node values moved with the nodes: to_new(v)[i] = v[order[i]] (empty stays empty, as "uniform"),
// to_old(v)[order[i]] = v[i].
template <class T>
std::vector<T> to_new(const std::vector<T>& v, const std::vector<std::int32_t>& order) {
  if (v.empty()) return v;
  std::vector<T> out = host_vector<T>(v.size(), "the renumbered node values");
  parallel_blocks(out.size(), worker_count(out.size()), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) out[i] = v[static_cast<std::size_t>(order[i])];
  });
  return out;
}
template <class T>
std::vector<T> to_old(const std::vector<T>& v, const std::vector<std::int32_t>& order) {
  std::vector<T> out = host_vector<T>(v.size(), "the node values in the input's order");
  parallel_blocks(v.size(), worker_count(v.size()), [&](std::size_t begin, std::size_t end, int) {
    for (std::size_t i = begin; i < end; ++i) out[static_cast<std::size_t>(order[i])] = v[i];
  });
  return out;
}

// Balanced CSR (seed 004, section 5.2; README.md draws it). Markers are the seed's negative values.
constexpr std::int32_t kBsrNewRow = -1;      // alpha: a row of A starts, whole, in this BSR row
constexpr std::int32_t kBsrPartialRow = -2;  // beta: a piece of a row of A split over BSR rows
constexpr std::int32_t kBsrFiller = -3;      // epsilon: the unused end of a BSR row
struct BsrLayout {
  int width = 0;
  std::int64_t n_rows = 0;
  std::vector<std::int32_t> slots;  // n_rows x width, column-major: slot c of BSR row r at c * n_rows + r
  std::vector<double> values;       // a weighted graph's: a link's weight at its slot, 0 elsewhere; else empty
  std::int64_t split_rows = 0;      // rows of A stored as beta pieces
  std::int64_t filler_slots = 0;
  std::int32_t at(std::int64_t row, int column) const { return slots[static_cast<std::size_t>(column * n_rows + row)]; }
};
// Throws ParamError("kernel.bsr_width") for a width below 4.
BsrLayout build_bsr(const InLinks& L, int width);

}  // namespace itercl::pagerank
