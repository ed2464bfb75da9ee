// K-Means clustering (Lloyd's algorithm) with the seed's hybrid split (seed 004, section 6): the
// assignment step on the device over resident points, the centroid update on the CPU in double.
// Parameters, defaults and stopping rule follow scikit-learn's KMeans.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/device_rows.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "itercl/matrix.hpp"
#include "itercl/mpi.hpp"
#include "itercl/progress.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl {

enum class KMeansInit { kmeans_plus_plus, random, given };

struct KMeansParams {
  int n_clusters = 8;
  KMeansInit init = KMeansInit::kmeans_plus_plus;
  Matrix init_centroids;  // n_clusters x n_features, used when init == given
  // Runs from different initial centroids; the one with the lowest inertia is returned (a run that
  // reaches the best's clustering again, numbered otherwise, does not replace it: scikit-learn's rule). 0 means
  // scikit-learn's "auto": 10 for random, 1 for k-means++ and given centroids.
  int n_init = 0;
  int runs() const { return n_init ? n_init : (init == KMeansInit::random ? 10 : 1); }  // n_init resolved
  int max_iter = 300;
  // Stop when the centroids move by at most tol * (mean per-feature variance of the data), summed
  // squared over all centroids. 0 runs until they stop moving (or max_iter).
  double tol = 1e-4;
  std::uint64_t random_state = 0;
  Precision precision = Precision::f32;  // of the device's arithmetic; the host works in double
  KMeansKernel kernel;
  ProgressCallback progress{};  // told after every iteration (objective: the iteration's inertia)

  void validate() const;  // throws ParamError naming the field
  // validate(), plus the checks against the data: n_clusters against the samples of positive weight,
  // the initial centroids' features, one finite non-negative weight per sample (w empty: all 1).
  void validate(const RowsView& X, std::span<const double> sample_weight) const;
};

struct KMeansIteration {
  double inertia;   // of the labels this iteration assigned, against the centroids it started from
  int n_relocated;  // empty clusters moved to far points in this iteration's update
  Timings timings;  // assignment kernel, its transfers, the host update, wall
};

struct KMeansResult {
  Matrix centroids;                  // n_clusters x n_features
  std::vector<std::int32_t> labels;  // each sample's cluster under `centroids`
  double inertia = 0;                // sum of w_i * squared distance to the own centroid, for `centroids`
  int n_iter = 0;
  bool converged = false;                   // labels stopped changing or the shift fell to tol before max_iter
  int n_relocated = 0;                      // empty clusters relocated, over all iterations of the returned run
  std::vector<KMeansIteration> iterations;  // of the returned run
  std::vector<double> init_inertia;         // final inertia of every run (n_init of them)
  int best_init = 0;                        // which run was returned
  KMeansKernel kernel;                      // the assignment kernel's variant and tuning, resolved
  std::vector<std::string> tuning_sources;  // the tuning database entries used
  std::string build_options;
  Timings upload;             // points to the device, once (nothing when they stream)
  KMeansStreaming streaming;  // whether the points streamed through the device at every iteration (this rank's)
  Timings total;              // everything after the upload, all runs
  Phases phases;              // the whole fit's wall time by phase: phases.total_s() is its time to solution
};

class KMeans {
 public:
  KMeans(const Device& device, KMeansParams params);

  // Clusters the rows of X, read in place as stored (float or double, itercl/rows.hpp; a Matrix
  // converts): the host's steps widen each value to double as they read it, the device gets its own
  // packed copy, and no double copy of X is made. sample_weight: empty (all 1) or one non-negative
  // weight per row. Throws InputError (ParamError for parameters) for invalid input.
  KMeansResult fit(const RowsView& X, std::span<const double> sample_weight = {}) const;
  // The same from points already on the device (itercl/device_rows.hpp): the assignment's copy is
  // repacked there; the host's steps (k-means++, the update, the relocation, the inertia) read the
  // points back once, as stored (no double copy). Throws ParamError for a buffer of another context
  // than the device's, or one too small for its shape.
  KMeansResult fit(const DeviceRows& X, std::span<const double> sample_weight = {}) const;
  // Over the ranks of `ranks` (itercl/mpi.hpp): every rank calls it with its own rows of the points (all
  // ranks' rows in rank order are the data; a rank may hold none) and their weights, with the same
  // parameters, each on its own device. The result is one process's fit of all the rows, within the
  // order of the sums' additions (docs/python.md, "Several ranks"); every rank gets the centroids, inertia
  // and iterations, and `labels` holds its own rows' labels.
  KMeansResult fit(const Ranks& ranks, const RowsView& X, std::span<const double> sample_weight = {}) const;

  const KMeansParams& params() const { return params_; }

 private:
  Device device_;
  KMeansParams params_;
};

// The tolerance scikit-learn actually compares with: tol times the mean of the per-feature variances.
double kmeans_scaled_tol(const RowsView& X, double tol);

}  // namespace itercl
