// `itercl tune smacof`: the iteration's variants, work-group sizes and, for the fused variants, how many
// slices the columns are cut into (through groups_per_unit, so the entry carries over to other N).
#include <string>

#include "itercl/error.hpp"
#include "smacof/smacof_description.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_kernel.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace smacof {

// Larger problems are refused before delta is generated: N^2 values beyond any device's memory (2^20
// points: 4 TiB in float).
constexpr long long kMaxTuneSamples = 1 << 20;

// The declared space: every variant at each work-group size; the fused ones with 1 to 16 work-groups per
// compute unit and 1, 2 or 4 rows per work-item. Work-groups larger than the points are left out (their
// extra items would idle).
std::vector<SmacofKernel> tune_space(const DeviceInfo& info, Eigen::Index n) {
  std::vector<SmacofKernel> out;
  for (int wg : {64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size || (wg > 64 && wg > n)) continue;
    for (const std::string_view variant : kVariants) {
      if (!is_fused(variant)) {
        out.push_back({.variant = std::string(variant), .work_group_size = wg});
        continue;
      }
      for (int groups : {1, 4, 16})
        for (int rows : {1, 2, 4})
          out.push_back({.variant = std::string(variant),
                         .work_group_size = wg,
                         .groups_per_unit = groups,
                         .rows_per_item = rows});
    }
  }
  return out;
}

nlohmann::json stored(const SmacofKernel& k) {
  nlohmann::json j = {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
  if (k.groups_per_unit) j["groups_per_unit"] = k.groups_per_unit;
  if (k.rows_per_item) j["rows_per_item"] = k.rows_per_item;
  return j;
}

// The embedding after kCheckedIterations from x0.
Matrix iterated(SmacofDevice& d, const Matrix& x0) {
  d.start(x0, nullptr);
  for (int i = 0; i < kCheckedIterations; ++i) d.iterate(nullptr);
  return d.embedding();
}

}  // namespace smacof

void tune_smacof(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // N = 8,192 keeps delta at 256 MiB in float: a GPU iteration in milliseconds, the sweep in about a minute.
  const long long n = problem_count(problem, "n_samples", 8192, smacof::kMaxTuneSamples);
  const long long dim = problem_count(problem, "n_components", SmacofParams{}.n_components, smacof::kMaxComponents);
  const long long features = problem_count(problem, "n_features", 8);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  if (n < 2) problem.fail("n_samples", "SMACOF needs at least 2 points");
  report.problem = {{"n_samples", n}, {"n_components", dim}, {"n_features", features}, {"random_state", seed}};

  const smacof::TuneProblem data =
      smacof::tune_problem(n, static_cast<int>(dim), features, static_cast<std::uint64_t>(seed));
  const smacof::Problem shape{.n = n, .dim = static_cast<int>(dim), .precision = options.precision};
  auto build = [&](const SmacofKernel& kernel) {
    smacof::SmacofDevice d(device, kernel, shape);
    d.upload_dissimilarities(data.delta);
    return d;
  };
  const Matrix reference = [&] {
    smacof::SmacofDevice d = build({.variant = smacof::kReferenceVariant});
    return smacof::iterated(d, data.x0);
  }();
  const double tolerance = smacof::reference_tolerance(options.precision);

  std::vector<SmacofKernel> kernels = {SmacofKernel{}};  // the database's current choice first
  for (const SmacofKernel& kernel : smacof::tune_space(device.info(), n)) kernels.push_back(kernel);
  for (const SmacofKernel& kernel : kernels)
    add_candidate(report, options, kernels.size(), smacof::stored(kernel), [&](TuneCandidate& c) {
      smacof::SmacofDevice d = build(kernel);
      c.parameters = smacof::stored(d.kernel());
      const double error = smacof::relative_error(smacof::iterated(d, data.x0), reference);
      if (!(error <= tolerance)) {
        c.rejected = "embedding after " + std::to_string(smacof::kCheckedIterations) + " iterations differs from " +
                     smacof::kReferenceVariant + "'s by " + std::to_string(error) + " (relative), beyond " +
                     std::to_string(tolerance);
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
