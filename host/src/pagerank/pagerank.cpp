// PageRank::fit and PageRankGraph: power iteration with the matrix resident on the device (the loop's
// device work is pagerank_engine.cpp), networkx's stopping rule, progress after every iteration.
#include "itercl/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <new>

#include "core/comm.hpp"
#include "core/number_text.hpp"
#include "core/phase_clock.hpp"
#include "itercl/error.hpp"
#include "pagerank/device_graph.hpp"
#include "pagerank/pagerank_engine.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pagerank/pagerank_parts.hpp"

namespace itercl {
namespace pagerank {

// OpenCL and host-memory failures as itercl errors naming the graph; the rest (ParamError, InputError,
// a progress callback's Cancelled) pass through unchanged.
template <class F>
decltype(auto) translating_errors(std::int32_t n_nodes, std::int64_t n_links, F&& f) {
  try {
    return f();
  } catch (const cl::Error&) {
    rethrow_as_itercl_error();
  } catch (const std::bad_alloc&) {  // the large arrays name themselves (host_array); this is the rest
    throw RuntimeError("pagerank: out of host memory for " + std::to_string(n_nodes) + " nodes and " +
                       std::to_string(n_links) + " links");
  }
}

}  // namespace pagerank

void PageRankParams::validate() const {
  if (!(alpha >= 0 && alpha <= 1)) throw ParamError("alpha", "expected a number in [0, 1], got " + number_text(alpha));
  if (max_iter < 1) throw ParamError("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  if (!(tol >= 0) || !std::isfinite(tol)) throw ParamError("tol", "expected a number >= 0, got " + number_text(tol));
  kernel.validate();
}

void PageRankParams::validate(std::int32_t n_nodes) const {
  validate();
  pagerank::check_weights("personalization", personalization, n_nodes);
  pagerank::check_weights("dangling", dangling, n_nodes);
  pagerank::check_weights("nstart", nstart, n_nodes);
}

PageRank::PageRank(const Device& device, PageRankParams params) : device_(device), params_(std::move(params)) {
  params_.validate();
  device_.require(params_.precision);
}

namespace {

// A fit on one device: the graph built from `input` (in-links, or edges and their options), run, and
// released, each a phase of the call.
template <class... Input>
PageRankResult fit_one_device(const Device& device, const PageRankParams& p, std::int32_t n_nodes,
                              const Input&... input) {
  core::PhaseClock clock("checks");
  p.validate(n_nodes);
  PageRankResult r;
  {
    PageRankGraph graph(device, input..., p);
    r = graph.run(p.personalization, p.nstart);
    core::enter_phase("release");  // the graph's device and host memory, freed before the call returns
  }
  r.phases = clock.phases();
  return r;
}

}  // namespace

PageRankResult PageRank::fit(const InLinks& links) const {
  return fit_one_device(device_, params_, links.n_nodes, links);
}

PageRankResult PageRank::fit(const EdgesView& edges, const LinkOptions& options) const {
  return fit_one_device(device_, params_, edges.n_nodes, edges, options);
}

PageRankResult PageRank::fit(const Ranks& ranks, const EdgesView& part) const {
  core::PhaseClock clock("checks");
  core::Comm& comm = ranks.comm();
  // Every rank must mean the same graph: a rank that does not would wait in another collective.
  const std::vector<std::int32_t> counts = comm.allgatherv<std::int32_t>(std::span(&part.n_nodes, 1));
  for (std::size_t r = 0; r < counts.size(); ++r)
    if (counts[r] != part.n_nodes)
      throw ParamError("n_nodes", std::to_string(part.n_nodes) + " on rank " + std::to_string(comm.rank()) + ", " +
                                      std::to_string(counts[r]) + " on rank " + std::to_string(r) +
                                      ": every rank passes the whole graph's node count");
  params_.validate(part.n_nodes);
  if (part.src.size() != part.dst.size())
    throw ParamError(
        "dst", std::to_string(part.dst.size()) + " destinations for " + std::to_string(part.src.size()) + " sources");
  const Graph edges{.n_nodes = part.n_nodes,
                    .src = std::vector<std::int32_t>(part.src.begin(), part.src.end()),
                    .dst = std::vector<std::int32_t>(part.dst.begin(), part.dst.end()),
                    // passed on so that a weighted part is refused (fit_over_ranks), not read unweighted
                    .weights = std::vector<double>(part.weights.begin(), part.weights.end()),
                    .labels = {}};
  pagerank::LinkCounts link_counts;
  PageRankResult r = pagerank::fit_over_ranks(comm, device_, params_, edges, {}, link_counts);
  // The ranks come to rank 0; every rank gets them, as it gets the iterations.
  r.ranks.resize(static_cast<std::size_t>(part.n_nodes));
  comm.broadcast_bytes(r.ranks.data(), r.ranks.size() * sizeof(double));
  r.phases = clock.phases();
  return r;
}

namespace {

PageRankGraphCounts counts_of(const InLinks& links) {
  return {.links = links.n_links(),
          .self_loops = links.self_loops,
          .duplicates = links.duplicates,
          .dropped = links.dropped,
          .dangling_nodes = std::count(links.out_degree.begin(), links.out_degree.end(), 0),
          .zero_weights = links.zero_weights,
          .weighted = links.weighted()};
}

}  // namespace

PageRankGraph::PageRankGraph(const Device& device, const InLinks& links, PageRankParams params)
    : device_(device),
      params_(std::move(params)),
      n_nodes_(links.n_nodes),
      n_links_(links.n_links()),
      kernel_(params_.kernel) {
  params_.validate();
  pagerank::check_weights("dangling", params_.dangling, n_nodes_);
  device_.require(params_.precision);
  pagerank::check_node_count(n_nodes_);
  build(links);
}

PageRankGraph::PageRankGraph(const Device& device, const EdgesView& edges, const LinkOptions& options,
                             PageRankParams params)
    : device_(device), params_(std::move(params)), n_nodes_(edges.n_nodes), kernel_(params_.kernel) {
  params_.validate();
  pagerank::check_weights("dangling", params_.dangling, n_nodes_);
  device_.require(params_.precision);
  pagerank::check_node_count(n_nodes_);
  // Where to build: the format and graph_build resolve without the graph (the lanes of csr_vector and
  // hybrid's k, which read the rows, are resolved again in build()).
  std::vector<std::string> unused;
  const PageRankKernel where = pagerank::resolve(kernel_, device_.info(), std::span<const std::int64_t>{}, unused);
  // A weighted graph, and one whose links need 64-bit offsets, are built on the host: the device's build
  // sorts the links without their weights, and writes 32-bit offsets.
  if (where.graph_build != "device" || n_nodes_ == 0 || !edges.weights.empty() ||
      pagerank::needs_wide_offsets(static_cast<std::int64_t>(edges.src.size()))) {
    core::enter_phase("graph_build");
    build(in_links(edges, options));
    return;
  }
  pagerank::translating_errors(n_nodes_, static_cast<std::int64_t>(edges.src.size()), [&] {
    pagerank::DeviceGraph g = pagerank::build_on_device(device_, edges, options, where.reorder == "degree", upload_);
    n_links_ = g.links.n_links();
    counts_ = counts_of(g.links);
    order_ = std::move(g.order);
    kernel_ = pagerank::resolve(params_.kernel, device_.info(), g.links.offsets, tuning_sources_);
    const pagerank::Problem problem{g.links, params_.precision, &g.csr};
    build_options_ = pagerank::defines(kernel_, problem);
    PageRankParams p = params_;
    if (!order_.empty()) p.dangling = pagerank::to_new(params_.dangling, order_);
    core::enter_phase("format");
    engine_ = pagerank::make_engine(device_, p, problem, kernel_, build_options_, upload_);
    format_ = engine_->format_stats();
  });
}

void PageRankGraph::build(const InLinks& links) {
  n_links_ = links.n_links();
  counts_ = counts_of(links);
  if (n_nodes_ == 0) return;  // networkx returns {} for an empty graph: nothing to build
  const pagerank::Problem problem{links, params_.precision};
  pagerank::translating_errors(n_nodes_, n_links_, [&] {
    kernel_ = pagerank::resolve(params_.kernel, device_.info(), problem, tuning_sources_);
    build_options_ = pagerank::defines(kernel_, problem);
    if (kernel_.reorder != "degree") {
      core::enter_phase("format");
      engine_ = pagerank::make_engine(device_, params_, problem, kernel_, build_options_, upload_);
      format_ = engine_->format_stats();
      return;
    }
    // The engine holds the graph renumbered by out-degree; every per-node vector crosses to_new on its
    // way in and to_old on its way out, so callers only ever see the input's ids.
    core::enter_phase("reorder");
    const Stopwatch clock;
    order_ = pagerank::degree_order(links);
    const InLinks renamed = pagerank::renumbered(links, order_);
    PageRankParams p = params_;
    p.dangling = pagerank::to_new(params_.dangling, order_);
    const double reorder_s = clock.seconds();
    core::enter_phase("format");
    engine_ = pagerank::make_engine(device_, p, pagerank::Problem{renamed, params_.precision}, kernel_, build_options_,
                                    upload_);
    format_ = engine_->format_stats();
    format_.reorder_s = reorder_s;
  });
}

PageRankGraph::~PageRankGraph() = default;
PageRankGraph::PageRankGraph(PageRankGraph&&) noexcept = default;
PageRankGraph& PageRankGraph::operator=(PageRankGraph&&) noexcept = default;

std::vector<double> PageRankGraph::node_values(const std::vector<double>& v) const {
  return order_.empty() ? v : pagerank::to_new(v, order_);
}

std::vector<double> PageRankGraph::read_ranks(Timings& timings) const { return engine_->ranks(timings, order_); }

void PageRankGraph::start(const std::vector<double>& personalization, const std::vector<double>& nstart) {
  pagerank::check_weights("personalization", personalization, n_nodes_);
  pagerank::check_weights("nstart", nstart, n_nodes_);
  if (!engine_) return;
  Timings upload;
  engine_->start(node_values(personalization), node_values(nstart), upload);
}

PageRankIteration PageRankGraph::step() {
  if (!engine_) return {};
  return engine_->step();
}

std::vector<double> PageRankGraph::ranks() const {
  if (!engine_) return {};
  Timings read;
  return read_ranks(read);
}

PageRankResult PageRankGraph::run(const std::vector<double>& personalization, const std::vector<double>& nstart) {
  const PageRankParams& p = params_;
  pagerank::check_weights("personalization", personalization, n_nodes_);
  pagerank::check_weights("nstart", nstart, n_nodes_);
  PageRankResult r;
  r.kernel = kernel_;
  r.tuning_sources = tuning_sources_;
  r.build_options = build_options_;
  r.format = format_;
  r.graph = counts_;
  r.upload = upload_;
  if (!engine_) {
    r.converged = true;
    return r;
  }
  core::PhaseClock clock("init");
  const Stopwatch fit_clock;
  return pagerank::translating_errors(n_nodes_, n_links_, [&] {
    engine_->start(node_values(personalization), node_values(nstart), r.upload);
    core::enter_phase("iterations");
    for (int it = 0; it < p.max_iter; ++it)
      if (pagerank::record_step(r, engine_->step(), p, n_nodes_, fit_clock)) break;
    core::enter_phase("readback");
    r.ranks = read_ranks(r.total);
    r.phases = clock.phases();
    return std::move(r);
  });
}

}  // namespace itercl
