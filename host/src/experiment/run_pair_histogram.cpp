// `"algorithm": "distance_histogram"` and `"pair_counts"` in a config: points from vector files or
// particle files (.gro, .pdb, LAMMPS dumps, with their box), counts inline, g(r) where a volume is known.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <sstream>

#include "core/comm.hpp"
#include "core/phase_clock.hpp"
#include "experiment/algorithms.hpp"
#include "experiment/ranks.hpp"
#include "experiment/run_support.hpp"
#include "io/data_source.hpp"
#include "itercl/pair_histogram.hpp"
#include "itercl/particles.hpp"
#include "pairwise/pair_histogram_description.hpp"
#include "pairwise/pair_histogram_kernel.hpp"

namespace itercl {
namespace pairwise {

// Points from the data section: a particle file ({"path", "format": "gro" | "pdb" | "lammps" | "auto",
// "select": [names], "frame"}), whose box is returned, or anything read_vectors reads.
Matrix read_points(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description,
                   std::vector<double>& box) {
  const auto path = data.path("path", base);
  const std::string format = data.string("format", "auto");
  if (!path || !is_particle_format(*path, format)) return read_vectors(data, base, description);
  std::vector<std::string> names;
  if (const nlohmann::json* select = data.get("select")) {
    if (!select->is_array()) data.fail("select", "expected an array of atom names or types, got " + select->dump());
    for (const auto& s : *select) {
      if (!s.is_string() && !s.is_number_integer()) data.fail("select", "expected names or types, got " + s.dump());
      names.push_back(s.is_string() ? s.get<std::string>() : std::to_string(s.get<long long>()));
    }
  }
  const long long frame =
      data.integer("frame", std::numeric_limits<int>::min(), std::numeric_limits<int>::max()).value_or(0);
  data.finish();
  Particles p;
  try {
    p = with_field_prefix(data.source(), "data",
                          [&] { return load_particles(*path, format, static_cast<int>(frame)); });
  } catch (const ParamError& e) {
    data.fail(e.field(), e.detail());
  } catch (const InputError& e) {
    data.fail("path", e.what());
  }
  const std::size_t all = static_cast<std::size_t>(p.positions.rows());
  p = select_particles(p, names);
  if (p.positions.rows() == 0) data.fail("select", "no particle of " + path->string() + " has one of these names");
  box = p.box;
  description = {{"path", path->string()}, {"particles_in_file", all}, {"selected", names}, {"frame", frame}};
  if (!box.empty()) description["box"] = box;
  description["n_samples"] = p.positions.rows();
  description["n_features"] = p.positions.cols();
  return p.positions;
}

std::vector<double> number_array(ConfigObject& P, const std::string& key) {
  const nlohmann::json* v = P.get(key);
  std::vector<double> out;
  if (!v) return out;
  if (!v->is_array() || v->empty()) P.fail(key, "expected a non-empty array of numbers, got " + v->dump());
  for (const auto& x : *v) {
    if (!x.is_number()) P.fail(key, "expected numbers, got " + x.dump());
    out.push_back(x.get<double>());
  }
  return out;
}

struct HistogramInputs {
  PairHistogramParams params;
  std::vector<Device> devices;
  Matrix X;
};

// The parts both algorithms share: the points, the box (params.box: side lengths, or false for none),
// the kernel, the block, the devices. Over several ranks rank 0 reads the points (any format) and sends
// them, with the file's box, to every rank, which counts its part of the pair space.
HistogramInputs read_common(ExperimentContext& c, AlgorithmReport& report,
                            const std::function<void(PairHistogramParams&)>& binning) {
  HistogramInputs out;
  std::vector<double> file_box;
  core::Comm& comm = core::world();
  if (comm.rank() == 0)
    out.X =
        with_field_prefix(c.data.source(), "data", [&] { return read_points(c.data, c.base, report.data, file_box); });
  if (comm.several()) {
    experiment::broadcast_matrix(out.X);
    comm.broadcast(file_box);
  }
  ConfigObject& P = c.params;
  PairHistogramParams& params = out.params;
  params.precision = c.precision;
  params.progress = c.progress;
  params.part = comm.rank();
  params.parts = comm.size();
  params.box = file_box;
  if (const nlohmann::json* b = P.get("box")) {
    if (b->is_boolean() && !b->get<bool>())
      params.box.clear();
    else if (!b->is_boolean())
      params.box = number_array(P, "box");
    else if (file_box.empty())
      P.fail("box", "true, but the data give no box: give its side lengths");
  }
  with_field_prefix(P.source(), "params", [&] {
    binning(params);
    params.block = P.integer("block").value_or(params.block);
    if (const nlohmann::json* kernel = P.get("kernel")) from_json(*kernel, params.kernel);
  });
  std::vector<std::string> specs = read_device_list(P);
  P.finish();
  c.output.finish();
  with_field_prefix(P.source(), "params", [&] { params.validate(out.X.cols()); });
  out.devices = c.devices(specs);
  return out;
}

// Each repeat a whole call: the points' upload and the kernels' build, then the counts.
PairHistogramResult run_repeated(ExperimentContext& c, const HistogramInputs& in, Repeats& repeats) {
  core::Comm& comm = core::world();
  return repeats.run(c.repeat, "upload", [&] {
    PairHistogram h =
        with_field_prefix(c.params.source(), "params", [&] { return PairHistogram(in.devices, in.X, in.params); });
    core::enter_phase("compute");
    PairHistogramResult r = h.run();
    if (comm.several()) {  // every rank's counts added (exact: integers), its devices' shares to rank 0
      const double before = comm.seconds();
      std::vector<std::int64_t> counts(r.counts.begin(), r.counts.end());
      comm.allreduce_sum(counts);
      r.counts.assign(counts.begin(), counts.end());
      r.shares = experiment::gather_shares(r.shares);
      r.total.comm_s = comm.seconds() - before;
      r.total.wall_s += r.total.comm_s;
    }
    return r;
  });
}

void report_run(AlgorithmReport& report, const HistogramInputs& in, const PairHistogramResult& r,
                const Repeats& repeats) {
  nlohmann::json& res = report.result;
  res["pairs"] = r.pairs;
  res["block"] = r.block;
  if (!in.params.box.empty()) res["box"] = in.params.box;
  res["shares"] = shares_json(r.shares, r.pairs);
  report.kernel = {{"file", pairwise::kernel_file(r.kernel)},
                   {"tuning", r.kernel},
                   {"tuning_sources", r.tuning_sources},
                   {"build_options", r.build_options}};
  report.timings = {{"upload", r.upload}, {"total", r.total}};
  repeats.add_to(report.timings);
  const double kernel_s = r.shares.size() == 1 ? r.total.kernel_s : 0.0;
  report.gflops = {{"pairs_per_second_kernel", pair_rate(r.pairs, kernel_s)},
                   {"pairs_per_second", pair_rate(r.pairs, r.total.wall_s)}};
  std::ostringstream s;
  char line[200];
  std::snprintf(line, sizeof line,
                "  %lld points, %.0f pairs, variant %s: kernel %.4g ms, wall %.4g ms (%.3g G pairs/s)\n",
                static_cast<long long>(in.X.rows()), r.pairs, r.kernel.variant.c_str(), r.total.kernel_s * 1e3,
                r.total.wall_s * 1e3, report.gflops["pairs_per_second"].get<double>() * 1e-9);
  s << line;
  s << shares_summary(r.shares, r.pairs);
  report.summary += s.str();
}

}  // namespace pairwise

AlgorithmReport run_distance_histogram(ExperimentContext& c) {
  AlgorithmReport report;
  std::optional<double> volume;
  const pairwise::HistogramInputs in = pairwise::read_common(c, report, [&](PairHistogramParams& p) {
    ConfigObject& P = c.params;
    const std::vector<double> edges = pairwise::number_array(P, "edges");
    const auto bins = P.integer("bins");
    const std::vector<double> range = pairwise::number_array(P, "range");
    volume = P.number("volume");
    if (!edges.empty()) {
      if (bins || !range.empty()) P.fail("edges", "give either edges or bins and range, not both");
      p.binning = Binning::explicit_edges(edges);
    } else {
      if (range.size() != 2) P.fail("range", "expected [low, high] (with bins), or give edges");
      p.binning = Binning::uniform(static_cast<int>(std::clamp<long long>(bins.value_or(Binning{}.bins), -1, 1 << 30)),
                                   range[0], range[1]);
    }
  });
  if (volume && !(*volume > 0)) c.params.fail("volume", "expected a number > 0");
  if (!volume && !in.params.box.empty())
    volume = std::accumulate(in.params.box.begin(), in.params.box.end(), 1.0, std::multiplies<>());
  Repeats repeats;
  const PairHistogramResult r = pairwise::run_repeated(c, in, repeats);

  nlohmann::json& res = report.result;
  res["counts"] = r.counts;
  res["edges"] = r.edges;
  res["counted"] = std::accumulate(r.counts.begin(), r.counts.end(), std::uint64_t{0});
  if (volume) {  // g(r) by shell-volume normalisation
    std::vector<double> centres;
    for (std::size_t k = 0; k + 1 < r.edges.size(); ++k) centres.push_back((r.edges[k] + r.edges[k + 1]) / 2);
    res["volume"] = *volume;
    res["r"] = centres;
    res["g_r"] = radial_distribution(r.counts, r.edges, in.X.rows(), *volume, in.X.cols());
    if (!in.params.box.empty())  // the minimum image sees every pair only up to half the shortest side
      res["g_r_valid_up_to"] = *std::min_element(in.params.box.begin(), in.params.box.end()) / 2;
  }
  pairwise::report_run(report, in, r, repeats);
  return report;
}

AlgorithmReport run_pair_counts(ExperimentContext& c) {
  AlgorithmReport report;
  const pairwise::HistogramInputs in = pairwise::read_common(c, report, [&](PairHistogramParams& p) {
    const std::vector<double> radii = pairwise::number_array(c.params, "radii");
    if (radii.empty()) c.params.fail("radii", "missing: expected an array of radii");
    p.binning = Binning::radii(radii);
  });
  Repeats repeats;
  const PairHistogramResult r = pairwise::run_repeated(c, in, repeats);
  report.result["radii"] = r.edges;
  report.result["counts"] = r.counts;
  pairwise::report_run(report, in, r, repeats);
  return report;
}

}  // namespace itercl
