// `"algorithm": "pairwise_distances"` in a config: the matrix to a .npy file (dense or scipy's condensed
// form, written rectangle by rectangle as they arrive) or inline, or its reductions on the device (per-row
// min / max / sum, k nearest, pairs within a threshold), and where the time went per device. The config's
// parameters are read and checked whole first (read_setup), each form's part is one entry of kForms, and
// run_pairwise runs what they say.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <sstream>

#include "core/comm.hpp"
#include "experiment/algorithms.hpp"
#include "experiment/ranks.hpp"
#include "experiment/run_support.hpp"
#include "io/data_source.hpp"
#include "io/npy_shared.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pairwise_description.hpp"
#include "pairwise/pairwise_kernel.hpp"

namespace itercl {
namespace pairwise {

// What a form keeps: the matrix (to a file or inline), nothing (every rectangle computed and brought to the
// host, for timing the device), or a reduction on the device (only its values reach the host).
enum class Keeps { matrix, nothing, reduction };

// params.form's choices. field: the parameter only this form takes, and what it is; values, indices: a
// reduction's result fields (indices only where the reduction has them).
struct Form {
  const char* name;
  Keeps keeps;
  const char* field = "";
  const char* needs = "";
  const char* values = "";
  const char* indices = "";
};
constexpr Form kForms[] = {
    {"dense", Keeps::matrix},
    {"condensed", Keeps::matrix},
    {"none", Keeps::nothing},
    {"row_min", Keeps::reduction, "", "", "min", "argmin"},
    {"row_max", Keeps::reduction, "", "", "max", "argmax"},
    {"row_sum", Keeps::reduction, "", "", "sum"},
    {"knn", Keeps::reduction, "k", "k, the neighbours per row (1 to 64)", "distances", "indices"},
    {"threshold", Keeps::reduction, "threshold", "the largest distance kept"},
};

// A config's run, read and checked whole before any device is touched.
struct Setup {
  Matrix X;
  std::optional<Matrix> Y;
  PairwiseParams params;
  const Form* form = nullptr;
  PairwiseReduction reduction;
  std::vector<std::string> devices;
  std::optional<std::filesystem::path> matrix_path;  // where the matrix goes, when it goes to a file
  std::size_t n1 = 0, n2 = 0, values = 0;            // the matrix's shape, and the values it keeps
  bool condensed() const { return std::string_view(form->name) == "condensed"; }
};

const Form& read_form(ConfigObject& P, PairwiseReduction& reduction) {
  std::vector<std::string_view> names;
  for (const Form& f : kForms) names.push_back(f.name);
  const std::string name = P.choice("form", "dense", names);
  const Form& form = *std::find_if(std::begin(kForms), std::end(kForms), [&](const Form& f) { return name == f.name; });
  reduction.form = name;
  for (const Form& f : kForms) {
    if (!*f.field) continue;
    if (&f == &form && !P.has(f.field)) P.fail(f.field, std::string("missing: form ") + f.name + " needs " + f.needs);
    if (&f != &form && P.has(f.field))
      P.fail(f.field, std::string("only form ") + f.name + " takes " + f.field + "; form is " + name);
  }
  if (name == "knn") reduction.k = int_field(P, "k", *P.integer("k"));
  if (name == "threshold") reduction.threshold = *P.number("threshold");
  return form;
}

Setup read_setup(ExperimentContext& c, AlgorithmReport& report) {
  // Over several ranks rank 0 reads the vectors (any format) and sends them to every rank, which computes
  // its part of the pair space's rectangles.
  core::Comm& comm = core::world();
  Setup s;
  if (comm.rank() == 0)
    s.X = with_field_prefix(c.data.source(), "data", [&] { return read_vectors(c.data, c.base, report.data); });
  if (comm.several()) experiment::broadcast_matrix(s.X);
  ConfigObject& P = c.params;
  PairwiseParams& params = s.params;
  params.precision = c.precision;
  params.progress = c.progress;
  params.part = comm.rank();
  params.parts = comm.size();
  with_field_prefix(P.source(), "params", [&] {
    params.metric = parse_metric(P.string("metric", std::string(metric_name(params.metric))));
    params.p = P.number("p").value_or(params.p);
    params.block_rows = P.integer("block_rows").value_or(params.block_rows);
    params.block_cols = P.integer("block_cols").value_or(params.block_cols);
    if (const nlohmann::json* kernel = P.get("kernel")) from_json(*kernel, params.kernel);
  });
  s.form = &read_form(P, s.reduction);
  const std::string form = s.form->name;
  if (P.has("Y")) {
    ConfigObject second = P.object("Y");
    nlohmann::json described;
    s.Y = with_field_prefix(P.source(), "params.Y", [&] { return read_vectors(second, c.base, described); });
    report.data["Y"] = described;
    if (s.Y->cols() != s.X.cols())
      P.fail("Y", std::to_string(s.Y->cols()) + " features; the data have " + std::to_string(s.X.cols()));
    if (s.condensed()) P.fail("form", "condensed is the upper triangle of one input's matrix: drop params.Y");
  }
  s.devices = read_device_list(P);
  P.finish();
  with_field_prefix(P.source(), "params", [&] {
    params.validate();
    if (s.form->keeps == Keeps::reduction) s.reduction.validate();
  });
  s.matrix_path = c.output_path("matrix");
  c.output.finish();

  s.n1 = static_cast<std::size_t>(s.X.rows());
  s.n2 = static_cast<std::size_t>(s.Y ? s.Y->rows() : s.X.rows());
  s.values = s.condensed() ? s.n1 * (s.n1 - 1) / 2 : s.n1 * s.n2;
  if (s.form->keeps != Keeps::matrix && s.matrix_path)
    c.output.fail("matrix", "form " + form + " keeps no matrix to write");
  // Over several ranks the matrix always goes to a file, which every rank writes at its rectangles' places:
  // no process holds it whole.
  if (!s.matrix_path && s.form->keeps == Keeps::matrix &&
      (static_cast<Eigen::Index>(s.values) > kInlineValues || comm.several())) {
    s.matrix_path = std::filesystem::path(c.results_path).replace_extension(".matrix.npy");
    c.claim_output(*s.matrix_path, c.output.source() + ": the matrix beside the results");
  }
  // A file of n1 x n2 values is refused before the run when its file system cannot hold it (sparse until
  // written: without this check n = 10^6 would start writing 4 TB).
  if (s.matrix_path && experiment::writes_results())
    io::check_free_space(*s.matrix_path, s.values * real_size(params.precision) + 128,
                         c.output.source() + ": output.matrix");
  return s;
}

// A reduction's rows x width array: inline up to kInlineValues, else an .npy beside the results, as the
// matrix goes. Inline, a per-row reduction (row_min, ...: one value a row) is a list; knn's n x k stays
// rows of k even for k = 1, so that its shape does not depend on k (as scikit-learn's kneighbors).
nlohmann::json reduced_array(ExperimentContext& c, const char* name, const Matrix& m, bool one_per_row) {
  if (m.size() <= kInlineValues)
    return one_per_row && m.cols() == 1 ? nlohmann::json(std::vector<double>(m.data(), m.data() + m.size()))
                                        : matrix_json(m);
  const auto path = std::filesystem::path(c.results_path).replace_extension(std::string(".") + name + ".npy");
  c.claim_output(path, c.output.source() + ": the " + name + " beside the results");
  write_matrix(path, m);
  return {{"file", path.string()}, {"dtype", "float64"}, {"shape", {m.rows(), m.cols()}}};
}

// The result fields of a reduction: values and their columns under the form's names; the pairs within the
// threshold as (i, j, d) rows. "pairs" already counts the entries computed, so the count is pairs_within.
void reduced_json(ExperimentContext& c, const Form& form, const ReducedDistances& r, nlohmann::json& res) {
  if (!*form.values) {  // threshold
    Matrix list(static_cast<Eigen::Index>(r.pairs.size()), 3);
    for (Eigen::Index q = 0; q < list.rows(); ++q) {
      const NearPair& p = r.pairs[static_cast<std::size_t>(q)];
      list.row(q) << static_cast<double>(p.i), static_cast<double>(p.j), p.d;
    }
    res["pairs_within"] = r.pairs.size();
    res["pair_list"] = reduced_array(c, "pair_list", list, false);
    return;
  }
  const auto rows = static_cast<Eigen::Index>(r.values.size()) / r.width;
  const Matrix values = Eigen::Map<const Matrix>(r.values.data(), rows, r.width);
  const bool one_per_row = std::string_view(form.name) != "knn";
  res[form.values] = reduced_array(c, form.values, values, one_per_row);
  if (r.indices.empty()) return;
  const Matrix indices = Eigen::Map<const Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                             r.indices.data(), rows, r.width)
                             .cast<double>();
  res[form.indices] = reduced_array(c, form.indices, indices, one_per_row);
}

// Over several ranks: every rank's reduction of its part of the pair space, merged on rank 0 (the
// other ranks get an empty result). One gather of each part's values, indices and pairs.
ReducedDistances merge_over_ranks(core::Comm& comm, const PairwiseReduction& reduction, Eigen::Index rows,
                                  const ReducedDistances& mine) {
  std::string bytes;
  auto put = [&](const void* data, std::size_t size) { bytes.append(static_cast<const char*>(data), size); };
  const std::uint64_t sizes[3] = {mine.values.size(), mine.indices.size(), mine.pairs.size()};
  put(sizes, sizeof sizes);
  put(mine.values.data(), mine.values.size() * sizeof(double));
  put(mine.indices.data(), mine.indices.size() * sizeof(std::int64_t));
  put(mine.pairs.data(), mine.pairs.size() * sizeof(NearPair));
  std::vector<ReducedDistances> parts;
  for (const std::string& part : comm.gather_bytes(bytes)) {
    ReducedDistances p;
    std::uint64_t n[3];
    std::memcpy(n, part.data(), sizeof n);
    const char* at = part.data() + sizeof n;
    auto take = [&](auto& out, std::uint64_t count) {
      out.resize(count);
      std::memcpy(static_cast<void*>(out.data()), at, count * sizeof(out[0]));
      at += count * sizeof(out[0]);
    };
    take(p.values, n[0]);
    take(p.indices, n[1]);
    take(p.pairs, n[2]);
    parts.push_back(std::move(p));
  }
  return comm.rank() == 0 ? merge_reduced_parts(reduction, rows, parts) : ReducedDistances{};
}

// A rectangle's distances to their places in the file: dense rows (and, for one input's matrix, their
// mirror image below the diagonal), or scipy's condensed form.
void write_tile(const NpyStream& file, const Setup& s, const PairTile& t) {
  const std::size_t item = real_size(t.precision);
  const auto* bytes = static_cast<const unsigned char*>(t.data);
  for (Eigen::Index i = 0; i < t.rows; ++i) {
    const auto gi = static_cast<std::size_t>(t.row0 + i);
    if (!s.condensed()) {
      file.write(gi * s.n2 + static_cast<std::size_t>(t.col0), bytes + static_cast<std::size_t>(i * t.ld) * item,
                 static_cast<std::size_t>(t.cols));
    } else {  // scipy's pdist order: the part of row gi right of the diagonal is contiguous
      const Eigen::Index first = std::max<Eigen::Index>(0, t.row0 + i + 1 - t.col0);
      if (first < t.cols)
        file.write(condensed_index(s.n1, gi, static_cast<std::size_t>(t.col0 + first)),
                   bytes + static_cast<std::size_t>(i * t.ld + first) * item, static_cast<std::size_t>(t.cols - first));
    }
  }
  if (!s.condensed() && t.symmetric && t.row0 != t.col0) {  // the mirror image, one row of it at a time
    std::vector<unsigned char> mirrored(static_cast<std::size_t>(t.rows) * item);
    for (Eigen::Index j = 0; j < t.cols; ++j) {
      for (Eigen::Index i = 0; i < t.rows; ++i)
        std::memcpy(&mirrored[static_cast<std::size_t>(i) * item],
                    bytes + static_cast<std::size_t>(i * t.ld + j) * item, item);
      file.write(static_cast<std::size_t>(t.col0 + j) * s.n2 + static_cast<std::size_t>(t.row0), mirrored.data(),
                 static_cast<std::size_t>(t.rows));
    }
  }
}

// The matrix inline in the results: rows, or the condensed form's flat list.
nlohmann::json matrix_inline(const Matrix& D, bool condensed) {
  if (condensed) {
    std::vector<double> flat;
    for (Eigen::Index i = 0; i < D.rows(); ++i)
      for (Eigen::Index j = i + 1; j < D.cols(); ++j) flat.push_back(D(i, j));
    return flat;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < D.rows(); ++i) rows.push_back(std::vector<double>(D.row(i).begin(), D.row(i).end()));
  return rows;
}

// One call's pairs, as the form says: `res` gets the matrix or the reduction.
PairwiseRun run_form(ExperimentContext& c, const Setup& s, PairwiseDistances& distances, nlohmann::json& res) {
  core::Comm& comm = core::world();
  PairwiseRun run;
  if (s.form->keeps == Keeps::nothing) {
    run = distances.run([](const PairTile&) {});
  } else if (s.form->keeps == Keeps::reduction) {
    ReducedDistances r =
        with_field_prefix(c.params.source(), "params", [&] { return distances.reduce(s.reduction, &run); });
    if (comm.several()) {
      const double before = comm.seconds();
      r = merge_over_ranks(comm, s.reduction, s.X.rows(), r);
      run.total.comm_s += comm.seconds() - before;
    }
    if (comm.rank() == 0) reduced_json(c, *s.form, r, res);  // rank 0 writes every file
  } else if (s.matrix_path) {
    const std::vector<std::size_t> shape =
        s.condensed() ? std::vector<std::size_t>{s.values} : std::vector<std::size_t>{s.n1, s.n2};
    io::SharedNpy file(comm, *s.matrix_path, s.params.precision, shape);
    run = distances.run([&](const PairTile& t) { write_tile(file.file(), s, t); });
    run.total.comm_s += file.commit();
    res["matrix"] = {{"file", s.matrix_path->string()},
                     {"dtype", s.params.precision == Precision::f32 ? "float32" : "float64"},
                     {"shape", s.condensed() ? nlohmann::json{s.values} : nlohmann::json{s.n1, s.n2}}};
  } else {
    res["matrix"] = matrix_inline(distances.matrix(&run), s.condensed());
  }
  return run;
}

}  // namespace pairwise

nlohmann::json shares_json(const std::vector<DeviceShare>& shares, double pairs) {
  nlohmann::json out = nlohmann::json::array();
  for (const DeviceShare& s : shares)
    out.push_back({{"device", s.device},
                   {"rectangles", s.rectangles},
                   {"pairs", s.pairs},
                   {"share", pairs > 0 ? s.pairs / pairs : 0.0},
                   {"timings", s.timings}});
  return out;
}

std::string shares_summary(const std::vector<DeviceShare>& shares, double pairs) {
  std::string out;
  if (shares.size() < 2) return out;
  for (const DeviceShare& d : shares) {
    char line[200];
    std::snprintf(line, sizeof line, "    %s: %d rectangles, %.1f%% of the pairs, busy %.4g ms\n", d.device.c_str(),
                  d.rectangles, pairs > 0 ? 100 * d.pairs / pairs : 0.0, d.timings.wall_s * 1e3);
    out += line;
  }
  return out;
}

AlgorithmReport run_pairwise(ExperimentContext& c) {
  AlgorithmReport report;
  const pairwise::Setup s = pairwise::read_setup(c, report);
  const std::vector<Device> devices = c.devices(s.devices);
  core::Comm& comm = core::world();
  PairwiseRun run;
  Repeats repeats;
  nlohmann::json& res = report.result;
  // Each repeat a whole call: the inputs' upload and the kernels' build, then the pairs.
  repeats.run(c.repeat, "upload", [&] {
    PairwiseDistances distances = with_field_prefix(
        c.params.source(), "params", [&] { return PairwiseDistances(devices, s.X, s.Y ? &*s.Y : nullptr, s.params); });
    core::enter_phase("compute");
    Stopwatch wall;
    run = pairwise::run_form(c, s, distances, res);
    if (comm.several()) {  // every rank's devices, and the pairs they computed
      const double before = comm.seconds();
      run.shares = experiment::gather_shares(run.shares);
      run.pairs = 0;
      for (const DeviceShare& share : run.shares) run.pairs += share.pairs;
      run.total.comm_s += comm.seconds() - before;
      run.total.wall_s = wall.seconds();
    }
    return 0;
  });

  const std::string form = s.form->name;
  res["metric"] = metric_name(s.params.metric);
  res["form"] = form;
  res["shape"] = {s.n1, s.n2};
  res["pairs"] = run.pairs;
  res["block"] = {run.block_rows, run.block_cols};
  res["shares"] = shares_json(run.shares, run.pairs);
  // Form knn with the selection fused in (fused or rows) computes the expanded form in cl/pairwise_knn.cl,
  // whatever the distances' variant.
  const bool fused = form == "knn" && pairwise::fused_search(run.kernel);
  const std::string variant = fused ? "expanded form, knn " + run.kernel.knn : run.kernel.variant;
  report.kernel = {
      {"file", fused ? pairwise::knn_form(run.kernel.knn).file : pairwise::distance_variant(run.kernel.variant).file},
      {"tuning", run.kernel},
      {"tuning_sources", run.tuning_sources},
      {"build_options", run.build_options}};
  report.timings = {{"upload", run.upload}, {"total", run.total}};
  repeats.add_to(report.timings);
  const double flops =
      pairwise::flops(fused || pairwise::uses_inner_products(run.kernel, s.params.metric), s.X.cols(), run.pairs);
  const double kernel_s = run.shares.size() == 1 ? run.total.kernel_s : 0.0;
  report.gflops = {{"flops", flops},
                   {"kernel", kernel_s > 0 ? flops / kernel_s * 1e-9 : 0.0},
                   {"wall", run.total.wall_s > 0 ? flops / run.total.wall_s * 1e-9 : 0.0},
                   {"pairs_per_second", run.total.wall_s > 0 ? run.pairs / run.total.wall_s : 0.0}};

  std::ostringstream summary;
  char line[160];
  std::snprintf(line, sizeof line,
                "  %zu x %zu %s distances (%s), %.0f pairs, variant %s: kernel %.4g ms, wall %.4g ms\n", s.n1, s.n2,
                std::string(metric_name(s.params.metric)).c_str(), form.c_str(), run.pairs, variant.c_str(),
                run.total.kernel_s * 1e3, run.total.wall_s * 1e3);
  summary << line;
  summary << shares_summary(run.shares, run.pairs);
  report.summary = summary.str();
  return report;
}

}  // namespace itercl
