// PageRank by power iteration over the link graph stored in one of five sparse formats (seed 004,
// section 5): CSR (a row per work-item, or per group of work-items), ELLPACK, the seed's hybrid of
// ELLPACK bins on the device and dense rows on the CPU, and its Balanced CSR ("BSR"). Parameters,
// iteration and stopping rule follow networkx's pagerank.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/graph.hpp"
#include "itercl/matrix.hpp"
#include "itercl/mpi.hpp"
#include "itercl/progress.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// The storage format and its tuning. Unset fields ("auto", 0: itercl/kernel_choice.hpp) take the tuned
// value for this device (tuning/pagerank.json, itercl/tuning.hpp) or one derived from it and the graph;
// PageRankResult::kernel reports the values used.
struct PageRankKernel {
  // "csr_scalar", "csr_vector", "csr_adaptive", "ell", "hybrid", "bsr" (docs/pagerank.md), or "auto":
  // the format measured fastest for the device.
  std::string format = "auto";
  // "none", "degree" (nodes renumbered by out-degree before the upload, ranks mapped back), or "auto":
  // what the tuning database chose for the device.
  std::string reorder = "auto";
  // Where the in-links are built from edge arrays (PageRank::fit(EdgesView), PageRankGraph from edges):
  // "host" (all cores), "device" (sorts on the device; the CSR formats only), or "auto": the tuning
  // database's choice for the device (docs/pagerank.md, "Time to solution").
  std::string graph_build = "auto";
  int work_group_size = 0;
  int vector_size = 0;  // csr_vector: work-items per row, a power of two up to the work-group size
  int bsr_width = 0;    // bsr: slots per BSR row (W >= 4), markers and row ids included
  int hybrid_k = 0;     // hybrid: rows with k or more in-links go to the CPU; 0 = auto, by hybrid_rho
  // hybrid, k auto: links the device sums for each one the CPU sums; the CPU's rows hold at most
  // 1 / (1 + rho) of the links. A resolved kernel keeps the rho that picked its k, so it can be run again.
  double hybrid_rho = 0;
  // ell: refuse when padding every row to the longest stores more than this many slots per link.
  double ell_max_fill = 0;

  void validate() const;  // the checks that need no device; throws ParamError("kernel.<field>", ...)
};
// The formats PageRankKernel::format names (besides "auto"), in the order docs/pagerank.md gives them: the
// one list the checks, the CLI's and Python's choices read.
const std::vector<std::string>& pagerank_formats();

void to_json(nlohmann::json& j, const PageRankKernel& k);
void from_json(const nlohmann::json& j, PageRankKernel& k);  // unknown fields are ParamErrors
std::ostream& operator<<(std::ostream& out, const PageRankKernel& k);

struct PageRankParams {
  double alpha = 0.85;  // damping: the probability of following a link rather than jumping
  int max_iter = 100;
  // Stop when the L1 change of the ranks falls below n_nodes * tol (networkx's rule). 0 runs max_iter.
  double tol = 1e-6;
  // Where a jump lands, one non-negative weight per node (normalised here); empty = uniform.
  std::vector<double> personalization;
  // Where the rank of nodes without out-links goes, as personalization; empty = the personalization.
  std::vector<double> dangling;
  // The starting ranks, one non-negative weight per node (normalised here, as networkx's nstart);
  // empty = uniform.
  std::vector<double> nstart;
  Precision precision = Precision::f32;  // of the device's vectors and sums; the host works in double
  PageRankKernel kernel;
  ProgressCallback progress{};  // told after every iteration (objective: the L1 change of the ranks)

  void validate() const;  // throws ParamError naming the field
  // validate(), plus the vectors' lengths against the graph.
  void validate(std::int32_t n_nodes) const;
};

// What a format costs, for the seed's Figure 10 and 11 comparisons.
struct PageRankFormatStats {
  double preprocess_s = 0;         // building the format from the in-link CSR, on the host
  double reorder_s = 0;            // renumbering the nodes (reorder "degree"), on the host
  std::uint64_t matrix_bytes = 0;  // the format's arrays on the device (and the CPU's rows, for hybrid)
  std::uint64_t csr_bytes = 0;     // the same graph as CSR without values: offsets and in-link ids
  // Format details: ell and hybrid bins' widths; bsr rows and split rows; hybrid's CPU share.
  int ell_width = 0;
  std::int64_t bsr_rows = 0, bsr_split_rows = 0, bsr_filler_slots = 0;
  struct Bin {
    int min_length, max_length, width;
    std::int64_t rows;
  };
  std::vector<Bin> hybrid_bins;
  std::int64_t cpu_rows = 0, cpu_links = 0;
};

struct PageRankIteration {
  double residual;       // ||x_new - x||_1
  double spmv_kernel_s;  // the format's kernels alone (the sum over in-links)
  Timings timings;       // all kernels, transfers, the CPU rows (hybrid), wall
};

// The graph a fit ran on, as InLinks counts it (links kept, self-loops and repeats among the edges, edges
// LinkOptions dropped), and its nodes without out-links.
struct PageRankGraphCounts {
  std::int64_t links = 0, self_loops = 0, duplicates = 0, dropped = 0, dangling_nodes = 0;
  std::int64_t zero_weights = 0;  // links of weight 0 left out
  bool weighted = false;          // the links carry weights that differ (InLinks::weighted)
};

struct PageRankResult {
  std::vector<double> ranks;  // by node index (Graph::label maps to the input's ids); they sum to 1
  int n_iter = 0;
  bool converged = false;  // the change fell below n_nodes * tol within max_iter (false is not an error)
  std::vector<PageRankIteration> iterations;
  PageRankKernel kernel;                    // the format and tuning used, all values resolved
  std::vector<std::string> tuning_sources;  // the tuning database entries used
  std::string build_options;
  PageRankFormatStats format;
  PageRankGraphCounts graph;
  Timings upload;  // the format (or the edge arrays it was built from), out-degrees and vectors, once
  Timings total;   // the iterations and the final read of the ranks
  // The whole call's wall time by phase: PageRank::fit's from the in-links to the ranks in host memory,
  // PageRankGraph::run's from its start (the graph already resident).
  Phases phases;
  // Over several MPI ranks, one entry per rank (on rank 0; empty in one process): the bytes of z each rank
  // sends per iteration (the halo exchange: its rows' entries that other ranks' in-links reference, once
  // per such rank, PETSc's VecScatter), the bytes the allgather it replaced sent (its rows, to every other
  // rank), and the remote entries its own in-links reference (what it receives per iteration).
  struct Exchange {
    std::vector<std::int64_t> sent_bytes, allgather_bytes, remote_entries;
  } exchange;
};

class PageRank {
 public:
  PageRank(const Device& device, PageRankParams params);

  // Ranks of the graph's nodes. Throws InputError (ParamError for parameters) for invalid input;
  // not converging within max_iter is reported in the result, never thrown.
  PageRankResult fit(const InLinks& links) const;
  // The same from edge arrays: the in-links (in_links(edges, options)) built where kernel.graph_build
  // says, inside the call and its phases. The result's `graph` holds the graph's counts.
  PageRankResult fit(const EdgesView& edges, const LinkOptions& options = {}) const;
  // Over the ranks of `ranks` (itercl/mpi.hpp): every rank calls it with its own part of the graph's edges
  // (every edge on exactly one rank; n_nodes the whole graph's, the same on every rank) and the same
  // parameters (rank 0's personalization, dangling and nstart are used), each on its own device. The edges
  // go to the rank owning their destination, and no rank holds all the links (as `itercl run` draws an
  // R-MAT graph in parts); the result equals `itercl run`'s over as many ranks. Every rank gets all the
  // ranks and the iterations.
  PageRankResult fit(const Ranks& ranks, const EdgesView& part) const;

  const PageRankParams& params() const { return params_; }

 private:
  Device device_;
  PageRankParams params_;
};

namespace pagerank {
class Engine;
}

// A graph resident on the device, run many times: personalized PageRank for many personalization
// vectors, restarts from other starts, or one step at a time in a loop of the caller's. The format,
// out-degrees and vectors are built and uploaded once; each run writes only its two vectors (n values).
class PageRankGraph {
 public:
  // Resolves the kernel for `links`, builds the format and uploads it. `params` give everything but
  // the start: alpha, max_iter, tol, dangling, precision, kernel, progress; their personalization and
  // nstart are ignored (run() and start() take them). Throws as PageRank::fit.
  PageRankGraph(const Device& device, const InLinks& links, PageRankParams params);
  // From edge arrays, as PageRank::fit(edges, options).
  PageRankGraph(const Device& device, const EdgesView& edges, const LinkOptions& options, PageRankParams params);
  ~PageRankGraph();
  PageRankGraph(PageRankGraph&&) noexcept;
  PageRankGraph& operator=(PageRankGraph&&) noexcept;

  // A full run, as PageRank::fit with these personalization and nstart (empty: uniform). The result's
  // upload holds the graph's upload and this run's vectors.
  PageRankResult run(const std::vector<double>& personalization = {}, const std::vector<double>& nstart = {});

  // One step at a time: start() sets x = nstart and the personalization (empty: uniform; normalised
  // as networkx does), each step() computes the next x and returns what it did (residual: the L1
  // change), ranks() reads the current x. PageRank's stopping rule is the caller's to apply.
  void start(const std::vector<double>& personalization = {}, const std::vector<double>& nstart = {});
  PageRankIteration step();
  std::vector<double> ranks() const;

  // Replaces params' progress callback for the runs that follow.
  void set_progress(ProgressCallback progress) { params_.progress = std::move(progress); }

  std::int32_t n_nodes() const { return n_nodes_; }
  const PageRankParams& params() const { return params_; }
  const PageRankKernel& kernel() const { return kernel_; }  // all values resolved
  const std::vector<std::string>& tuning_sources() const { return tuning_sources_; }
  const std::string& build_options() const { return build_options_; }
  const PageRankFormatStats& format() const { return format_; }
  Timings upload_timings() const { return upload_; }  // the format, out-degrees and dangling vector, once
  const PageRankGraphCounts& graph_counts() const { return counts_; }

 private:
  Device device_;
  PageRankParams params_;
  std::int32_t n_nodes_ = 0;
  std::int64_t n_links_ = 0;
  PageRankKernel kernel_;
  std::vector<std::string> tuning_sources_;
  std::string build_options_;
  Timings upload_;
  PageRankFormatStats format_;
  PageRankGraphCounts counts_;
  std::vector<std::int32_t> order_;           // kernel reorder "degree": the engine's node i is the input's order_[i]
  std::unique_ptr<pagerank::Engine> engine_;  // null for a graph without nodes

  void build(const InLinks& links);  // resolves the kernel, renumbers where asked, makes the engine
  std::vector<double> node_values(const std::vector<double>& v) const;  // input ids -> the engine's
  std::vector<double> read_ranks(Timings& timings) const;               // in the input's ids
};

}  // namespace itercl
