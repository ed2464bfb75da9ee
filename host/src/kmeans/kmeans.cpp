// KMeans::fit: Lloyd iterations with the assignment on the device and the update on the host.
#include "itercl/kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl {
void KMeansParams::validate(const Matrix& X, std::span<const double> w) const {
  validate();
  const KMeansParams& p = *this;
  if (X.rows() < 1 || X.cols() < 1) throw InputError("data: no samples");
  if (!X.allFinite()) throw InputError("data: contains NaN or infinity");
  Eigen::Index usable = X.rows();
  if (!w.empty()) {
    if (static_cast<Eigen::Index>(w.size()) != X.rows())
      throw ParamError("sample_weight",
                       "has " + std::to_string(w.size()) + " weights for " + std::to_string(X.rows()) + " samples");
    usable = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (!std::isfinite(w[i]) || w[i] < 0)
        throw ParamError("sample_weight", "weight " + std::to_string(i) + " is " + number_text(w[i]) +
                                              "; weights must be finite and non-negative");
      usable += w[i] > 0;
    }
  }
  if (p.n_clusters > usable)
    throw ParamError("n_clusters", std::to_string(p.n_clusters) + " is more than the " + std::to_string(usable) +
                                       (w.empty() ? " samples" : " samples of positive weight") + " in the data");
  if (p.init == KMeansInit::given && p.init_centroids.cols() != X.cols())
    throw ParamError("init", "centroids have " + std::to_string(p.init_centroids.cols()) + " features, the data " +
                                 std::to_string(X.cols()));
}

namespace kmeans {

struct Run {
  Matrix centroids;
  std::vector<std::int32_t> labels;
  double inertia = 0;
  int n_iter = 0, n_relocated = 0;
  bool converged = false;
  std::vector<KMeansIteration> iterations;
  Timings timings;
};

// Lloyd's iterations from `centroids`, with scikit-learn's stopping rules. `report` is the progress
// event of this run, completed and sent after every iteration.
Run lloyd(KMeansAssignment& assignment, const Matrix& X, std::span<const double> w, Matrix centroids,
          const KMeansParams& p, double scaled_tol, ProgressEvent report, const Stopwatch& fit_clock) {
  Run run;
  std::vector<std::int32_t> previous =
      host_array<std::int32_t>(static_cast<std::size_t>(X.rows()), -1, "the previous iteration's labels");
  Matrix next;
  std::span<const std::int32_t> labels;
  bool labels_stable = false;
  for (int it = 0; it < p.max_iter; ++it) {
    Stopwatch wall;
    Timings t;
    labels = assignment.assign(centroids, &t);
    Stopwatch host;
    const UpdateOutcome u = update_centroids(X, w, labels, previous, centroids, next);
    t.host_s = host.seconds();
    t.wall_s = wall.seconds();
    run.iterations.push_back({u.inertia, u.n_relocated, t});
    run.timings += t;
    run.n_relocated += u.n_relocated;
    run.n_iter = it + 1;
    if (p.progress) {
      report.iteration = run.n_iter;
      report.objective = u.inertia;
      report.elapsed_s = fit_clock.seconds();
      p.progress(report);
    }
    std::swap(centroids, next);
    if (u.n_changed == 0) {  // strict convergence: the update reproduced the centroids just used
      labels_stable = run.converged = true;
      break;
    }
    if (u.shift_sq <= scaled_tol) {
      run.converged = true;
      break;
    }
  }
  // Unless the labels were already those of the final centroids, assign once more so that labels and
  // inertia describe the centroids returned.
  if (!labels_stable) {
    Stopwatch wall;
    Timings t;
    labels = assignment.assign(centroids, &t);
    t.wall_s = wall.seconds();
    run.timings += t;
  }
  run.labels = host_array<std::int32_t>(labels.size(), 0, "the labels returned");
  std::copy(labels.begin(), labels.end(), run.labels.begin());
  Stopwatch host;
  run.inertia = kmeans_inertia(X, w, run.labels, centroids);
  run.timings.host_s += host.seconds();
  run.centroids = std::move(centroids);
  return run;
}

}  // namespace kmeans

void KMeansParams::validate() const {
  if (n_clusters < 1) throw ParamError("n_clusters", "expected an integer >= 1, got " + std::to_string(n_clusters));
  if (n_init < 0) throw ParamError("n_init", "expected an integer >= 1 (or \"auto\"), got " + std::to_string(n_init));
  if (max_iter < 1) throw ParamError("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  if (!(tol >= 0) || !std::isfinite(tol)) throw ParamError("tol", "expected a number >= 0, got " + number_text(tol));
  kernel.validate();
  if (init == KMeansInit::given) {
    if (init_centroids.rows() != n_clusters)
      throw ParamError("init", "has " + std::to_string(init_centroids.rows()) +
                                   " centroids for n_clusters = " + std::to_string(n_clusters));
    if (!init_centroids.allFinite()) throw ParamError("init", "centroids contain NaN or infinity");
    if (n_init > 1)
      throw ParamError("n_init",
                       std::to_string(n_init) + " runs from the same given centroids would be identical; use 1");
  }
}

double kmeans_scaled_tol(const Matrix& X, double tol) {
  if (tol == 0 || X.rows() == 0) return 0;
  const Eigen::RowVectorXd mean = X.colwise().mean();
  const double variance_sum = (X.rowwise() - mean).array().square().sum() / static_cast<double>(X.rows());
  return tol * variance_sum / static_cast<double>(X.cols());
}

KMeans::KMeans(const Device& device, KMeansParams params) : device_(device), params_(std::move(params)) {
  params_.validate();
  device_.require(params_.precision);
}

KMeansResult KMeans::fit(const Matrix& X, std::span<const double> sample_weight) const {
  const KMeansParams& p = params_;
  p.validate(X, sample_weight);
  KMeansAssignment assignment(device_, X, p.precision, p.kernel);
  const double scaled_tol = kmeans_scaled_tol(X, p.tol);
  const int n_init = p.runs();

  KMeansResult best;
  best.upload = assignment.upload_timings();
  best.kernel = assignment.kernel();
  best.build_options = assignment.build_options();
  best.tuning_sources = assignment.tuning_sources();
  Rng rng(p.random_state);
  const Stopwatch fit_clock;
  for (int r = 0; r < n_init; ++r) {
    Stopwatch init_wall;
    Matrix start = p.init == KMeansInit::given    ? p.init_centroids
                   : p.init == KMeansInit::random ? kmeans::init_random(X, sample_weight, p.n_clusters, rng)
                                                  : kmeans::init_kmeans_plus_plus(X, sample_weight, p.n_clusters, rng);
    const double init_s = init_wall.seconds();
    const ProgressEvent report{
        .algorithm = "kmeans", .run = r + 1, .runs = n_init, .max_iterations = p.max_iter, .objective_name = "inertia"};
    kmeans::Run run = kmeans::lloyd(assignment, X, sample_weight, std::move(start), p, scaled_tol, report, fit_clock);
    run.timings.host_s += init_s;
    run.timings.wall_s += init_s;
    best.init_inertia.push_back(run.inertia);
    best.total += run.timings;
    if (r == 0 || run.inertia < best.inertia) {
      best.centroids = std::move(run.centroids);
      best.labels = std::move(run.labels);
      best.inertia = run.inertia;
      best.n_iter = run.n_iter;
      best.converged = run.converged;
      best.n_relocated = run.n_relocated;
      best.iterations = std::move(run.iterations);
      best.best_init = r;
    }
  }
  return best;
}

}  // namespace itercl
