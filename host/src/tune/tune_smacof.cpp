// `itercl tune smacof`: the iteration's variants, work-group sizes and, for the fused variants, how many
// slices the columns are cut into (through groups_per_unit, so the entry carries over to other N).
#include <cmath>

#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "smacof/smacof_device.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace {

constexpr int kCheckedIterations = 3;  // iterations compared with the reference before timing

// The declared space: every variant at each work-group size; the fused ones with 1 to 16 work-groups per
// compute unit. Work-groups larger than the points are left out (their extra items would idle).
std::vector<SmacofKernel> smacof_space(const DeviceInfo& info, Eigen::Index n) {
  std::vector<SmacofKernel> out;
  for (int wg : {64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size || (wg > 64 && wg > n)) continue;
    for (const char* variant : {"naive", "local_x", "colmajor"})
      out.push_back({.variant = variant, .work_group_size = wg});
    for (const char* variant : {"fused", "fused_rows"})
      for (int groups : {1, 4, 16})
        out.push_back({.variant = variant, .work_group_size = wg, .groups_per_unit = groups});
  }
  return out;
}

nlohmann::json stored(const SmacofKernel& k) {
  nlohmann::json j = {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
  if (k.groups_per_unit) j["groups_per_unit"] = k.groups_per_unit;
  return j;
}

// The embedding after kCheckedIterations from x0.
Matrix iterated(SmacofDevice& d, const Matrix& x0) {
  d.start(x0, nullptr);
  for (int i = 0; i < kCheckedIterations; ++i) d.iterate(nullptr);
  return d.embedding();
}

}  // namespace

void tune_smacof(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // N = 8,192 keeps delta at 256 MiB in float: a GPU iteration in milliseconds, the sweep in about a minute.
  const long long n = problem_count(problem, "n_samples", 8192, 1 << 20);
  const long long dim = problem_count(problem, "n_components", 2, 32);
  const long long features = problem_count(problem, "n_features", 8);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  if (n < 2) problem.fail("n_samples", "SMACOF needs at least 2 points");
  report.problem = {{"n_samples", n}, {"n_components", dim}, {"n_features", features}, {"random_state", seed}};

  // Euclidean distances of uniform points: the dissimilarities of a typical embedding problem.
  const Matrix points =
      make_uniform({.n_samples = n, .n_features = features, .random_state = static_cast<std::uint64_t>(seed)});
  Matrix delta(n, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) delta(i, j) = (points.row(i) - points.row(j)).norm();
  const Matrix x0 =
      make_uniform({.n_samples = n, .n_features = dim, .random_state = static_cast<std::uint64_t>(seed) + 1});
  const SmacofShape shape{n, static_cast<int>(dim), false, 0};
  auto build = [&](const SmacofKernel& kernel) {
    SmacofDevice d(device, options.precision, kernel, shape);
    d.upload_dissimilarities(delta);
    return d;
  };
  const Matrix reference = [&] {
    SmacofDevice naive = build({.variant = "naive"});
    return iterated(naive, x0);
  }();
  // Device and reference each within tests/tolerances.hpp's smacof tolerance (relative Frobenius norm) of
  // the exact iterate.
  const double tolerance = 2 * (options.precision == Precision::f32 ? 1e-4 : 1e-9);

  std::vector<SmacofKernel> kernels = {SmacofKernel{}};  // the database's current choice first
  for (const SmacofKernel& kernel : smacof_space(device.info(), n)) kernels.push_back(kernel);
  for (const SmacofKernel& kernel : kernels)
    add_candidate(report, stored(kernel), [&](TuneCandidate& c) {
      SmacofDevice d = build(kernel);
      c.parameters = stored(d.kernel());
      const double error = (iterated(d, x0) - reference).norm() / reference.norm();
      if (!(error <= tolerance)) {
        c.rejected = "embedding after " + std::to_string(kCheckedIterations) + " iterations differs from naive's by " +
                     std::to_string(error) + " (relative), beyond " + std::to_string(tolerance);
        return;
      }
      time_candidate(c, options, [&] {
        Timings t;
        d.iterate(&t);
        return t.kernel_s * 1e3;
      });
    });
  report.baseline = 0;
}

}  // namespace itercl
