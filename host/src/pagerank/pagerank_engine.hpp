// The PageRank power iteration on a device (internal): the graph's format, out-degrees and every vector
// resident, a start that can be set again (another personalization, another nstart) without uploading
// the graph, and one step at a time. PageRank::fit and PageRankGraph drive it.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_halo.hpp"
#include "pagerank/pagerank_kernel.hpp"

namespace itercl::pagerank {

// The rows an engine updates: every node in one process, a rank's block over MPI ranks (its graph then
// holds only those rows' in-links: row_block in pagerank_split.hpp).
struct Rows {
  std::int32_t first = 0, last = -1;  // last < 0: up to the graph's n
  // Where row first's z lies in the engine's z: over ranks z is [halo below | rows | halo above]
  // (pagerank_halo.hpp), row i's entry at i - first + z_first; in one process z is in node order (0).
  std::int32_t z_first = 0;
  // Over ranks, the in-links of the rows that read the halo (split_by_reach): their sums wait for the
  // halo (step's `meanwhile`), the problem's links then hold the other rows'. Null: the problem holds
  // every row.
  const InLinks* halo_rows = nullptr;
};

class Engine {
 public:
  virtual ~Engine() = default;
  // x = nstart (or 1/n), p = personalization (or uniform); both as given, normalised here. Adds the
  // vectors' transfer to `upload`.
  virtual void start(const std::vector<double>& personalization, const std::vector<double>& nstart,
                     Timings& upload) = 0;
  // One iteration: x_new from x, and ||x_new - x||_1 read back with the step's times. With Rows::halo_rows,
  // `meanwhile` runs once the sums of the rows that read no halo are on their way on the device (the
  // halo's exchange finishes there, and write_halo), and the halo rows' sums after it; its transfers add
  // to the step's.
  using Meanwhile = std::function<void(Timings&)>;
  virtual PageRankIteration step(const Meanwhile& meanwhile = {}) = 0;
  // The current x, in double; adds the read to `timings`. With `order` (the degree order), node i's value
  // lands at order[i], in the same pass as the widening.
  virtual std::vector<double> ranks(Timings& timings, std::span<const std::int32_t> order = {}) const = 0;
  // Over ranks, the halo exchange's device side (pagerank_halo.hpp). set_halo keeps the z positions the
  // other ranks read and allocates, once, the device buffer they are packed into and the page-locked host
  // copies of what is sent and what is received (nothing is allocated per iteration). After start() or
  // step(), pack gathers those entries on the device and reads them to the host copy (`send`); the ranks
  // exchange them; write_halo writes what came (`received`, in Halo::needed's order) into z's halo. The
  // update reads x at its own rows only, which the engine holds, so x moves only at the end
  // (rows_of_ranks). The transfers add to `timings`.
  struct HaloBuffers {
    char* send;
    char* received;
    std::size_t value_bytes;
  };
  virtual HaloBuffers set_halo(const Halo& halo) = 0;
  virtual void pack(Timings& timings) = 0;
  virtual void write_halo(Timings& timings) = 0;
  // After step(): this engine's rows' dangling mass; set_dangling_mass gives the next step the mass summed
  // over the ranks.
  virtual double rows_dangling_mass() const = 0;
  virtual void set_dangling_mass(double dangling_mass, Timings& timings) = 0;
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
