// `"algorithm": "smacof"` in a config: reads the dissimilarities (or vectors) and params, fits, reports.
#include <sstream>

#include "core/comm.hpp"
#include "experiment/ranks.hpp"
#include "experiment/run_support.hpp"
#include "io/data_source.hpp"
#include "io/io_npy.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_ranks.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl {
namespace smacof {

// The input: a dissimilarity matrix (checked here, before any device work) or vectors; over several ranks,
// the shape of a .npy matrix, its rows read later by each rank straight to its device (read_rows).
struct Input {
  bool vectors = false;
  Matrix values;  // dissimilarities (N x N, symmetric; not over ranks) or vectors (N x features)
  std::vector<std::string> names;
  Metric metric = Metric::euclidean;
  Eigen::Index n = 0, first = 0, rows = 0;  // points, and over ranks this rank's rows
  std::filesystem::path path;               // over ranks, the .npy dissimilarities
  bool symmetrize = false;
};

// Over several ranks: the .npy dissimilarity matrix's shape, and this rank's rows of it.
void block_of(Input& in, const std::filesystem::path& path, bool symmetrize) {
  core::Comm& comm = core::world();
  io::NpyShape shape;
  try {
    shape = io::npy_shape(path);
  } catch (const InputError& e) {
    throw InputError(std::string("over several MPI ranks each rank reads its rows of a .npy file (convert the "
                                 "matrix to .npy, or run on one rank): ") +
                     e.what());
  }
  if (shape.rows != shape.cols)
    throw InputError("dissimilarities: expected a square matrix, got " + std::to_string(shape.rows) + " x " +
                     std::to_string(shape.cols));
  if (shape.rows < 2) throw InputError("dissimilarities: need at least 2 points, got " + std::to_string(shape.rows));
  const std::size_t n = shape.rows, first = core::first_row(n, comm.rank(), comm.size());
  in.n = static_cast<Eigen::Index>(n);
  in.first = static_cast<Eigen::Index>(first);
  in.rows = static_cast<Eigen::Index>(core::first_row(n, comm.rank() + 1, comm.size()) - first);
  in.path = path;
  in.symmetrize = symmetrize;
}

// A rectangle of this rank's rows (from its block's row r0) of the .npy matrix, and the same columns (the
// transposed rectangle) to check the symmetry and average as one process does; only those values are read.
smacof::Rectangle read_rows(const Input& in, const ConfigObject& data) {
  return [&in, &data](Eigen::Index r0, Eigen::Index rows, Eigen::Index c0, Eigen::Index columns) {
    try {
      const auto at = static_cast<std::size_t>(in.first + r0);
      const Matrix mine = io::read_npy_block(in.path, at, static_cast<std::size_t>(rows), static_cast<std::size_t>(c0),
                                             static_cast<std::size_t>(columns));
      const Matrix theirs = io::read_npy_block(in.path, static_cast<std::size_t>(c0), static_cast<std::size_t>(columns),
                                               at, static_cast<std::size_t>(rows));
      bool any_positive = false;
      return checked_dissimilarity_rows(mine, theirs, in.first + r0, c0, in.symmetrize, {}, any_positive);
    } catch (const InputError& e) {
      data.fail("path", e.what());
    }
  };
}

Input read_input(ExperimentContext& c, nlohmann::json& description) {
  ConfigObject& data = c.data;
  Input in;
  const auto kind = data.string("kind");
  if (!kind) data.fail("kind", "missing: expected \"dissimilarities\" or \"vectors\"");
  if (*kind == "vectors") {
    in.vectors = true;
    in.metric = with_field_prefix(data.source(), "data", [&] {
      const Metric m = parse_metric(data.string("metric", "euclidean"));
      check_dissimilarity_metric(m);
      return m;
    });
    if (core::world().rank() == 0)  // rank 0 reads and checks the data's fields
      in.values = with_field_prefix(data.source(), "data", [&] { return read_vectors(data, c.base, description); });
    if (core::world().several()) experiment::broadcast_matrix(in.values);  // each rank builds its rows from all
    in.n = in.values.rows();
    description["kind"] = "vectors";
    description["metric"] = std::string(metric_name(in.metric));
    return in;
  }
  if (*kind != "dissimilarities")
    data.fail("kind", "expected \"dissimilarities\" or \"vectors\", got \"" + *kind + "\"");
  const auto path = data.path("path", c.base);
  if (!path) data.fail("path", "missing: expected the dissimilarity matrix's file");
  LoadOptions options;
  options.format = data.choice("format", "auto", {"auto", "npy", "csv", "text"});
  options.header = data.boolean("header");
  const bool symmetrize = data.boolean("symmetrize").value_or(false);
  data.finish();
  const bool several = core::world().several();
  if (several && options.format != "npy" && options.format != "auto")
    data.fail("format", "over several MPI ranks each rank reads its rows of a .npy file; \"" + options.format +
                            "\" must be parsed whole in one place (convert it to .npy, or run on one rank)");
  try {
    if (several) {
      block_of(in, *path, symmetrize);
    } else {
      LabelledMatrix m = load_labelled_matrix(*path, options);
      in.values = checked_dissimilarities(m.values, symmetrize, m.names);
      in.names = std::move(m.names);
      in.n = in.values.rows();
    }
  } catch (const InputError& e) {
    data.fail("path", e.what());
  }
  description = {{"kind", "dissimilarities"}, {"path", path->string()}, {"symmetrize", symmetrize}};
  description["n_samples"] = in.n;
  return in;
}

SmacofParams read_params(ExperimentContext& c, Eigen::Index n, Matrix& weights) {
  ConfigObject& P = c.params;
  SmacofParams p;  // its defaults are the fields' defaults
  p.precision = c.precision;
  p.progress = c.progress;
  p.n_components = int_field(P, "n_components", P.integer("n_components").value_or(p.n_components));
  p.max_iter = int_field(P, "max_iter", P.integer("max_iter").value_or(p.max_iter));
  p.eps = P.number("eps").value_or(p.eps);
  p.n_init = int_field(P, "n_init", P.integer("n_init").value_or(p.n_init));
  const nlohmann::json* init = P.get("init");
  if (!init || (init->is_string() && init->get<std::string>() == "random")) {
    p.init = SmacofInit::random;
  } else if (init->is_string() && init->get<std::string>() == "classical") {
    p.init = SmacofInit::classical;
  } else {
    p.init = SmacofInit::given;  // a file path or inline rows
    p.init_embedding = read_matrix_value(P, "init", c.base);
  }
  p.random_state = read_random_state(c);
  if (P.get("weights") && core::world().several())
    P.fail("weights",
           "weighted SMACOF applies V+, an N x N matrix of all the weights, to every iterate: over "
           "several MPI ranks, which never hold the whole matrix, it is refused (run on one rank)");
  if (P.get("weights")) weights = read_matrix_value(P, "weights", c.base);
  if (const nlohmann::json* kernel = P.get("kernel"))
    with_field_prefix(P.source(), "params", [&] { from_json(*kernel, p.kernel); });
  P.finish();
  with_field_prefix(P.source(), "params", [&] {
    p.validate();
    if (p.init == SmacofInit::given && p.init_embedding.rows() != n)
      throw ParamError("init",
                       "has " + std::to_string(p.init_embedding.rows()) + " rows for " + std::to_string(n) + " points");
    if (weights.size()) weights = checked_weights(weights, n);
  });
  return p;
}

// The embedding as CSV, each row led by its point's name when there are names.
void write_embedding(const std::filesystem::path& path, const Matrix& x, const std::vector<std::string>& names) {
  if (names.empty() || path.extension() == ".npy") return write_matrix(path, x);
  std::istringstream rows(to_csv(x));
  std::string text, row;
  for (const std::string& name : names) {
    std::getline(rows, row);
    std::string quoted;
    for (char ch : name) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    text += "\"" + quoted + "\"," + row + "\n";
  }
  write_file_atomically(path, text);
}

}  // namespace smacof

AlgorithmReport run_smacof(ExperimentContext& c) {
  AlgorithmReport report;
  const smacof::Input in = smacof::read_input(c, report.data);
  const Eigen::Index n = in.n;
  core::Comm& comm = core::world();
  Matrix weights;
  const SmacofParams params = smacof::read_params(c, n, weights);
  auto embedding_path = c.output_path("embedding");
  c.output.finish();
  if (!embedding_path && n * params.n_components > kInlineValues) {
    embedding_path = std::filesystem::path(c.results_path).replace_extension(".embedding.npy");
    c.claim_output(*embedding_path, c.output.source() + ": the embedding beside the results");
  }

  const double flops = smacof::iteration_flops(n, params.n_components);
  c.workload = Workload{"smacof", flops, static_cast<double>(params.max_iter) * params.n_init};
  const Smacof solver(c.device(), params);
  Repeats repeats;
  const SmacofResult r = repeats.run(c.repeat, "checks", [&] {
    return with_field_prefix(c.params.source(), "params", [&] {
      if (comm.several())
        return in.vectors ? smacof::fit_vectors_over_ranks(comm, c.device(), params, in.values, in.metric)
                          : smacof::fit_rows_over_ranks(comm, c.device(), params, smacof::read_rows(in, c.data),
                                                        in.first, in.rows, n);
      return in.vectors ? solver.fit_vectors(in.values, in.metric, weights) : solver.fit(in.values, weights);
    });
  });

  nlohmann::json& res = report.result;
  if (embedding_path) {
    if (comm.rank() == 0) smacof::write_embedding(*embedding_path, r.embedding, in.names);
    res["embedding"] = {{"file", embedding_path->string()}, {"shape", {r.embedding.rows(), r.embedding.cols()}}};
  } else {
    res["embedding"] = matrix_json(r.embedding);
  }
  if (!in.names.empty()) res["names"] = in.names;
  res["stress"] = r.stress;
  res["normalized_stress"] = r.normalized_stress;
  res["n_iter"] = r.n_iter;
  res["converged"] = r.converged;
  std::vector<double> trace;
  std::vector<Timings> per_iteration;
  for (const auto& it : r.iterations) trace.push_back(it.stress), per_iteration.push_back(it.timings);
  res["stress_trace"] = trace;
  res["init_stress"] = r.init_stress;
  res["best_init"] = r.best_init;
  res["random_state"] = params.random_state;
  res["weighted"] = weights.size() > 0;

  report.kernel = {{"file", smacof::kernel_file(r.kernel)},
                   {"tuning", r.kernel},
                   {"tuning_sources", r.tuning_sources},
                   {"build_options", r.build_options},
                   {"delta_buffers", r.delta_buffers}};
  const Timings typical = median(per_iteration);
  report.timings = timings_json(r.upload, r.total, per_iteration, repeats);
  report.gflops = {{"flops_per_iteration", flops},
                   {"kernel", typical.kernel_s > 0 ? flops / typical.kernel_s * 1e-9 : 0.0},
                   {"iteration", typical.wall_s > 0 ? flops / typical.wall_s * 1e-9 : 0.0}};

  std::ostringstream s;
  s << "  " << n << " points" << (in.vectors ? " (" + std::string(metric_name(in.metric)) + " from vectors)" : "")
    << " into " << params.n_components << "-D, variant " << r.kernel.variant
    << (r.kernel.packed == YesNo::yes ? " packed" : "") << ": stress " << r.stress << " (normalized "
    << r.normalized_stress << ") after " << r.n_iter << " iterations"
    << (r.converged ? " (converged)" : " (max_iter reached)") << "\n"
    << "  per iteration (median): kernels " << ms(typical.kernel_s) << ", transfer " << ms(typical.transfer_s)
    << (comm.several() ? ", MPI " + ms(typical.comm_s) : std::string()) << ", wall " << ms(typical.wall_s) << "; "
    << report.gflops["kernel"].get<double>() << " GFLOPS in the kernels\n";
  report.summary = s.str();
  return report;
}

}  // namespace itercl
