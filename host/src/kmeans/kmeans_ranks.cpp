#include "kmeans/kmeans_ranks.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/centring.hpp"
#include "core/host_memory.hpp"
#include "core/number_text.hpp"
#include "core/phase_clock.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl::kmeans {

namespace {

// Rows per rank of n.
std::vector<std::size_t> rows_per_rank(core::Comm& comm, std::size_t n) {
  std::vector<std::size_t> rows(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r)
    rows[static_cast<std::size_t>(r)] = core::first_row(n, r + 1, comm.size()) - core::first_row(n, r, comm.size());
  return rows;
}

}  // namespace

std::vector<double> scatter_weights(core::Comm& comm, std::span<const double> all, Eigen::Index n) {
  std::int64_t given = !all.empty();
  comm.broadcast(given);
  if (!given) return {};
  return comm.scatterv(all, rows_per_rank(comm, static_cast<std::size_t>(n)));
}

RankRows scatter_rows(core::Comm& comm, const Matrix& all, std::span<const double> all_weights) {
  const double before = comm.seconds();
  std::int64_t shape[2] = {all.rows(), all.cols()};
  comm.broadcast(shape);
  const auto n = static_cast<std::size_t>(shape[0]), d = static_cast<std::size_t>(shape[1]);
  std::vector<std::size_t> values = rows_per_rank(comm, n);
  for (std::size_t& v : values) v *= d;

  RankRows mine;
  mine.n = shape[0];
  mine.first = static_cast<Eigen::Index>(core::first_row(n, comm.rank(), comm.size()));
  const std::vector<double> x =
      comm.scatterv(std::span<const double>(all.data(), comm.rank() == 0 ? n * d : 0), values);
  mine.X = core::HostRows(
      Eigen::Map<const Matrix>(x.data(), static_cast<Eigen::Index>(x.size() / std::max<std::size_t>(d, 1)), shape[1]));
  mine.w = scatter_weights(comm, all_weights, mine.n);
  mine.scatter.comm_s = comm.seconds() - before;
  mine.scatter.wall_s = mine.scatter.comm_s;
  return mine;
}

namespace {

// Per-cluster sums, inertia and changed labels of every rank, summed: one allreduce of k d + k + 2 values.
void sum_over_ranks(core::Comm& comm, ClusterSums& s) {
  const Eigen::Index kd = s.sums.size(), k = s.weights.size();
  std::vector<double> packed(static_cast<std::size_t>(kd + k + 2));
  std::copy(s.sums.data(), s.sums.data() + kd, packed.begin());
  std::copy(s.weights.data(), s.weights.data() + k, packed.begin() + kd);
  packed[static_cast<std::size_t>(kd + k)] = s.inertia;
  packed[static_cast<std::size_t>(kd + k + 1)] = static_cast<double>(s.n_changed);  // exact below 2^53
  comm.allreduce_sum(packed);
  std::copy(packed.begin(), packed.begin() + kd, s.sums.data());
  std::copy(packed.begin() + kd, packed.begin() + kd + k, s.weights.data());
  s.inertia = packed[static_cast<std::size_t>(kd + k)];
  s.n_changed = static_cast<std::int64_t>(packed[static_cast<std::size_t>(kd + k + 1)]);
}

// The farthest points over all ranks: each rank offers its own `take` farthest, every rank picks the
// same `take` of them by the single process's order (farther()).
std::vector<FarPoint> farthest_over_ranks(core::Comm& comm, const LocalRows& mine, std::span<const std::int32_t> labels,
                                          const Matrix& centroids, std::size_t take) {
  const Eigen::Index d = centroids.cols();
  const std::vector<FarPoint> local = farthest_points(mine.X, mine.w, labels, centroids, take, mine.first);
  std::vector<double> packed;  // distance, index, label, weight, x
  for (const FarPoint& f : local) {
    packed.insert(packed.end(), {f.distance, static_cast<double>(f.index), static_cast<double>(f.label), f.weight});
    packed.insert(packed.end(), f.x.data(), f.x.data() + d);
  }
  const std::vector<double> all = comm.allgatherv<double>(packed);
  std::vector<FarPoint> candidates;
  const auto stride = static_cast<std::size_t>(d + 4);
  for (std::size_t at = 0; at + stride <= all.size(); at += stride)
    candidates.push_back({all[at], static_cast<Eigen::Index>(all[at + 1]), static_cast<std::int32_t>(all[at + 2]),
                          all[at + 3], Eigen::Map<const Eigen::RowVectorXd>(all.data() + at + 4, d)});
  take = std::min(take, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(take), candidates.end(),
                    farther);
  candidates.resize(take);
  return candidates;
}

// scikit-learn's _is_same_clustering over the ranks: whether every cluster of `labels` lies within one
// cluster of `other` (the same partition, up to the clusters' numbering, when both have k clusters), on
// every rank the same answer. Each rank maps its own points' labels and reports a conflict; the ranks'
// maps must agree where both map a label.
bool same_clustering(core::Comm& comm, std::span<const std::int32_t> labels, std::span<const std::int32_t> other,
                     int k) {
  const auto uk = static_cast<std::size_t>(k);
  std::vector<std::int64_t> mapping(uk + 1, -1);  // label -> other's label (-1: none seen), then a conflict flag
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::int64_t& to = mapping[static_cast<std::size_t>(labels[i])];
    if (to == -1)
      to = other[i];
    else if (to != other[i])
      mapping[uk] = 1;
  }
  const std::vector<std::int64_t> all = comm.allgatherv<std::int64_t>(mapping);
  std::vector<std::int64_t> merged(uk, -1);
  for (std::size_t at = 0; at < all.size(); at += uk + 1) {
    if (all[at + uk] != -1) return false;
    for (std::size_t c = 0; c < uk; ++c) {
      const std::int64_t to = all[at + c];
      if (to == -1) continue;
      if (merged[c] != -1 && merged[c] != to) return false;
      merged[c] = to;
    }
  }
  return true;
}

struct RankRun {
  Matrix centroids;
  std::vector<std::int32_t> labels;  // this rank's
  double inertia = 0;
  int n_iter = 0, n_relocated = 0;
  bool converged = false;
  std::vector<KMeansIteration> iterations;
  Timings timings;
};

// Lloyd's iterations from `centroids`, with scikit-learn's stopping rules, on the values summed over the
// ranks. `report` is the progress event of this run, completed and sent after every iteration.
RankRun lloyd_over_ranks(core::Comm& comm, std::optional<KMeansAssignment>& assignment, const LocalRows& mine,
                         Matrix centroids, const KMeansParams& p, double scaled_tol, ProgressEvent report,
                         const Stopwatch& fit_clock) {
  RankRun run;
  // The update on the device: per-cluster sums come back, the labels stay there (compared there with
  // the previous ones) and come back only for a relocation and at the end. Otherwise the seed's split.
  const bool on_device = assignment && assignment->kernel().update == "device";
  const auto rows = static_cast<std::size_t>(on_device ? 0 : mine.X.rows());
  std::vector<std::int32_t> previous = host_array<std::int32_t>(rows, -1, "the previous iteration's labels");
  if (on_device) assignment->forget_labels();
  auto assign = [&](Timings& t) {
    return assignment ? assignment->assign(centroids, &t) : std::span<const std::int32_t>{};
  };
  Matrix next;
  std::span<const std::int32_t> labels;
  bool labels_stable = false;
  for (int it = 0; it < p.max_iter; ++it) {
    Stopwatch wall;
    const double comm_before = comm.seconds();
    Timings t;
    ClusterSums s;
    if (on_device) {
      KMeansSums d = assignment->assign_and_sum(centroids, &t);
      // The device's sums are of w x: about the centroids as the host's are.
      d.sums -= d.weights.asDiagonal() * centroids;
      s = {std::move(d.sums), centroids, std::move(d.weights), d.inertia, d.n_changed};
    } else {
      labels = assign(t);
    }
    Stopwatch host;
    if (!on_device) s = cluster_sums(mine.X, mine.w, labels, previous, centroids);
    sum_over_ranks(comm, s);
    const std::vector<Eigen::Index> empty = empty_clusters(s);
    // Relocation needs every point's distance: on the device path the labels come up for it.
    if (!empty.empty() && on_device) labels = assignment->labels(&t);
    const std::vector<FarPoint> farthest =
        empty.empty() ? std::vector<FarPoint>{} : farthest_over_ranks(comm, mine, labels, centroids, empty.size());
    const UpdateOutcome u = finish_update(s, empty, farthest, centroids, next);
    t.comm_s = comm.seconds() - comm_before;
    t.host_s = host.seconds() - t.comm_s;
    t.wall_s = wall.seconds();
    run.iterations.push_back({u.inertia, u.n_relocated, t});
    run.timings += t;
    run.n_relocated += u.n_relocated;
    run.n_iter = it + 1;
    // Strict convergence: the update reproduced the centroids just used; else the shift within tol.
    const bool strict = u.n_changed == 0, within_tol = !strict && u.shift_sq <= scaled_tol;
    if (p.progress) {
      const std::string stopping =
          strict       ? "strict convergence"
          : within_tol ? "center shift " + shortest_text(u.shift_sq) + " within tolerance " + shortest_text(scaled_tol)
                       : std::string();
      report.iteration = run.n_iter;
      report.objective = u.inertia;
      report.elapsed_s = fit_clock.seconds();
      report.stopping = stopping;
      p.progress(report);
    }
    std::swap(centroids, next);
    if (strict || within_tol) {
      labels_stable = strict;
      run.converged = true;
      break;
    }
  }
  // Unless the labels were already those of the final centroids, assign once more so that labels and
  // inertia describe the centroids returned. On the device path the labels come up here, once.
  const core::Phase reading("readback");
  {
    Stopwatch wall;
    Timings t;
    if (on_device) {  // the final centroids' labels, the last step's or one more's, come out once
      if (!labels_stable) assignment->assign_and_sum(centroids, &t);
      run.labels = assignment->copy_labels(&t);
    } else {
      if (!labels_stable) labels = assign(t);
      run.labels = host_copy(labels, "the labels");
    }
    t.wall_s = wall.seconds();
    run.timings += t;
  }
  Stopwatch host;
  const double comm_before = comm.seconds();
  double inertia = kmeans_inertia(mine.X, mine.w, run.labels, centroids);
  comm.allreduce_sum(std::span<double>(&inertia, 1));
  run.inertia = inertia;
  run.timings.comm_s += comm.seconds() - comm_before;
  run.timings.host_s += host.seconds();
  run.centroids = std::move(centroids);
  return run;
}

}  // namespace

void check_rows(core::Comm& comm, const KMeansParams& p, const LocalRows& mine) {
  p.validate();
  // Each rank's columns, stored type and total count against rank 0's (per-rank counts may differ): ranks
  // that read different files of one name would otherwise label with another shape.
  if (comm.several()) {
    // A rank without rows has no columns or type to compare (-1).
    const bool rows = mine.X.rows() > 0;
    const std::int64_t shape[3] = {rows ? mine.X.cols() : -1, rows ? static_cast<std::int64_t>(mine.X.precision()) : -1,
                                   mine.n};
    const std::vector<std::int64_t> all = comm.allgatherv<std::int64_t>(std::span<const std::int64_t>(shape, 3));
    auto differs = [&](std::size_t r, std::size_t k) {
      return all[3 * r + k] >= 0 && all[k] >= 0 && all[3 * r + k] != all[k];
    };
    auto described = [&](std::size_t r) {
      const std::int64_t* v = all.data() + 3 * r;
      return std::to_string(v[2]) + " points" +
             (v[0] < 0 ? std::string()
                       : " of " + std::to_string(v[0]) + " " +
                             std::string(precision_name(static_cast<Precision>(v[1]))) + " values");
    };
    for (std::size_t r = 1; r < all.size() / 3; ++r)
      if (differs(r, 0) || differs(r, 1) || all[3 * r + 2] != all[2])
        throw InputError("data: rank " + std::to_string(r) + " reads " + described(r) + ", rank 0 " + described(0) +
                         "; every rank must read the same data");
  }
  if (!mine.X.all_finite()) throw InputError("data: contains NaN or infinity");
  std::int64_t usable = mine.X.rows();
  if (!mine.w.empty()) {
    if (static_cast<Eigen::Index>(mine.w.size()) != mine.X.rows())
      throw ParamError("sample_weight", "has " + std::to_string(mine.w.size()) + " weights for " +
                                            std::to_string(mine.X.rows()) + " samples");
    usable = 0;
    for (std::size_t i = 0; i < mine.w.size(); ++i) {
      if (!std::isfinite(mine.w[i]) || mine.w[i] < 0)
        throw ParamError("sample_weight", "weight " + std::to_string(mine.first + static_cast<Eigen::Index>(i)) +
                                              " is " + number_text(mine.w[i]) +
                                              "; weights must be finite and non-negative");
      usable += mine.w[i] > 0;
    }
  }
  comm.allreduce_sum(std::span<std::int64_t>(&usable, 1));
  if (mine.n < 1 || mine.X.cols() < 1) throw InputError("data: no samples");
  if (p.n_clusters > usable)
    throw ParamError("n_clusters", std::to_string(p.n_clusters) + " is more than the " + std::to_string(usable) +
                                       (mine.w.empty() ? " samples" : " samples of positive weight") + " in the data");
  if (p.init == KMeansInit::given && p.init_centroids.cols() != mine.X.cols())
    throw ParamError("init", "centroids have " + std::to_string(p.init_centroids.cols()) + " features, the data " +
                                 std::to_string(mine.X.cols()));
}

Eigen::RowVectorXd sample_mean(core::Comm& comm, const LocalRows& mine) {
  constexpr Eigen::Index kSample = 1024;
  const Eigen::Index s = std::min(mine.n, kSample), d = mine.X.cols();
  std::vector<double> rows;  // this rank's sampled rows, in order
  mine.X.visit([&](const auto& stored) {
    for (Eigen::Index q = 0; q < s; ++q) {
      const Eigen::Index i = q * mine.n / s;  // increasing: s <= n
      if (i >= mine.first && i < mine.first + stored.rows()) {
        const Eigen::RowVectorXd x = stored.row(i - mine.first).template cast<double>();
        rows.insert(rows.end(), x.data(), x.data() + d);
      }
    }
  });
  const std::vector<double> all = comm.allgatherv<double>(rows);
  Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(d);
  for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(d))
    sum += Eigen::Map<const Eigen::RowVectorXd>(all.data() + at, d);
  const Eigen::RowVectorXd mean = sum / static_cast<double>(std::max<Eigen::Index>(s, 1));
  // The sample's spread sets the origin's grid (core/centring.hpp): the same on every rank.
  Eigen::RowVectorXd spread = Eigen::RowVectorXd::Zero(d);
  for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(d))
    spread = spread.cwiseMax((Eigen::Map<const Eigen::RowVectorXd>(all.data() + at, d) - mean).cwiseAbs());
  return core::centring_origin(mean, spread);
}

double scaled_tol(core::Comm& comm, const LocalRows& mine, const Eigen::RowVectorXd& origin, double tol) {
  if (tol == 0) return 0;
  const Eigen::Index d = mine.X.cols();
  // Per column: the sum and the sum of squares of x - origin over this rank's rows; origin lies near
  // the mean, so the variance s2 / n - (s1 / n)^2 loses nothing to cancellation.
  std::vector<double> sums(static_cast<std::size_t>(2 * d), 0.0);
  mine.X.visit([&](const auto& stored) {
    const auto centred = stored.template cast<double>().rowwise() - origin;  // an expression: no copy of the rows
    Eigen::Map<Eigen::RowVectorXd>(sums.data(), d) = centred.colwise().sum();
    Eigen::Map<Eigen::RowVectorXd>(sums.data() + d, d) = centred.array().square().colwise().sum();
  });
  const std::vector<double> all = comm.sum_in_rank_order(sums);
  const auto n = static_cast<double>(mine.n);
  double variance_sum = 0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const double mean = all[static_cast<std::size_t>(j)] / n;
    variance_sum += std::max(all[static_cast<std::size_t>(d + j)] / n - mean * mean, 0.0);
  }
  return tol * variance_sum / static_cast<double>(d);
}

KMeansResult fit_over_ranks(core::Comm& comm, const Device& device, const KMeansParams& p, const LocalRows& mine,
                            LabelsTo labels) {
  core::PhaseClock clock("checks");
  const bool root = comm.rank() == 0;
  check_rows(comm, p, mine);
  core::enter_phase("centring");
  // Every rank centres its rows on the same origin whatever the number of ranks: each point is then
  // rounded to the device's precision exactly as in a single-process run, and so labelled the same.
  const Eigen::RowVectorXd origin = sample_mean(comm, mine);
  // A rank without rows assigns nothing; rank 0 still builds the kernel over one row (the origin), to
  // report it.
  std::optional<KMeansAssignment> assignment;
  const Matrix one_row = origin;
  if (mine.on_device)
    assignment.emplace(device, *mine.on_device, p.precision, p.kernel);
  else if (mine.X.rows() > 0)
    assignment.emplace(device, mine.X, p.precision, p.kernel, &origin);
  else if (root)
    assignment.emplace(device, RowsView(one_row), p.precision, p.kernel, &origin);
  const bool assigns = mine.X.rows() > 0;
  core::enter_phase("upload");
  if (assigns) assignment->set_sample_weight(mine.w);
  std::optional<KMeansAssignment> none;

  core::enter_phase("tolerance");
  const double tolerance = scaled_tol(comm, mine, origin, p.tol);
  const int n_init = p.runs();

  KMeansResult best;
  if (assignment) {
    best.upload = assignment->upload_timings();
    best.kernel = assignment->kernel();
    best.build_options = assignment->build_options();
    best.tuning_sources = assignment->tuning_sources();
  }
  best.upload += mine.scatter;
  Rng rng(p.random_state);  // the same draws on every rank
  const Stopwatch fit_clock;
  std::vector<std::int32_t> best_labels;
  for (int r = 0; r < n_init; ++r) {
    Stopwatch init_wall;
    const double comm_before = comm.seconds();
    core::enter_phase("init");
    Matrix start(p.n_clusters, mine.X.cols());
    if (p.init == KMeansInit::given)
      start = p.init_centroids;
    else
      start = p.init == KMeansInit::random ? init_random(comm, mine, p.n_clusters, rng)
                                           : init_kmeans_plus_plus(comm, mine, p.n_clusters, rng);
    Timings init;
    init.comm_s = comm.seconds() - comm_before;
    init.wall_s = init_wall.seconds();
    init.host_s = init.wall_s - init.comm_s;
    core::enter_phase("iterations");
    const ProgressEvent report{
        .algorithm = "kmeans", .run = r + 1, .runs = n_init, .max_iterations = p.max_iter, .objective_name = "inertia"};
    RankRun run =
        lloyd_over_ranks(comm, assigns ? assignment : none, mine, std::move(start), p, tolerance, report, fit_clock);
    run.timings += init;
    best.init_inertia.push_back(run.inertia);
    best.total += run.timings;
    // As scikit-learn: a run replaces the best only if its inertia is lower and its clustering another.
    // Two runs that reach one clustering (numbered otherwise) have inertias equal but for rounding,
    // which differs with the ranks' split: the earlier run stays, on any number of ranks.
    if (r == 0 || (run.inertia < best.inertia && !same_clustering(comm, run.labels, best_labels, p.n_clusters))) {
      best.centroids = std::move(run.centroids);
      best_labels = std::move(run.labels);
      best.inertia = run.inertia;
      best.n_iter = run.n_iter;
      best.converged = run.converged;
      best.n_relocated = run.n_relocated;
      best.iterations = std::move(run.iterations);
      best.best_init = r;
    }
  }
  if (assignment) best.streaming = assignment->streaming();  // chunks sized by the first iteration
  core::enter_phase("readback");
  const double comm_before = comm.seconds();
  best.labels = labels == LabelsTo::rank0 ? comm.gatherv(std::move(best_labels)) : std::move(best_labels);
  best.total.comm_s += comm.seconds() - comm_before;
  assignment.reset();  // its buffers' release is part of the call
  best.phases = clock.phases();
  return best;
}

}  // namespace itercl::kmeans
