// `itercl tune kmeans`: the assignment kernel's variants, work-group sizes and register budgets.
#include <algorithm>
#include <cmath>
#include <limits>

#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace {

// The declared space: every variant, with the work-group sizes and register budgets worth trying.
std::vector<KMeansKernel> kmeans_space(const DeviceInfo& info) {
  std::vector<KMeansKernel> out;
  for (int wg : {64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size) continue;
    out.push_back({.variant = "naive", .work_group_size = wg});
    for (const char* variant : {"local_centroids", "local_centroids_points", "expanded"})
      for (int values : {16, 32, 64})
        out.push_back({.variant = variant, .work_group_size = wg, .register_values = values});
  }
  return out;
}

nlohmann::json stored(const KMeansKernel& k) {
  nlohmann::json j = {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
  if (k.variant != "naive") j["register_values"] = k.register_values;
  return j;
}

}  // namespace

std::string kmeans_labels_mismatch(const Matrix& X, const Matrix& C, std::span<const std::int32_t> got,
                                   std::span<const std::int32_t> reference, Precision p) {
  const double eps =
      p == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == reference[i]) continue;
    const auto ii = static_cast<Eigen::Index>(i);
    if (got[i] < 0 || got[i] >= C.rows()) return "point " + std::to_string(i) + " labelled " + std::to_string(got[i]);
    const double a = (X.row(ii) - C.row(got[i])).squaredNorm(), b = (X.row(ii) - C.row(reference[i])).squaredNorm();
    const double scale = (X.row(ii).cwiseAbs() + C.row(got[i]).cwiseAbs()).squaredNorm() +
                         (X.row(ii).cwiseAbs() + C.row(reference[i]).cwiseAbs()).squaredNorm();
    if (a - b > 4 * static_cast<double>(X.cols()) * eps * scale)
      return "point " + std::to_string(i) + ": label " + std::to_string(got[i]) + " where the reference has " +
             std::to_string(reference[i]);
  }
  return {};
}

void tune_kmeans(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // The benchmark's largest shape (seed 004, Figure 15) at a quarter of the points, to tune in minutes.
  const long long n = problem_count(problem, "n_samples", 1 << 20), d = problem_count(problem, "n_features", 4),
                  k = problem_count(problem, "n_clusters", 300);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  if (k > n) problem.fail("n_clusters", "more centroids than points");
  report.problem = {{"n_samples", n}, {"n_features", d}, {"n_clusters", k}, {"random_state", seed}};

  const Matrix X = make_uniform({.n_samples = n, .n_features = d, .random_state = static_cast<std::uint64_t>(seed)});
  const Matrix C = X.topRows(k);  // uniform data: its first rows are as random as any
  const auto reference_labels = [&] {
    KMeansAssignment naive(device, X, options.precision, KMeansKernel{.variant = "naive"});
    const auto labels = naive.assign(C);
    return std::vector<std::int32_t>(labels.begin(), labels.end());
  }();

  std::vector<KMeansKernel> kernels = {KMeansKernel{}};  // the database's current choice first
  for (const KMeansKernel& kernel : kmeans_space(device.info())) kernels.push_back(kernel);
  for (const KMeansKernel& kernel : kernels)
    add_candidate(report, stored(kernel), [&](TuneCandidate& c) {
      KMeansAssignment a(device, X, options.precision, kernel);
      c.parameters = stored(a.kernel());
      c.rejected = kmeans_labels_mismatch(X, C, a.assign(C), reference_labels, options.precision);
      if (c.rejected.empty())
        time_candidate(c, options, [&] {
          Timings t;
          a.assign(C, &t);
          return t.kernel_s * 1e3;
        });
    });
  report.baseline = 0;
}

}  // namespace itercl
