// `itercl tune kmeans`: the assignment kernel's variants, work-group sizes and register budgets.
#include <algorithm>
#include <set>
#include <span>

#include "itercl/error.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "kmeans/kmeans_description.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace kmeans {

// The work-group sizes and register budgets (values a work-item keeps) worth trying: the database's
// defaults (tuning/kmeans.json: 64 x 16 on CPUs, 128 x 32 on GPUs) and a step either side of the GPU's.
constexpr int kWorkGroupSizes[] = {64, 128, 256};
constexpr int kRegisterBudgets[] = {16, 32, 64};
// tiled: its register tile of points x centroids, points counted directly (the H200's entry keeps 10 at
// D = 4; 8 to 16 were within 20% of one another, benchmarks/results/nvidia-h200/kmeans-d4-tile/), and a
// few centroids per tile. A work-item holds points x (D + centroids) values: counts past kTiledValues
// fall to what fits (at least one point), since beyond it the tile only spills (on the H200, 16 points
// x (4 + 4) values at D = 4 took 138 registers).
constexpr int kTiledPoints[] = {8, 10, 12, 16};
constexpr int kTiledValues = 256;
constexpr int kCentroidsPerItem[] = {2, 4, 8};
// point_blocks: a CPU's vector loop runs over the work-item's points, so it wants many (64 at D = 4).
constexpr int kPointBlockRegisterBudgets[] = {64, 128, 256};
// gemm: register tiles of 4 or 8 points by 4 or 8 centroids per work-item (multiples of 4: vector loads).
constexpr int kGemmTileSides[] = {4, 8};
// mma (NVIDIA's tensor cores only): tiles of 16 points a warp; at D = 32 on the H200 2 were the fastest, 4
// within 4% of them (benchmarks/results/nvidia-h200/kmeans-mma-probe/).
constexpr int kMmaTiles[] = {1, 2, 4};

// The declared space: every variant, with the work-group sizes and register budgets worth trying for
// vectors of `dim` features.
std::vector<KMeansKernel> tune_space(const DeviceInfo& info, Eigen::Index dim) {
  std::vector<KMeansKernel> out;
  for (int wg : kWorkGroupSizes) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size) continue;
    for (const Variant& v : kVariantTable) {
      const std::string variant(v.name);
      switch (v.shape) {
        case Shape::one_point:  // one point per work-item, nothing staged: no register budget
          out.push_back({.variant = variant, .work_group_size = wg});
          break;
        case Shape::gemm_tiles:  // its own tiles: a multiple of 128 work-items
          if (wg % 128) break;
          for (int points : kGemmTileSides)
            for (int centroids : kGemmTileSides)
              out.push_back({.variant = variant,
                             .work_group_size = wg,
                             .points_per_item = points,
                             .centroids_per_item = centroids});
          break;
        case Shape::warp_tiles:  // where the device has what it needs (in float, where it has it at all)
          if (!device_lacks(v, info, Precision::f32).empty()) break;
          for (int tiles : kMmaTiles)
            out.push_back({.variant = variant, .work_group_size = wg, .points_per_item = tiles});
          break;
        case Shape::staged:
          if (v.centroid_tiles) {  // a register tile of points x centroids, both counted directly
            for (int centroids : kCentroidsPerItem) {
              const int fits = static_cast<int>(std::max<Eigen::Index>(1, kTiledValues / (dim + centroids)));
              std::set<int> counts;  // clipped counts once each
              for (int points : kTiledPoints) counts.insert(std::min(points, fits));
              for (int points : counts)
                out.push_back({.variant = variant,
                               .work_group_size = wg,
                               .points_per_item = points,
                               .centroids_per_item = centroids});
            }
            break;
          }
          for (int values : v.point_vectors ? std::span<const int>(kPointBlockRegisterBudgets)
                                            : std::span<const int>(kRegisterBudgets))
            out.push_back({.variant = variant, .work_group_size = wg, .register_values = values});
          break;
      }
    }
  }
  return out;
}

nlohmann::json stored(const KMeansKernel& k) {
  nlohmann::json j = {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
  if (unset(k.variant)) {  // the database's choice before it is resolved: named as the staged variants are
    j["register_values"] = k.register_values;
    return j;
  }
  const Variant& v = variant(k.variant);
  if (v.centroid_tiles) {  // register tiles, counted directly
    j["points_per_item"] = k.points_per_item;
    j["centroids_per_item"] = k.centroids_per_item;
  } else if (v.shape == Shape::warp_tiles) {  // tiles of 16 points a warp
    j["points_per_item"] = k.points_per_item;
  } else if (v.shape != Shape::one_point) {
    j["register_values"] = k.register_values;
  }
  return j;
}

}  // namespace kmeans

void tune_kmeans(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // The benchmark's largest shape (seed 004, Figure 15) at a quarter of the points, to tune in minutes.
  const long long n = problem_count(problem, "n_samples", 1 << 20), d = problem_count(problem, "n_features", 4),
                  k = problem_count(problem, "n_clusters", 300);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  if (k > n) problem.fail("n_clusters", "more centroids than points");
  report.problem = {{"n_samples", n}, {"n_features", d}, {"n_clusters", k}, {"random_state", seed}};

  const kmeans::TuneProblem data = kmeans::tune_problem(n, d, k, static_cast<std::uint64_t>(seed));
  const Matrix &X = data.points, &C = data.centroids;
  const auto reference_labels = [&] {
    KMeansAssignment reference(device, X, options.precision,
                               KMeansKernel{.variant = std::string(kmeans::kReferenceVariant)});
    const auto labels = reference.assign(C);
    return std::vector<std::int32_t>(labels.begin(), labels.end());
  }();

  std::vector<KMeansKernel> kernels = {KMeansKernel{}};  // the database's current choice first
  for (const KMeansKernel& kernel : kmeans::tune_space(device.info(), d)) kernels.push_back(kernel);
  for (const KMeansKernel& kernel : kernels)
    add_candidate(report, options, kernels.size(), kmeans::stored(kernel), [&](TuneCandidate& c) {
      KMeansAssignment a(device, X, options.precision, kernel);
      c.parameters = kmeans::stored(a.kernel());
      c.rejected = kmeans::labels_mismatch(X, C, a.assign(C), reference_labels, options.precision);
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
