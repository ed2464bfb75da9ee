// Metric SMACOF multidimensional scaling (seed 004, section 4; Borg & Groenen, Modern Multidimensional
// Scaling, ch. 8) on a device: the dissimilarities stay resident, each iteration moves only the
// embedding's stress partials. Parameters, stress and stopping rule follow scikit-learn 1.7's smacof,
// plus weights (w_ij = 0 marks a missing dissimilarity).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/device_rows.hpp"
#include "itercl/kernel_choice.hpp"
#include "itercl/matrix.hpp"
#include "itercl/metric.hpp"
#include "itercl/mpi.hpp"
#include "itercl/progress.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// The kernels' variant, storage and tuning. Unset fields ("auto", 0, YesNo::automatic:
// itercl/kernel_choice.hpp) take the tuned value for this device (tuning/smacof.json, itercl/tuning.hpp)
// or, for slices, one derived from it and the problem; SmacofResult::kernel reports the values used.
struct SmacofKernel {
  // "naive", "local_x", "colmajor" (the seed's steps), "fused" (one pass over delta per iteration, read
  // down the columns), "fused_rows" (the same along the rows, for CPUs), or "auto": the fastest correct
  // variant measured for the device type (README.md, "Choosing the kernel").
  std::string variant = "auto";
  // Keep each pair once on the device (N * floor(N/2) values instead of N * N): half the memory, so a
  // larger N fits, and half the bytes an iteration reads. Every variant but fused_rows reads it. Unset
  // (automatic): packed from packed_from points on, where the device's measurements found it faster.
  YesNo packed = YesNo::automatic;
  // fused over packed storage: each unordered pair's terms computed once, the other row's share added
  // through local memory (half the arithmetic; GPUs), instead of every ordered pair's (CPUs). Unset
  // (automatic): the device's, where packed storage and fused are what resolve chose.
  YesNo symmetric = YesNo::automatic;
  // Unset packed: packed storage from this many points on, on one device (0: the tuned value for this
  // device; a tuned 0 is never), or where full storage does not fit the device (over MPI ranks, the ranks'
  // devices) but packed storage does. Over several MPI ranks a dissimilarity file is read in full storage.
  int packed_from = 0;
  int work_group_size = 0;
  int slices = 0;  // fused: the columns are split into this many slices, each a row of work-groups
  // fused, slices unset: slices are added until the range has this many work-groups per compute unit.
  int groups_per_unit = 0;
  // fused: rows each work-item computes (WG_SIZE apart, so reads still coalesce): more independent
  // loads of delta in flight, and each x_j loaded once for all of them.
  int rows_per_item = 0;

  void validate() const;  // the checks that need no device; throws ParamError("kernel.<field>", ...)
};
void to_json(nlohmann::json& j, const SmacofKernel& k);
void from_json(const nlohmann::json& j, SmacofKernel& k);  // unknown fields are ParamErrors
std::ostream& operator<<(std::ostream& out, const SmacofKernel& k);

enum class SmacofInit { random, classical, given };

// The metrics dissimilarities are computed from vectors with (Smacof::fit_vectors): euclidean,
// sqeuclidean, cityblock. Throws ParamError("metric", ...) for the others.
void check_dissimilarity_metric(Metric m);

struct SmacofParams {
  int n_components = 2;
  int max_iter = 300;
  // Stop when (stress_old - stress) / (1/2 sum_ij w_ij d_ij^2) < eps (scikit-learn 1.7's rule, d the
  // embedding's distances). 0 runs exactly max_iter iterations.
  double eps = 1e-6;
  // random: uniform in [0, 1) (as scikit-learn); classical: Torgerson's scaling; given: init_embedding.
  SmacofInit init = SmacofInit::random;
  Matrix init_embedding;  // N x n_components, for init == given
  // Runs from different random starts; the lowest final stress wins (scikit-learn 1.9's default, 1).
  int n_init = 1;
  std::uint64_t random_state = 0;
  Precision precision = Precision::f32;  // of the device's arithmetic; the host works in double
  SmacofKernel kernel;
  ProgressCallback progress{};  // told after every iteration (objective: the iteration's raw stress)

  void validate() const;  // throws ParamError naming the field
};

struct SmacofIteration {
  double stress;    // raw stress of this iteration's embedding
  Timings timings;  // kernels, the stress partials' transfer, wall
  // 1/2 sum_{i != j} w_ij d_ij^2 of this iteration's embedding: the stopping rule's denominator.
  double squared_distances = 0;
};

struct SmacofResult {
  Matrix embedding;              // N x n_components
  double stress = 0;             // 1/2 sum_{i != j} w_ij (d_ij - delta_ij)^2 of `embedding`
  double normalized_stress = 0;  // Stress-1: sqrt(stress / (1/2 sum_{i != j} w_ij d_ij^2))
  int n_iter = 0;
  bool converged = false;                   // the eps rule stopped the run before max_iter
  std::vector<SmacofIteration> iterations;  // of the returned run
  std::vector<double> init_stress;          // final stress of every run (n_init of them)
  int best_init = 0;                        // which run was returned
  SmacofKernel kernel;                      // resolved
  std::vector<std::string> tuning_sources;  // the tuning database entries used
  std::string build_options;
  std::size_t delta_buffers = 1;  // device buffers the dissimilarities are cut into (over ranks: this rank's)
  Timings upload;                 // dissimilarities and weights to the device (or built there), once
  Timings total;                  // everything after the upload, all runs
  Phases phases;                  // Smacof's fits: the whole call's wall time by phase (its time to solution)
};

class Smacof {
 public:
  Smacof(const Device& device, SmacofParams params);

  // Embeds N points given their N x N dissimilarities: symmetric (up to scikit-learn's tolerance,
  // then averaged), finite, non-negative, zero diagonal. weights: empty (all 1) or N x N, symmetric,
  // finite, non-negative, connecting all points. Throws InputError (ParamError for parameters).
  SmacofResult fit(const Matrix& dissimilarities, const Matrix& weights = {}) const;

  // The same, with the dissimilarities computed on the device from the rows of `vectors` by `metric`,
  // straight into their resident buffer. The vectors are read in place, float or double
  // (itercl/rows.hpp; a Matrix converts): no double copy of them is made.
  SmacofResult fit_vectors(const RowsView& vectors, Metric metric, const Matrix& weights = {}) const;
  // The same from vectors already on the device (itercl/device_rows.hpp), repacked there.
  SmacofResult fit_vectors(const DeviceRows& vectors, Metric metric, const Matrix& weights = {}) const;
  // Over the ranks of `ranks` (itercl/mpi.hpp): every rank calls it with its own rows of the vectors (all
  // ranks' rows in rank order are the points) and the same parameters, each on its own device; the ranks
  // gather the vectors and each builds its block of rows of the dissimilarities, as `itercl run` over as
  // many ranks, with the same results. Every rank gets the stress and iterations, and `embedding` holds
  // its own rows. Refuses weights and a classical start from a metric other than euclidean (ParamError).
  SmacofResult fit_vectors(const Ranks& ranks, const RowsView& vectors, Metric metric) const;

  const SmacofParams& params() const { return params_; }

 private:
  Device device_;
  SmacofParams params_;
};

namespace smacof {
class SmacofDevice;
}

// Dissimilarities (and weights) resident on the device, embedded many times: the params' n_init runs,
// runs from starts of the caller's, or one iteration at a time in a loop of the caller's. Smacof::fit
// is this object used once.
class SmacofDissimilarities {
 public:
  // Checks and uploads N x N dissimilarities and weights as Smacof::fit does; computes the classical
  // start once if params.init asks for it. Throws as Smacof::fit.
  SmacofDissimilarities(const Device& device, const Matrix& dissimilarities, const Matrix& weights,
                        SmacofParams params);
  // The same with the dissimilarities computed on the device from the rows of `vectors` by `metric`.
  static SmacofDissimilarities from_vectors(const Device& device, const RowsView& vectors, Metric metric,
                                            const Matrix& weights, SmacofParams params);
  // The same from vectors already on the device (itercl/device_rows.hpp): repacked there (less their
  // first row), never through the host unless the classical start of euclidean distances needs them
  // (read back once, as stored). Throws ParamError for a buffer of another context or too small.
  static SmacofDissimilarities from_vectors(const Device& device, const DeviceRows& vectors, Metric metric,
                                            const Matrix& weights, SmacofParams params);
  ~SmacofDissimilarities();
  SmacofDissimilarities(SmacofDissimilarities&&) noexcept;
  SmacofDissimilarities& operator=(SmacofDissimilarities&&) noexcept;

  // params' n_init runs from params' init; the lowest final stress wins (Smacof::fit's result).
  SmacofResult fit();
  // One run from `init` (N x n_components), with params' max_iter, eps and progress.
  SmacofResult fit(const Matrix& init);

  // One iteration at a time: start() uploads X_0 (N x n_components), each step() computes the Guttman
  // transform X_m of X_{m-1} and returns its stress and 1/2 sum w d^2 (their finiteness and the
  // stopping rule are the caller's), embedding() reads the last step's X_m.
  void start(const Matrix& x0);
  SmacofIteration step();
  Matrix embedding() const;

  Eigen::Index n_points() const { return n_; }
  const SmacofParams& params() const { return params_; }
  void set_progress(ProgressCallback progress) { params_.progress = std::move(progress); }  // for later fits
  const SmacofKernel& kernel() const;                                                       // resolved
  Timings upload_timings() const;

 private:
  SmacofDissimilarities(const Device& device, SmacofParams params, Eigen::Index n);
  SmacofParams params_;
  Eigen::Index n_ = 0;
  Matrix classical_;  // the classical start, for init == classical
  std::unique_ptr<smacof::SmacofDevice> device_;
};

// Checks dissimilarities as Smacof::fit does and returns them symmetric: an asymmetry beyond
// scikit-learn's check_symmetric tolerance is an error unless `symmetrize` (then (D + D^T) / 2).
// `names` (may be empty) label the points in messages.
Matrix checked_dissimilarities(const Matrix& d, bool symmetrize = false, const std::vector<std::string>& names = {});

}  // namespace itercl
