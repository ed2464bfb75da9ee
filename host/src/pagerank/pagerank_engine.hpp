// The PageRank power iteration on a device (internal): the graph's format, out-degrees and every vector
// resident, a start that can be set again (another personalization, another nstart) without uploading
// the graph, and one step at a time. PageRank::fit and PageRankGraph drive it.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_kernel.hpp"

namespace itercl::pagerank {

// The rows an engine updates: every node in one process, a rank's block over MPI ranks (its graph then
// holds only those rows' in-links: row_block in pagerank_split.hpp).
struct Rows {
  std::int32_t first = 0, last = -1;  // last < 0: up to the graph's n
};

class Engine {
 public:
  virtual ~Engine() = default;
  // x = nstart (or 1/n), p = personalization (or uniform); both as given, normalised here. Adds the
  // vectors' transfer to `upload`.
  virtual void start(const std::vector<double>& personalization, const std::vector<double>& nstart,
                     Timings& upload) = 0;
  // One iteration: x_new from x, and ||x_new - x||_1 read back with the step's times.
  virtual PageRankIteration step() = 0;
  // The current x, in double; adds the read to `timings`. With `order` (the degree order), node i's value
  // lands at order[i], in the same pass as the widening.
  virtual std::vector<double> ranks(Timings& timings, std::span<const std::int32_t> order = {}) const = 0;
  // Over ranks, the iterate moves through one page-locked host copy of z (z = x / outdeg, 0 for dangling
  // nodes; n values of the engine's precision, `value_bytes` each): after step(), read_rows reads this
  // engine's rows of z to their place in it and returns those rows' dangling mass; the ranks then fill in
  // every other row (core::Comm::allgather_in_place), and set_z uploads it whole as the next step's input
  // with the dangling mass summed over the ranks. The update reads x at its own rows only, which the
  // engine holds, so x moves only at the end (rows_of_ranks). Nothing is allocated or converted per
  // iteration: at R-MAT 25 z is 134 MB. The transfers add to `timings`.
  struct HostZ {
    void* values;
    std::size_t value_bytes;
  };
  virtual HostZ host_z() = 0;
  virtual double read_rows(Timings& timings) = 0;
  virtual void set_z(double dangling_mass, Timings& timings) = 0;
  // This engine's rows of the current x, in double.
  virtual std::vector<double> rows_of_ranks(Timings& timings) const = 0;
  const PageRankFormatStats& format_stats() const { return stats_; }

 protected:
  PageRankFormatStats stats_;
};

// Builds and uploads the resolved kernel's format, the out-degrees and params' dangling vector for
// `problem`, built with `options`, to update `rows`; adds the uploads' times to `upload`.
std::unique_ptr<Engine> make_engine(const Device& device, const PageRankParams& params, const Problem& problem,
                                    const PageRankKernel& kernel, const std::string& options, Timings& upload,
                                    Rows rows = {});

// Adds a step to `r` (iterations, total, n_iter), tells p.progress, and applies networkx's stopping rule:
// true, with r.converged set, when the L1 change fell below n tol. Throws RuntimeError for a change that
// is not finite. `clock`: since the run started.
bool record_step(PageRankResult& r, const PageRankIteration& step, const PageRankParams& p, std::int32_t n,
                 const Stopwatch& clock);

// Refuses 2^31 - 1 nodes (InputError): the kernels need one index more, for ELLPACK's padding and z[n].
void check_node_count(std::int32_t n);

// A weight vector as networkx takes it: one finite non-negative value per node, not all zero.
void check_weights(const char* field, const std::vector<double>& w, std::int32_t n);

}  // namespace itercl::pagerank
