// PageRank over MPI ranks: rank 0's plan (kernel, node order, cut), the scatter of the rows' in-links,
// and the power iteration with one halo exchange of z per step.
#include "pagerank/pagerank_ranks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/device_data.hpp"
#include "core/host_memory.hpp"
#include "core/phase_clock.hpp"
#include "itercl/error.hpp"
#include "pagerank/pagerank_engine.hpp"
#include "pagerank/pagerank_formats.hpp"
#include "pagerank/pagerank_halo.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "pagerank/pagerank_split.hpp"

namespace itercl::pagerank {

void check_format_over_ranks(const std::string& name) {
  const char* why = format(name).not_over_ranks;
  if (!why) return;
  std::string others;
  for (const Format& f : kFormatTable)
    if (!f.not_over_ranks) others += (others.empty() ? "" : ", ") + std::string(f.name);
  throw ParamError("format",
                   std::string(why) + ". Over several MPI ranks use " + others + " (or run " + name + " on one rank)");
}

namespace {

// The text of rank 0 on every rank.
void broadcast_text(core::Comm& comm, std::string& text) {
  std::vector<char> bytes(text.begin(), text.end());
  comm.broadcast(bytes);
  text.assign(bytes.begin(), bytes.end());
}

// Rank 0 resolves the kernel, renumbers the nodes if the kernel asks for it and cuts the rows; every
// rank receives the plan and its block. Fills r's kernel fields and upload (comm_s: the scatter).
RankShare share_graph(core::Comm& comm, const Device& device, PageRankParams& p, const InLinks& all,
                      PageRankResult& r) {
  const Stopwatch wall;
  const double comm_before = comm.seconds();
  const bool root = comm.rank() == 0;
  const auto ranks = static_cast<std::size_t>(comm.size());
  RankShare share;
  share.bounds.resize(ranks + 1);
  std::vector<std::int64_t> link_bounds(ranks + 1);
  std::vector<std::int32_t> out_degree;
  std::vector<double> out_weight;
  InLinks renamed;
  const InLinks* graph = &all;
  resolve_on_rank0(comm, device, p, all.offsets, all.weighted(), r);
  core::enter_phase("reorder");  // rank 0's: the others wait for its plan in the broadcasts
  if (root) {
    const Stopwatch clock;
    if (r.kernel.reorder == "degree") {
      share.order = degree_order(all);
      renamed = renumbered(all, share.order);
      graph = &renamed;
    }
    // The hubs spread over the ranks, each row's links kept in one process's order (so its sum is).
    const std::vector<std::int32_t> spread = spread_order(graph->out_degree, comm.size());
    renamed = renumbered(*graph, spread, /*sort_rows=*/false);
    graph = &renamed;
    share.order = share.order.empty() ? spread : to_new(share.order, spread);
    r.format.reorder_s = clock.seconds();
    share.bounds = link_balanced_rows(*graph, comm.size());
    for (std::size_t q = 0; q <= ranks; ++q) link_bounds[q] = graph->offsets[static_cast<std::size_t>(share.bounds[q])];
    out_degree = graph->out_degree;
    out_weight = graph->out_weight;
  }
  core::enter_phase("exchange_edges");  // the plan and every node's counts broadcast, the rows scattered
  comm.broadcast(share.bounds);
  comm.broadcast(link_bounds);
  comm.broadcast(out_degree);
  comm.broadcast(out_weight);  // empty: unweighted
  share_node_values(comm, p, share.order);

  // Rank q's rows' ends in the row pointer and its in-links are contiguous pieces of rank 0's arrays.
  std::vector<std::size_t> rows(ranks), links(ranks);
  for (std::size_t q = 0; q < ranks; ++q) {
    rows[q] = static_cast<std::size_t>(share.bounds[q + 1] - share.bounds[q]);
    links[q] = static_cast<std::size_t>(link_bounds[q + 1] - link_bounds[q]);
  }
  const auto n = static_cast<std::int32_t>(out_degree.size());
  const std::vector<std::int64_t> ends = comm.scatterv<std::int64_t>(
      root ? std::span<const std::int64_t>(graph->offsets.data() + 1, static_cast<std::size_t>(n))
           : std::span<const std::int64_t>{},
      rows);
  std::vector<std::int32_t> sources = comm.scatterv<std::int32_t>(
      root ? std::span<const std::int32_t>(graph->sources) : std::span<const std::int32_t>{}, links);
  std::vector<double> values;
  if (!out_weight.empty())
    values = comm.scatterv<double>(root ? std::span<const double>(graph->values) : std::span<const double>{}, links);
  const auto me = static_cast<std::size_t>(comm.rank());
  share.block = block_of_rows(n, share.bounds[me], link_bounds[me], ends, std::move(sources), std::move(out_degree),
                              std::move(values), std::move(out_weight));
  r.upload.comm_s += comm.seconds() - comm_before;
  r.upload.wall_s += wall.seconds();
  return share;
}

// What the ranks' exchange moves per iteration, on rank 0 (PageRankResult::Exchange): this rank's sends
// and receives from its halo, beside what the allgather it replaced sent (its rows to every other rank).
PageRankResult::Exchange exchange_volume(core::Comm& comm, const Halo& halo, std::int32_t rows,
                                         std::size_t value_bytes) {
  const auto bytes = static_cast<std::int64_t>(value_bytes);
  const std::array<std::int64_t, 3> mine = {static_cast<std::int64_t>(halo.send.size()) * bytes,
                                            std::int64_t{rows} * bytes * (comm.size() - 1), halo.received()};
  const std::vector<std::int64_t> all = comm.gatherv<std::int64_t>(std::span<const std::int64_t>(mine));
  PageRankResult::Exchange e;
  for (std::size_t at = 0; at + 2 < all.size(); at += 3) {
    e.sent_bytes.push_back(all[at]);
    e.allgather_bytes.push_back(all[at + 1]);
    e.remote_entries.push_back(all[at + 2]);
  }
  return e;
}

// Bytes of `counts` values of `value_bytes` each.
std::vector<std::size_t> in_bytes(const std::vector<std::size_t>& counts, std::size_t value_bytes) {
  std::vector<std::size_t> bytes(counts);
  for (std::size_t& b : bytes) b *= value_bytes;
  return bytes;
}

}  // namespace

void resolve_on_rank0(core::Comm& comm, const Device& device, const PageRankParams& p,
                      std::span<const std::int64_t> offsets, bool weighted, PageRankResult& r) {
  std::string plan;
  if (comm.rank() == 0) {
    r.kernel = resolve(p.kernel, device.info(), offsets, r.tuning_sources);
    check_format_over_ranks(r.kernel.format);
    r.build_options =
        defines(r.kernel, p.precision, weighted, needs_wide_offsets(offsets.empty() ? 0 : offsets.back()));
    plan = nlohmann::json{{"kernel", r.kernel}, {"sources", r.tuning_sources}, {"options", r.build_options}}.dump();
  }
  broadcast_text(comm, plan);
  if (comm.rank() != 0) {
    const nlohmann::json j = nlohmann::json::parse(plan);
    r.kernel = j.at("kernel").get<PageRankKernel>();
    r.tuning_sources = j.at("sources").get<std::vector<std::string>>();
    r.build_options = j.at("options").get<std::string>();
  }
}

void share_node_values(core::Comm& comm, PageRankParams& p, const std::vector<std::int32_t>& order) {
  for (std::vector<double>* v : {&p.personalization, &p.dangling, &p.nstart}) {
    if (comm.rank() == 0 && !order.empty()) *v = to_new(*v, order);
    comm.broadcast(*v);
  }
}

PageRankResult fit_over_ranks(core::Comm& comm, const Device& device, PageRankParams p, const InLinks& all) {
  core::enter_phase("checks");
  p.validate();
  device.require(p.precision);
  const bool root = comm.rank() == 0;
  if (root) p.validate(all.n_nodes);
  std::int32_t n = all.n_nodes;
  comm.broadcast(n);
  PageRankResult r;
  r.kernel = p.kernel;
  if (n == 0) {  // as one process: nothing to build, {} converged
    r.converged = true;
    return r;
  }
  if (root) check_node_count(n);
  RankShare share = share_graph(comm, device, p, all, r);
  return fit_share(comm, device, p, std::move(share), std::move(r));
}

PageRankResult fit_share(core::Comm& comm, const Device& device, const PageRankParams& p, RankShare share,
                         PageRankResult r) {
  const bool root = comm.rank() == 0;
  const std::int32_t n = share.block.n_nodes;
  const auto me = static_cast<std::size_t>(comm.rank());
  const std::int32_t first = share.bounds[me], last = share.bounds[me + 1];
  core::enter_phase("halo_plan");
  const Stopwatch plan_clock;
  const double plan_comm = comm.seconds();
  const Halo halo = plan_halo(comm, share.bounds, share.block);
  r.upload.comm_s += comm.seconds() - plan_comm;
  r.upload.wall_s += plan_clock.seconds();
  std::unique_ptr<Engine> engine;
  {
    // The rows that read only this rank's z are summed while the halo is in flight, the others after.
    const Stopwatch split_clock;
    const RowsByReach rows = split_by_reach(std::exchange(share.block, {}), halo, first, last);
    r.upload.wall_s += split_clock.seconds();
    core::enter_phase("format");  // then the engine's upload of the per-node vectors
    engine = make_engine(device, p, Problem{rows.local, p.precision}, r.kernel, r.build_options, r.upload,
                         Rows{first, last, halo.below, &rows.halo});
  }
  const double reorder_s = r.format.reorder_s;
  r.format = engine->format_stats();
  r.format.reorder_s = reorder_s;
  core::enter_phase("init");  // x and z, the halo's buffers and the start's z sent
  engine->start(p.personalization, p.nstart, r.upload);
  const Engine::HaloBuffers buffers = engine->set_halo(halo);
  r.exchange = exchange_volume(comm, halo, last - first, buffers.value_bytes);
  const std::vector<std::size_t> send_bytes = in_bytes(halo.send_counts, buffers.value_bytes);
  const std::vector<std::size_t> receive_bytes = in_bytes(halo.receive_counts, buffers.value_bytes);
  // z's halo from its owners' rows: packed on their devices and sent point to point; the step finishes
  // the exchange and writes the halo while its rows that read none are summed.
  core::Comm::Pending pending;
  const auto send_halo = [&](Timings& t) {
    engine->pack(t);
    pending = comm.start_exchange(buffers.send, send_bytes, buffers.received, receive_bytes);
  };
  const auto receive_halo = [&](Timings& t) {
    comm.finish_exchange(pending);
    engine->write_halo(t);
  };
  {
    const double comm_before = comm.seconds();
    send_halo(r.upload);  // the start's z
    r.upload.comm_s += comm.seconds() - comm_before;
  }

  core::enter_phase("iterations");
  const Stopwatch fit_clock;
  for (int it = 0; it < p.max_iter; ++it) {
    const Stopwatch wall;
    const double comm_before = comm.seconds();
    PageRankIteration step = engine->step(receive_halo);
    // The changes and dangling masses are T on the device, exact in double: summed in rank order, the same
    // bits on every rank, so that every rank takes the same decision below.
    const std::vector<double> sums = comm.sum_in_rank_order(std::array{step.residual, engine->rows_dangling_mass()});
    step.residual = sums[0];
    // The next step's input, unless this one is the last.
    if (it + 1 < p.max_iter && std::isfinite(sums[0]) && !(sums[0] < n * p.tol)) {
      send_halo(step.timings);
      engine->set_dangling_mass(sums[1], step.timings);
    }
    step.timings.comm_s = comm.seconds() - comm_before;
    step.timings.wall_s = wall.seconds();
    if (record_step(r, step, p, n, fit_clock)) break;
  }
  comm.finish_exchange(pending);  // none left but where max_iter allowed no step at all
  // The ranks come to rank 0, which maps them back to the input's ids.
  core::enter_phase("readback");
  const Stopwatch wall;
  const std::vector<double> x = engine->rows_of_ranks(r.total);
  const double comm_before = comm.seconds();
  r.ranks = comm.gatherv<double>(x);
  if (root && !share.order.empty()) r.ranks = to_old(r.ranks, share.order);
  r.total.comm_s += comm.seconds() - comm_before;
  r.total.wall_s += wall.seconds();
  return r;
}

}  // namespace itercl::pagerank
