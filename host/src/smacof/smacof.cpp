// Smacof::fit: the SMACOF loop with scikit-learn 1.7's stopping rule over a SmacofDevice, on one device
// or over several MPI ranks (smacof_ranks.hpp).
#include "itercl/smacof.hpp"

#include <cmath>
#include <limits>

#include "core/comm.hpp"
#include "core/number_text.hpp"
#include "core/phase_clock.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_fit.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_ranks.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl {
namespace smacof {

struct Run {
  Matrix embedding;
  double stress = 0, squared_distances = 0;
  int n_iter = 0;
  bool converged = false;
  std::vector<SmacofIteration> iterations;
  Timings timings;
};

// X_1, X_2, ... from x0 until (stress_old - stress) / (1/2 sum w d^2) < eps, as scikit-learn 1.7 (the
// first test after the second iteration), or max_iter.
// `report` is this run's progress event, completed and sent after every iteration.
Run run_from(SmacofDevice& device, const Matrix& x0, const SmacofParams& p, ProgressEvent report,
             const Stopwatch& fit_clock) {
  Run run;
  device.start(x0, &run.timings);
  const bool ahead = device.ahead_pays();
  double previous = 0;
  for (int it = 0; it < p.max_iter; ++it) {
    Timings t;
    const StressSums s = device.iterate(&t, ahead && it + 1 < p.max_iter);
    if (!std::isfinite(s.stress) || !std::isfinite(s.squared_distances))
      throw RuntimeError("iteration " + std::to_string(it + 1) + ": the stress overflowed precision " +
                         std::string(precision_name(p.precision)) + "; rescale the data or use precision double");
    if (!(s.squared_distances > 0))
      throw RuntimeError("iteration " + std::to_string(it + 1) + ": the embedding collapsed to a single point");
    run.iterations.push_back({s.stress, t, s.squared_distances});
    run.timings += t;
    run.n_iter = it + 1;
    run.stress = s.stress;
    run.squared_distances = s.squared_distances;
    if (p.progress) {
      report.iteration = run.n_iter;
      report.objective = s.stress;
      report.elapsed_s = fit_clock.seconds();
      p.progress(report);
    }
    if (it > 0 && p.eps > 0 && (previous - s.stress) / s.squared_distances < p.eps) {
      run.converged = true;
      break;
    }
    previous = s.stress;
  }
  const core::Phase reading("readback");
  Stopwatch read;
  run.embedding = device.embedding();
  run.timings.wall_s += read.seconds();
  return run;
}

SmacofResult fit_on(SmacofDevice& device, const SmacofParams& p, Eigen::Index n, const Matrix& classical) {
  SmacofResult best;
  best.upload = device.upload_timings();
  best.kernel = device.kernel();
  best.tuning_sources = device.tuning_sources();
  best.build_options = device.build_options();
  best.delta_buffers = device.delta_buffers();
  Rng rng(p.random_state);
  const Stopwatch fit_clock;
  for (int r = 0; r < p.n_init; ++r) {
    core::enter_phase("init");
    const Matrix start = p.init == SmacofInit::given       ? p.init_embedding
                         : p.init == SmacofInit::classical ? classical
                                                           : random_init(n, p.n_components, rng);
    const ProgressEvent report{.algorithm = "smacof",
                               .run = r + 1,
                               .runs = p.n_init,
                               .max_iterations = p.max_iter,
                               .objective_name = "stress"};
    core::enter_phase("iterations");
    Run run = run_from(device, start, p, report, fit_clock);
    best.init_stress.push_back(run.stress);
    best.total += run.timings;
    if (r == 0 || run.stress < best.stress) {
      best.embedding = std::move(run.embedding);
      best.stress = run.stress;
      best.normalized_stress = std::sqrt(run.stress / run.squared_distances);
      best.n_iter = run.n_iter;
      best.converged = run.converged;
      best.iterations = std::move(run.iterations);
      best.best_init = r;
    }
  }
  return best;
}

}  // namespace smacof

void SmacofParams::validate() const {
  if (n_components < 1 || n_components > smacof::kMaxComponents)
    throw ParamError("n_components", "expected an integer from 1 to " + std::to_string(smacof::kMaxComponents) +
                                         ", got " + std::to_string(n_components));
  if (max_iter < 1) throw ParamError("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  if (!(eps >= 0) || !std::isfinite(eps)) throw ParamError("eps", "expected a number >= 0, got " + number_text(eps));
  if (n_init < 1) throw ParamError("n_init", "expected an integer >= 1, got " + std::to_string(n_init));
  kernel.validate();
  if (init != SmacofInit::random && n_init > 1)
    throw ParamError("n_init", std::to_string(n_init) + " runs from the same " +
                                   (init == SmacofInit::given ? "given" : "classical") +
                                   " start would be identical; use 1 (or init random)");
  if (init == SmacofInit::given) {
    if (init_embedding.cols() != n_components)
      throw ParamError("init", "has " + std::to_string(init_embedding.cols()) +
                                   " columns for n_components = " + std::to_string(n_components));
    if (!init_embedding.allFinite()) throw ParamError("init", "contains NaN or infinity");
    if (init_embedding.rows() > 1 && (init_embedding.rowwise() - init_embedding.row(0)).cwiseAbs().maxCoeff() == 0)
      throw ParamError("init", "all points coincide: every distance is 0, so the Guttman transform is 0");
  }
}

Smacof::Smacof(const Device& device, SmacofParams params) : device_(device), params_(std::move(params)) {
  params_.validate();
  device_.require(params_.precision);
}

SmacofResult Smacof::fit(const Matrix& dissimilarities, const Matrix& weights) const {
  // The checks, the dissimilarities' upload (or build on the device) and the program builds, then the runs.
  core::PhaseClock clock("upload");
  SmacofResult r = SmacofDissimilarities(device_, dissimilarities, weights, params_).fit();
  r.phases = clock.phases();
  return r;
}

void check_dissimilarity_metric(Metric m) {
  if (m != Metric::euclidean && m != Metric::sqeuclidean && m != Metric::cityblock)
    throw ParamError("metric", "dissimilarities from vectors are euclidean, sqeuclidean or cityblock; got \"" +
                                   std::string(metric_name(m)) + "\"");
}

SmacofResult Smacof::fit_vectors(const RowsView& vectors, Metric metric, const Matrix& weights) const {
  // The checks, the dissimilarities' upload (or build on the device) and the program builds, then the runs.
  core::PhaseClock clock("upload");
  SmacofResult r = SmacofDissimilarities::from_vectors(device_, vectors, metric, weights, params_).fit();
  r.phases = clock.phases();
  return r;
}

SmacofResult Smacof::fit_vectors(const Ranks& ranks, const RowsView& vectors, Metric metric) const {
  core::PhaseClock clock("upload");
  core::Comm& comm = ranks.comm();
  // Every rank builds its rows of the dissimilarities from all the vectors, as `itercl run` does over
  // ranks: each rank's rows in double (a float widens exactly), gathered in rank order.
  std::vector<double> mine(static_cast<std::size_t>(vectors.rows() * vectors.cols()));
  vectors.visit([&](const auto& stored) {
    Eigen::Map<Matrix>(mine.data(), vectors.rows(), vectors.cols()) = stored.template cast<double>();
  });
  const core::Comm::RowsPlace place = comm.place_rows(vectors.rows());
  const std::vector<double> values = comm.allgatherv<double>(mine);
  const Matrix all = Eigen::Map<const Matrix>(values.data(), place.total, vectors.cols());
  SmacofResult r = smacof::fit_vectors_over_ranks(comm, device_, params_, all, metric);
  r.embedding = Matrix(r.embedding.middleRows(place.first, vectors.rows()));  // this rank's rows
  r.phases = clock.phases();
  return r;
}

SmacofResult Smacof::fit_vectors(const DeviceRows& vectors, Metric metric, const Matrix& weights) const {
  // The checks, the dissimilarities' upload (or build on the device) and the program builds, then the runs.
  core::PhaseClock clock("upload");
  SmacofResult r = SmacofDissimilarities::from_vectors(device_, vectors, metric, weights, params_).fit();
  r.phases = clock.phases();
  return r;
}

namespace smacof {

void check_ranks_params(const SmacofParams& p, bool from_vectors, Metric metric) {
  if (p.init == SmacofInit::classical && !(from_vectors && metric == Metric::euclidean))
    throw ParamError("init",
                     "the classical start needs the whole dissimilarity matrix in one place, which over "
                     "several MPI ranks it never is (only euclidean distances from vectors have it, as "
                     "their principal components); use \"random\" or a given start, or run on one rank");
}

SmacofResult fit_rows_over_ranks(core::Comm& comm, const Device& device, const SmacofParams& p, const Rectangle& read,
                                 Eigen::Index first, Eigen::Index rows, Eigen::Index n) {
  check_ranks_params(p, false, Metric::euclidean);
  check_init(p, n);
  // A rank's slices of packed storage are diagonals of the matrix, which a file holds along its rows: each
  // rank reads its rows instead, in full storage.
  if (p.kernel.packed == YesNo::yes)
    throw ParamError("kernel.packed",
                     "over several MPI ranks packed storage is built on each rank's device from vectors "
                     "(data.kind \"vectors\"); a dissimilarity file is read as each rank's block of rows, in full "
                     "storage: leave it unset or false, or run on one rank");
  SmacofKernel kernel = p.kernel;
  kernel.packed = YesNo::no;
  SmacofDevice blocks(device, kernel, {.n = n, .dim = p.n_components, .precision = p.precision},
                      {.comm = &comm, .first = first, .rows = rows});
  // The values are non-negative once checked: the largest is positive unless all are 0.
  double largest = 0;
  blocks.upload_dissimilarities([&](Eigen::Index r0, Eigen::Index count, Eigen::Index c0, Eigen::Index columns) {
    Matrix values = read(r0, count, c0, columns);
    if (values.size()) largest = std::max(largest, values.maxCoeff());
    return values;
  });
  for (double theirs : comm.allgatherv<double>(std::span<const double>(&largest, 1)))
    largest = std::max(largest, theirs);
  if (!(largest > 0)) throw InputError("dissimilarities: all zero, nothing to embed");
  check_range(largest, n, p.precision, "dissimilarities");
  return fit_on(blocks, p, n, Matrix());
}

SmacofResult fit_vectors_over_ranks(core::Comm& comm, const Device& device, const SmacofParams& p,
                                    const RowsView& vectors, Metric metric) {
  check_ranks_params(p, true, metric);
  check_vectors(vectors, metric, p);
  const Eigen::Index n = vectors.rows();
  const auto first = static_cast<Eigen::Index>(core::first_row(static_cast<std::size_t>(n), comm.rank(), comm.size()));
  const auto end =
      static_cast<Eigen::Index>(core::first_row(static_cast<std::size_t>(n), comm.rank() + 1, comm.size()));
  SmacofDevice blocks(device, p.kernel, vectors_problem(p, vectors.rows(), vectors.cols(), metric, false),
                      {.comm = &comm, .first = first, .rows = end - first});
  blocks.build_dissimilarities(vectors);
  // Rank 0's principal components for every rank, so that all start alike.
  Matrix classical;
  if (p.init == SmacofInit::classical) {
    classical = comm.rank() == 0 ? classical_scaling_of_vectors(vectors, p.n_components) : Matrix(n, p.n_components);
    comm.broadcast_bytes(classical.data(), static_cast<std::size_t>(classical.size()) * sizeof(double));
  }
  return fit_on(blocks, p, n, classical);
}

}  // namespace smacof
}  // namespace itercl
