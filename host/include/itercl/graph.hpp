// Directed graphs for PageRank: loaders for SNAP and plain edge lists and Matrix Market files,
// generators with a seed (R-MAT, Barabasi-Albert), and the in-link CSR every PageRank format is
// built from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace itercl {

// Nodes are 0 .. n_nodes - 1 inside itercl; `labels` maps them back to the ids of the input.
struct Graph {
  std::int32_t n_nodes = 0;
  std::vector<std::int32_t> src, dst;  // edge e links src[e] -> dst[e]; duplicates and self-loops as loaded
  // Edge e's weight (a third column, a weighted .mtx), finite and >= 0; empty: every edge weighs 1.
  std::vector<double> weights;
  // The input's id of each node, ascending; empty when the ids are the indices (generators).
  std::vector<std::int64_t> labels;

  std::int64_t n_edges() const { return static_cast<std::int64_t>(src.size()); }
  std::int64_t label(std::int32_t node) const { return labels.empty() ? node : labels[static_cast<std::size_t>(node)]; }
  // The node with input id `label`, if there is one.
  std::optional<std::int32_t> index_of(std::int64_t label) const;
};

struct GraphLoadOptions {
  // "auto" (Matrix Market by its "%%MatrixMarket" banner, else an edge list), "edgelist" or "mtx".
  std::string format = "auto";
  // Edge lists: whether the first content line is a header rather than an edge. Unset: a first line of
  // one number (p2p-Gnutella08's "6350") or of words (hollins' "start end") is a header; two integers
  // are an edge, as networkx's read_edgelist reads them, even when they could be node and edge counts
  // (web-NotreDame's "325729 1497134": give true for such a file).
  std::optional<bool> header;
  // Whether a third column (an edge list) or a .mtx's values are the edges' weights, as networkx's
  // read_weighted_edgelist reads them; false reads the links alone (a timestamp column, say).
  bool weighted = true;
};

// What a loader found, for the results file.
struct GraphLoadReport {
  std::string format;  // "edgelist" or "mtx"
  std::string header;  // the skipped first line, or empty
  // The first edge, when it and the rest look like node and edge counts ("N M", then exactly M edges
  // among ids below N) but no header was asked for: it was read as an edge; empty otherwise.
  std::string first_edge_like_counts;
  bool weighted = false;  // Graph::weights were read (a third column, a real or integer .mtx)
};

// An edge list (SNAP: '#' comments, tab or space separated; or with a count or header first line;
// '%' comments too; extra columns ignored) or a Matrix Market coordinate file (pattern, real or
// integer; general or symmetric; entry (i, j) is the edge i -> j). gzip, and a tar archive holding
// one file, are read by content. Edge-list nodes are the ids that occur in an edge; a Matrix Market
// file has nodes 1..n. Throws InputError naming the file and line.
Graph load_graph(const std::filesystem::path& path, const GraphLoadOptions& options = {},
                 GraphLoadReport* report = nullptr);

// R-MAT (Chakrabarti, Zhan, Faloutsos 2004): 2^scale nodes and edge_factor * 2^scale edges, each
// placed by descending `scale` times into the quadrant a (top left), b (top right), c or d of the
// adjacency matrix. The same seed gives the same graph on every platform and any number of threads.
struct RmatParams {
  int scale = 10;
  int edge_factor = 16;
  double a = 0.57, b = 0.19, c = 0.19, d = 0.05;
  std::uint64_t random_state = 0;
};
Graph make_rmat(const RmatParams& p);
// Its edges [first_edge, last_edge) alone, each as make_rmat(p) draws it (a counter per edge), with the
// whole graph's n_nodes: a part drawn on each MPI rank. rmat_edge_count: edge_factor * 2^scale, after
// checking p (ParamError, as make_rmat).
Graph make_rmat(const RmatParams& p, std::int64_t first_edge, std::int64_t last_edge);
std::int64_t rmat_edge_count(const RmatParams& p);

// Barabasi-Albert preferential attachment as networkx's barabasi_albert_graph: a star on m + 1
// nodes, then each new node joins m distinct existing nodes drawn with probability proportional to
// their degree. Undirected, so every edge is stored both ways (as networkx's pagerank reads an
// undirected graph).
struct BarabasiAlbertParams {
  std::int32_t n_nodes = 1000;
  int m = 3;
  std::uint64_t random_state = 0;
};
Graph make_barabasi_albert(const BarabasiAlbertParams& p);

// Which edges become links. Both kept by default, as SNAP and networkx count them: a self-loop
// u -> u is a link of u to itself, and a repeated edge is one more link (networkx's MultiDiGraph).
struct LinkOptions {
  bool self_loops = true;
  bool duplicates = true;
};

// The transpose of the adjacency matrix in CSR: row i lists the nodes linking to i (ascending, a
// repeated link repeated), so PageRank's sum over in-links is a row of it. `out_degree` counts each
// node's links, repeats included. Unweighted graphs have no values (the kernels then read none).
struct InLinks {
  std::int32_t n_nodes = 0;
  // n_nodes + 1, in 64 bits: a graph may hold 2^31 links or more (R-MAT 27, web graphs); node ids, and
  // so a row's length, stay 32-bit.
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> sources;  // offsets[n_nodes] in-links
  std::vector<std::int32_t> out_degree;
  // A weighted graph (networkx's semantics): each in-link's weight, beside `sources` (all > 0: a link of
  // weight 0 is no link), and each node's total out-weight (0: dangling). Both empty when unweighted, or
  // when every link that stays has the same weight, which gives the same ranks as no weights.
  std::vector<double> values;
  std::vector<double> out_weight;
  std::int64_t zero_weights = 0;  // links of weight 0 left out, after the options' drops
  std::int64_t self_loops = 0;    // among the graph's edges, whether kept or not
  std::int64_t duplicates = 0;    // edges repeating an earlier one (a self-loop repeated counts in both)
  std::int64_t dropped = 0;       // edges LinkOptions left out

  std::int32_t row_length(std::int32_t i) const {
    return static_cast<std::int32_t>(offsets[static_cast<std::size_t>(i) + 1] - offsets[static_cast<std::size_t>(i)]);
  }
  // From the offsets: a graph built on the device keeps its sources there, and this side holds none.
  std::int64_t n_links() const { return offsets.empty() ? static_cast<std::int64_t>(sources.size()) : offsets.back(); }
  bool weighted() const { return !out_weight.empty(); }
};
// Edges in the caller's memory, read in place (a NumPy array, spans of a program's own): edge e links
// src[e] -> dst[e], nodes 0 .. n_nodes - 1, with weight weights[e] (empty: unweighted).
struct EdgesView {
  std::int32_t n_nodes = 0;
  std::span<const std::int32_t> src, dst;
  std::span<const double> weights;
};

// In O(edges + nodes): a stable radix sort. Weights follow networkx: parallel links add up (each is kept,
// as a MultiDiGraph's); with duplicates: false the last weight read stays (a DiGraph's add_edge); a link
// whose weight is then 0 is left out, its ends staying nodes. Throws InputError if
// a node has 2^31 or more in-links, an edge names a node outside 0 .. n_nodes - 1, or a weight is negative
// or not finite. Links are counted in 64 bits: the device's memory, not an index, bounds a graph.
InLinks in_links(const EdgesView& edges, const LinkOptions& options = {});
InLinks in_links(const Graph& g, const LinkOptions& options = {});

}  // namespace itercl
