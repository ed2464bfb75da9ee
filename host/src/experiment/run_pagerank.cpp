// `"algorithm": "pagerank"` in a config: reads the graph and params, ranks, reports.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "core/comm.hpp"
#include "experiment/algorithms.hpp"
#include "experiment/run_support.hpp"
#include "io/graph_source.hpp"
#include "itercl/io.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_description.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pagerank/pagerank_parts.hpp"
#include "pagerank/pagerank_ranks.hpp"

namespace itercl {
namespace pagerank {

// Ranks of graphs up to this size go inline into the results JSON; larger ones to a file.
constexpr std::int32_t kInlineRanks = 10000;
constexpr std::size_t kTop = 10;

// `has_data`: g is the graph (over several ranks rank 0 alone reads it, with the per-node vectors, which
// it sends to the others: they read the other parameters only).
PageRankParams read_params(ExperimentContext& c, const Graph& g, bool has_data = true) {
  ConfigObject& P = c.params;
  PageRankParams p;
  p.precision = c.precision;
  p.progress = c.progress;
  p.alpha = P.number("alpha").value_or(p.alpha);
  const long long max_iter = P.integer("max_iter").value_or(p.max_iter);
  if (max_iter < 1 || max_iter > std::numeric_limits<int>::max())
    P.fail("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  p.max_iter = static_cast<int>(max_iter);
  p.tol = P.number("tol").value_or(p.tol);
  for (auto [field, values] : {std::pair{"personalization", &p.personalization}, std::pair{"dangling", &p.dangling},
                               std::pair{"nstart", &p.nstart}})
    if (P.get(field) && has_data) *values = read_node_values(P, field, c.base, g);
  p.kernel.format = P.string("format", p.kernel.format);
  with_field_prefix(P.source(), "params", [&] { check_format("format", p.kernel.format); });
  if (const nlohmann::json* kernel = P.get("kernel")) {
    if (kernel->is_object() && kernel->contains("format"))
      P.fail("kernel", "give the format as params.format, not inside kernel");
    with_field_prefix(P.source(), "params", [&] { from_json(*kernel, p.kernel); });
  }
  P.finish();
  with_field_prefix(P.source(), "params", [&] { has_data ? p.validate(g.n_nodes) : p.validate(); });
  return p;
}

std::string number(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;  // shortest text that reads back exactly
  return std::string(buffer, end);
}

// "node,rank" lines in the input's ids.
void write_ranks(const std::filesystem::path& path, const Graph& g, const std::vector<double>& ranks) {
  std::string text = "node,rank\n";
  text.reserve(ranks.size() * 32);
  for (std::size_t i = 0; i < ranks.size(); ++i)
    text += std::to_string(g.label(static_cast<std::int32_t>(i))) + "," + number(ranks[i]) + "\n";
  write_file_atomically(path, text);
}

nlohmann::json format_json(const PageRankFormatStats& f) {
  nlohmann::json j = {{"preprocess_ms", f.preprocess_s * 1e3},
                      {"reorder_ms", f.reorder_s * 1e3},
                      {"matrix_bytes", f.matrix_bytes},
                      {"csr_bytes", f.csr_bytes},
                      {"bytes_over_csr", f.csr_bytes ? static_cast<double>(f.matrix_bytes) / f.csr_bytes : 0.0}};
  if (f.ell_width) j["ell_width"] = f.ell_width;
  if (f.bsr_rows)
    j["bsr"] = {{"rows", f.bsr_rows}, {"split_rows", f.bsr_split_rows}, {"filler_slots", f.bsr_filler_slots}};
  if (!f.hybrid_bins.empty() || f.cpu_rows) {
    nlohmann::json bins = nlohmann::json::array();
    for (const auto& b : f.hybrid_bins)
      bins.push_back({{"lengths", {b.min_length, b.max_length}}, {"width", b.width}, {"rows", b.rows}});
    j["hybrid"] = {{"bins", bins}, {"cpu_rows", f.cpu_rows}, {"cpu_links", f.cpu_links}};
  }
  return j;
}

}  // namespace pagerank

AlgorithmReport run_pagerank(ExperimentContext& c) {
  AlgorithmReport report;
  // Over several ranks rank 0 reads the graph (any format or generator) and sends each rank its rows;
  // an R-MAT graph is drawn in parts instead, one on each rank, and its edges exchanged
  // (pagerank_parts.hpp): no rank holds all its links.
  core::Comm& comm = core::world();
  const bool root = comm.rank() == 0;
  const bool in_parts = comm.several() && drawn_in_parts(c.data);
  GraphInput in;
  if (root || in_parts)
    in = with_field_prefix(c.data.source(), "data", [&] {
      return read_graph(c.data, c.base, report.data, {.index = comm.rank(), .parts = in_parts ? comm.size() : 1});
    });
  const Graph& g = in.graph;
  const PageRankParams params = pagerank::read_params(c, g, root);
  // output.ranks: a CSV path, or false for none (benchmarks); absent: inline up to kInlineRanks nodes,
  // else a file beside the results.
  const nlohmann::json* ranks_field = c.output.get("ranks");
  const bool no_ranks = ranks_field && ranks_field->is_boolean() && !ranks_field->get<bool>();
  const auto ranks_path = no_ranks ? std::nullopt : c.output_path("ranks");
  c.output.finish();
  if (!no_ranks && !ranks_path && g.n_nodes > pagerank::kInlineRanks)
    c.claim_output(std::filesystem::path(c.results_path).replace_extension(".ranks.csv"),
                   c.output.source() + ": the ranks beside the results");

  const PageRank pagerank(c.device(), params);
  // Each repeat a whole call from the edge arrays in memory: the in-links (on rank 0, or drawn in parts in
  // the fit), then the fit. The counts are the graph's, the same every time.
  pagerank::LinkCounts counts;
  Repeats repeats;
  // The ranks start the call together: the time to solution leaves out the others' reading or drawing of
  // their data, which rank 0's first collective would otherwise wait for.
  if (comm.several()) comm.barrier();
  const PageRankResult r = repeats.run(c.repeat, "graph_build", [&] {
    if (!comm.several()) {  // one process: the whole call from the edge arrays, the graph built where tuned
      PageRankResult fit = with_field_prefix(c.params.source(), "params", [&] {
        return pagerank.fit(EdgesView{g.n_nodes, g.src, g.dst, g.weights}, in.links);
      });
      const PageRankGraphCounts& k = fit.graph;
      counts = {.links = k.links,
                .self_loops = k.self_loops,
                .duplicates = k.duplicates,
                .dropped = k.dropped,
                .zero_weights = k.zero_weights,
                .weighted = k.weighted,
                .dangling_nodes = k.dangling_nodes,
                .rows_s = fit.phases.of("graph_build")};
      return fit;
    }
    Stopwatch csr;
    const InLinks links = root && !in_parts
                              ? with_field_prefix(c.data.source(), "data", [&] { return in_links(g, in.links); })
                              : InLinks{};
    counts = {.links = links.n_links(),
              .self_loops = links.self_loops,
              .duplicates = links.duplicates,
              .dropped = links.dropped,
              .zero_weights = links.zero_weights,
              .weighted = links.weighted(),
              .dangling_nodes = std::count(links.out_degree.begin(), links.out_degree.end(), 0),
              .rows_s = csr.seconds()};
    // The fit names its phases as one process does, and the ranks' own: exchange_edges, halo_plan.
    return with_field_prefix(c.params.source(), "params", [&] {
      if (in_parts) return pagerank::fit_over_ranks(comm, c.device(), params, g, in.links, counts);
      return pagerank::fit_over_ranks(comm, c.device(), params, links);
    });
  });
  // Drawn in parts, the in-links are built in the fit: this rank's rows from the edges it received.
  report.data["in_links_ms"] = counts.rows_s * 1e3;
  report.data["n_links"] = counts.links;
  report.data["self_loops"] = counts.self_loops;
  report.data["duplicates"] = counts.duplicates;
  report.data["edges_dropped"] = counts.dropped;
  report.data["zero_weight_links"] = counts.zero_weights;
  report.data["weighted_links"] = counts.weighted;
  report.data["dangling_nodes"] = counts.dangling_nodes;
  if (in_parts) report.data["drawn_in_parts"] = comm.size();  // one part of the edges on each rank

  nlohmann::json& res = report.result;
  res["n_iter"] = r.n_iter;
  res["converged"] = r.converged;
  std::vector<double> trace, spmv_ms;
  std::vector<Timings> per_iteration, spmv_only;
  for (const auto& it : r.iterations) {
    trace.push_back(it.residual), spmv_ms.push_back(it.spmv_kernel_s * 1e3), per_iteration.push_back(it.timings);
    spmv_only.push_back({.kernel_s = it.spmv_kernel_s});
  }
  res["residual_trace"] = trace;
  if (!r.exchange.sent_bytes.empty())
    res["exchange"] = {{"bytes_sent_per_rank", r.exchange.sent_bytes},
                       {"allgather_bytes_per_rank", r.exchange.allgather_bytes},
                       {"remote_entries_per_rank", r.exchange.remote_entries}};
  res["tol_times_n"] = params.tol * g.n_nodes;
  std::vector<std::int32_t> order(r.ranks.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t top = std::min(pagerank::kTop, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(), [&](auto a, auto b) {
    return r.ranks[static_cast<std::size_t>(a)] > r.ranks[static_cast<std::size_t>(b)];
  });
  res["top"] = nlohmann::json::array();
  for (std::size_t k = 0; k < top; ++k)
    res["top"].push_back({{"node", g.label(order[k])}, {"rank", r.ranks[static_cast<std::size_t>(order[k])]}});
  const auto path = ranks_path
                        ? *ranks_path
                        : (g.n_nodes > pagerank::kInlineRanks
                               ? std::optional(std::filesystem::path(c.results_path).replace_extension(".ranks.csv"))
                               : std::nullopt);
  if (no_ranks) {
    res["ranks"] = false;
  } else if (path) {
    if (root) pagerank::write_ranks(*path, g, r.ranks);  // over several ranks, rank 0 writes every file
    res["ranks"] = path->string();
  } else {
    nlohmann::json inline_ranks = nlohmann::json::object();
    for (std::size_t i = 0; i < r.ranks.size(); ++i)
      inline_ranks[std::to_string(g.label(static_cast<std::int32_t>(i)))] = r.ranks[i];
    res["ranks"] = inline_ranks;
  }

  // An empty graph resolves no format and builds no kernel.
  const nlohmann::json files = r.kernel.format == "auto"
                                   ? nlohmann::json::array()
                                   : nlohmann::json{pagerank::kernel_file(r.kernel.format), "pagerank.cl"};
  report.kernel = {{"files", files},
                   {"tuning", r.kernel},
                   {"tuning_sources", r.tuning_sources},
                   {"build_options", r.build_options},
                   {"layout", pagerank::format_json(r.format)}};

  const Timings typical = median(per_iteration);
  const double spmv_s = median(spmv_only).kernel_s;
  report.timings = {{"preprocessing",
                     {{"load_ms", report.data["load_ms"]},
                      {"in_links_ms", report.data["in_links_ms"]},
                      {"reorder_ms", r.format.reorder_s * 1e3},
                      {"format_ms", r.format.preprocess_s * 1e3}}},
                    {"upload", r.upload},
                    {"total", r.total},
                    {"median_iteration", typical},
                    {"median_spmv_kernel_ms", spmv_s * 1e3},
                    {"per_iteration", per_iteration},
                    {"spmv_kernel_ms", spmv_ms}};
  repeats.add_to(report.timings);
  const double links_count = pagerank::additions_per_iteration(counts.links);
  const double per_s_spmv = spmv_s > 0 ? links_count / spmv_s : 0.0;
  const double per_s_iteration = typical.wall_s > 0 ? links_count / typical.wall_s : 0.0;
  res["edges_per_second"] = {{"spmv", per_s_spmv}, {"iteration", per_s_iteration}};
  report.gflops = {
      {"additions_per_iteration", links_count}, {"spmv", per_s_spmv * 1e-9}, {"iteration", per_s_iteration * 1e-9}};

  std::ostringstream s;
  s << in.notes << "  " << g.n_nodes << " nodes, " << counts.links << " links, format " << r.kernel.format << ": "
    << r.n_iter << " iterations" << (r.converged ? " (converged" : " (max_iter reached, not converged")
    << ", ||dx||_1 = " << (trace.empty() ? 0.0 : trace.back()) << ")\n"
    << "  per iteration (median): sum over in-links " << ms(spmv_s) << ", all kernels " << ms(typical.kernel_s)
    << ", transfer " << ms(typical.transfer_s) << ", CPU rows " << ms(typical.host_s)
    << (comm.several() ? ", MPI " + ms(typical.comm_s) : std::string()) << ", wall " << ms(typical.wall_s) << "; "
    << per_s_iteration << " edges/s\n"
    << "  preprocessing: in-links " << ms(report.data["in_links_ms"].get<double>() * 1e-3) << ", format "
    << ms(r.format.preprocess_s) << "; " << r.format.matrix_bytes << " bytes on the device ("
    << (r.format.csr_bytes ? static_cast<double>(r.format.matrix_bytes) / r.format.csr_bytes : 0.0) << " x CSR)\n"
    << "  top " << top << ":";
  for (std::size_t k = 0; k < top; ++k)
    s << " " << g.label(order[k]) << " (" << r.ranks[static_cast<std::size_t>(order[k])] << ")";
  s << "\n";
  report.summary = s.str();
  return report;
}

}  // namespace itercl
