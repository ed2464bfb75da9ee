// `"algorithm": "kmeans"` in a config: reads params, fits, reports.
#include <sstream>

#include "core/comm.hpp"
#include "experiment/run_support.hpp"
#include "io/data_source.hpp"
#include "itercl/kmeans.hpp"
#include "kmeans/kmeans_description.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "kmeans/kmeans_ranks.hpp"

namespace itercl {
namespace kmeans {

// `n_samples`: all the points' count. Over several ranks rank 0 alone reads the sample weights (given
// `reads_weights`), which it scatters; the points are checked where they lie (fit_over_ranks).
KMeansParams read_params(ExperimentContext& c, Eigen::Index n_samples, std::vector<double>& weights,
                         bool reads_weights) {
  ConfigObject& P = c.params;
  KMeansParams p;
  p.precision = c.precision;
  p.progress = c.progress;

  const auto k = P.integer("n_clusters", std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  if (!k) P.fail("n_clusters", "missing: expected an integer >= 1");
  p.n_clusters = int_field(P, "n_clusters", *k);

  if (const nlohmann::json* init = P.get("init")) {
    if (init->is_string() && init->get<std::string>() == "k-means++") {
      p.init = KMeansInit::kmeans_plus_plus;
    } else if (init->is_string() && init->get<std::string>() == "random") {
      p.init = KMeansInit::random;
    } else {
      p.init = KMeansInit::given;  // a file path or inline rows
      p.init_centroids = read_matrix_value(P, "init", c.base);
    }
  }

  // n_init: a count, or "auto" (the library's 0): 10 runs for random init, 1 otherwise.
  const nlohmann::json* n_init = P.get("n_init");
  if (n_init && !(n_init->is_string() && n_init->get<std::string>() == "auto")) {
    const long long runs = P.integer("n_init").value();
    if (runs < 1) P.fail("n_init", "expected an integer >= 1 (or \"auto\"), got " + std::to_string(runs));
    p.n_init = int_field(P, "n_init", runs);
  }
  p.max_iter = int_field(P, "max_iter", P.integer("max_iter").value_or(p.max_iter));
  p.tol = P.number("tol").value_or(p.tol);

  p.random_state = read_random_state(c);

  if (P.get("sample_weight") && reads_weights) {
    weights = read_vector_value(P, "sample_weight", c.base);
    if (static_cast<Eigen::Index>(weights.size()) != n_samples)
      P.fail("sample_weight",
             std::to_string(weights.size()) + " weights for " + std::to_string(n_samples) + " samples");
  }

  if (const nlohmann::json* kernel = P.get("kernel"))
    with_field_prefix(P.source(), "params", [&] { from_json(*kernel, p.kernel); });
  P.finish();
  with_field_prefix(P.source(), "params", [&] { p.validate(); });
  return p;
}

// Labels go to a file: .npy by extension, else text, one label a line.
void write_labels(const std::filesystem::path& path, const std::vector<std::int32_t>& labels) {
  if (path.extension() == ".npy") return save_npy(path, labels);
  std::string text;
  for (auto l : labels) text += std::to_string(l) + "\n";
  write_file_atomically(path, text);
}

}  // namespace kmeans

AlgorithmReport run_kmeans(ExperimentContext& c) {
  AlgorithmReport report;
  // Over several ranks each rank generates its rows, or reads them from a .npy file; a format that must be
  // parsed whole is read by rank 0 and its rows scattered, as are the sample weights.
  core::Comm& comm = core::world();
  const bool root = comm.rank() == 0;
  // The rows stay in the precision they come in (generated in the run's), never a double copy of the whole.
  const Stopwatch load;
  VectorRows data = with_field_prefix(c.data.source(), "data", [&] {
    return read_vector_rows(c.data, c.base, report.data, comm.rank(), comm.size(), c.precision);
  });
  const double load_s = load.seconds();
  comm.broadcast(data.n);  // a file read whole is counted on rank 0 only
  // The time to generate or read the rows, each rank's: at 10^9 points it is a run's largest part.
  report.data["load_s"] = load_s;
  if (comm.several()) report.data["load_s_ranks"] = comm.allgatherv<double>(std::span<const double>(&load_s, 1));
  std::vector<double> weights;
  KMeansParams params = kmeans::read_params(c, data.n, weights, root);
  comm.broadcast(params.random_state);  // a drawn seed is rank 0's
  c.config_as_run["params"]["random_state"] = params.random_state;
  const auto labels_path = c.output_path("labels");
  auto centroids_path = c.output_path("centroids");
  c.output.finish();
  kmeans::RankRows mine = data.whole ? kmeans::scatter_rows(comm, std::move(data.X).to_matrix(), weights)
                                     : kmeans::RankRows{std::move(data.X), {}, data.first, data.n, {}};
  if (!data.whole) mine.w = kmeans::scatter_weights(comm, weights, mine.n);
  const Eigen::Index n_samples = mine.n, n_features = mine.X.cols();
  // Bad data is refused before the device is opened (fit checks it again, for the library's callers).
  with_field_prefix(c.params.source(), "params", [&] { kmeans::check_rows(comm, params, kmeans::local_rows(mine)); });
  if (!centroids_path && n_features * params.n_clusters > kInlineValues) {
    centroids_path = std::filesystem::path(c.results_path).replace_extension(".centroids.npy");
    c.claim_output(*centroids_path, c.output.source() + ": the centroids beside the results");
  }

  const kmeans::Work work = kmeans::assignment_work(n_samples, n_features, params.n_clusters, params.precision);
  c.workload = Workload{"kmeans", work.flops, static_cast<double>(params.max_iter) * params.runs()};
  c.device().require(params.precision);  // as KMeans' constructor checks, before any work
  Repeats repeats;
  const KMeansResult r = repeats.run(c.repeat, "checks", [&] {
    return with_field_prefix(c.params.source(), "params", [&] {
      return kmeans::fit_over_ranks(comm, c.device(), params, kmeans::local_rows(mine));
    });
  });

  nlohmann::json& res = report.result;
  const bool writes = root;  // over several ranks, rank 0 writes every file
  if (centroids_path) {
    if (writes) write_matrix(*centroids_path, r.centroids);
    res["centroids"] = {{"file", centroids_path->string()}, {"shape", {r.centroids.rows(), r.centroids.cols()}}};
  } else {
    res["centroids"] = matrix_json(r.centroids);
  }
  res["inertia"] = r.inertia;
  res["n_iter"] = r.n_iter;
  res["converged"] = r.converged;
  res["n_relocated"] = r.n_relocated;
  std::vector<double> trace;
  std::vector<Timings> per_iteration;
  for (const auto& it : r.iterations) trace.push_back(it.inertia), per_iteration.push_back(it.timings);
  res["inertia_trace"] = trace;
  res["init_inertia"] = r.init_inertia;
  res["best_init"] = r.best_init;
  res["random_state"] = params.random_state;
  if (labels_path) {
    if (writes) kmeans::write_labels(*labels_path, r.labels);
    res["labels"] = labels_path->string();
  }

  report.kernel = {{"file", kmeans::kernel_file(r.kernel)},
                   {"tuning", r.kernel},
                   {"tuning_sources", r.tuning_sources},
                   {"build_options", r.build_options}};

  const Timings typical = median(per_iteration);
  report.timings = timings_json(r.upload, r.total, per_iteration, repeats);
  // Points in chunks, or streamed through a device every iteration (issue 11): each rank's chunks and
  // bytes, and this rank's median transfer time per iteration beside its kernel time, to show which bounds
  // the iteration.
  const std::vector<double> mine_streaming = {
      static_cast<double>(r.streaming.streamed), static_cast<double>(r.streaming.chunks),
      static_cast<double>(r.streaming.chunk_rows), static_cast<double>(r.streaming.bytes_per_call)};
  const std::vector<double> all_streaming = comm.allgatherv<double>(mine_streaming);
  nlohmann::json ranks_streaming = nlohmann::json::array();
  for (std::size_t at = 0; at + 4 <= all_streaming.size(); at += 4)
    ranks_streaming.push_back(KMeansStreaming{all_streaming[at] != 0, static_cast<int>(all_streaming[at + 1]),
                                              static_cast<std::int64_t>(all_streaming[at + 2]),
                                              static_cast<std::uint64_t>(all_streaming[at + 3])});
  res["streaming"] = r.streaming;
  if (r.streaming.streamed)
    res["streaming"].update(
        {{"transfer_ms_per_iteration", typical.transfer_s * 1e3}, {"kernel_ms_per_iteration", typical.kernel_s * 1e3}});
  if (comm.several()) res["streaming"]["ranks"] = ranks_streaming;
  report.gflops = {{"flops_per_iteration", work.flops},
                   {"bytes_per_iteration", work.bytes},
                   {"kernel", typical.kernel_s > 0 ? work.flops / typical.kernel_s * 1e-9 : 0.0},
                   {"iteration", typical.wall_s > 0 ? work.flops / typical.wall_s * 1e-9 : 0.0},
                   {"kernel_gbs", typical.kernel_s > 0 ? work.bytes / typical.kernel_s * 1e-9 : 0.0}};

  std::ostringstream s;
  s << "  " << n_samples << " x " << n_features << " points, " << params.n_clusters << " clusters, variant "
    << r.kernel.variant << ": inertia " << r.inertia << " after " << r.n_iter << " iterations"
    << (r.converged ? " (converged)" : " (max_iter reached)") << ", " << r.n_relocated << " relocated\n"
    << "  per iteration (median): assignment " << ms(typical.kernel_s) << ", transfer " << ms(typical.transfer_s)
    << ", update " << ms(typical.host_s) << (comm.several() ? ", MPI " + ms(typical.comm_s) : std::string())
    << ", wall " << ms(typical.wall_s) << "; " << report.gflops["kernel"].get<double>() << " GFLOPS in the kernel\n";
  if (r.streaming.chunks)
    s << "  the points " << (r.streaming.streamed ? "streamed through" : "held on") << " the device in "
      << r.streaming.chunks << " chunks of " << r.streaming.chunk_rows << " rows"
      << (r.streaming.streamed ? ", " + std::to_string(r.streaming.bytes_per_call) + " bytes per pass\n" : "\n");
  report.summary = s.str();
  return report;
}

}  // namespace itercl
