// `itercl tune pairwise`: the tuned variants' (pairwise_kernel.hpp's table: tiled) tile shapes, per-item
// blocks and slices, on one block of distances. The expanded variant is left to the user: it is faster for
// euclidean distances but carries the cancellation error of |x|^2 + |y|^2 - 2 x.y, an accuracy choice
// rather than a tuning.
#include "itercl/error.hpp"
#include "itercl/pairwise.hpp"
#include "pairwise/pairwise_description.hpp"
#include "pairwise/pairwise_kernel.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace pairwise {

// The declared space: tiles of 16 to 256 work-items, 2 x 2 to 8 x 8 accumulators each, slices of 4 to
// 16 dimensions. Tiles larger than the matrix, slices longer than the vectors and work-groups beyond
// the device's are left out; local memory is checked as each candidate resolves.
std::vector<PairwiseKernel> tuning_space(const DeviceInfo& info, Eigen::Index n, Eigen::Index d) {
  struct Shape {
    int rows, cols;
  };
  std::vector<PairwiseKernel> out;
  for (const DistanceVariant& variant : kDistanceTable) {
    if (!variant.tuned) continue;
    for (Shape tile : {Shape{4, 4}, Shape{8, 8}, Shape{16, 16}, Shape{8, 32}})
      for (int block : {2, 4, 8})
        for (int slice : {4, 8, 16}) {
          if (static_cast<std::size_t>(tile.rows) * tile.cols > info.max_work_group_size) continue;
          if (tile.rows * block > n || tile.cols * block > n || slice > d) continue;
          out.push_back({.variant = std::string(variant.name),
                         .tile_rows = tile.rows,
                         .tile_cols = tile.cols,
                         .subtiles = block,
                         .cols_per_item = block,
                         .slice = slice});
        }
  }
  return out;
}

}  // namespace pairwise

void tune_pairwise(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // 4,096 vectors of 256 dimensions: a block of 16 M distances, 13 GFLOP, milliseconds on a GPU.
  const long long n = problem_count(problem, "n_samples", 4096, 1 << 16);
  const long long d = problem_count(problem, "n_features", 256);
  const std::string metric_text = problem.choice("metric", "euclidean", {"euclidean", "sqeuclidean", "cityblock"});
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  const Metric metric = parse_metric(metric_text);
  report.problem = {{"n_samples", n}, {"n_features", d}, {"metric", metric_text}, {"random_state", seed}};

  const Matrix X = pairwise::tuning_problem(n, d, static_cast<std::uint64_t>(seed));
  // One block: the whole matrix at once.
  PairwiseParams params;
  params.metric = metric;
  params.precision = options.precision;
  params.block_rows = n;
  const Matrix reference = [&] {
    params.kernel = {.variant = pairwise::kDistanceReference};
    PairwiseDistances naive({device}, X, nullptr, params);
    return naive.matrix();
  }();

  std::vector<PairwiseKernel> kernels = {PairwiseKernel{}};  // the database's current choice first
  for (const PairwiseKernel& kernel : pairwise::tuning_space(device.info(), n, d)) kernels.push_back(kernel);
  for (const PairwiseKernel& kernel : kernels)
    add_candidate(report, options, kernels.size(), kernel, [&](TuneCandidate& c) {
      params.kernel = kernel;
      PairwiseDistances p({device}, X, nullptr, params);
      c.parameters = p.kernel();
      c.parameters.erase("knn");  // timed on the distances only: the entry leaves form knn's choice as it was
      c.rejected = pairwise::mismatch(p.matrix(), reference, X, metric, options.precision);
      if (c.rejected.empty())
        time_candidate(c, options, [&] { return p.run([](const PairTile&) {}).total.kernel_s * 1e3; });
    });
  report.baseline = 0;
}

}  // namespace itercl
