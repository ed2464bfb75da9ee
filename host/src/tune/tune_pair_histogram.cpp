// `itercl tune pair_histogram`: the histogram variants and their block sizes, on points of an integer
// lattice whose squared distances are integers, binned between them: every correct variant counts exactly
// what naive counts.
#include <cmath>

#include "itercl/datagen.hpp"
#include "itercl/error.hpp"
#include "itercl/pair_histogram.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace {

// Blocks larger than the points are left out: they would stage nothing more.
std::vector<PairHistogramKernel> pair_histogram_space(const DeviceInfo& info, Eigen::Index n) {
  std::vector<PairHistogramKernel> out;
  for (int wg : {32, 64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size || (wg > 32 && wg > n)) continue;
    for (const char* variant : {"naive", "tiled", "private_hist", "private_hist_balanced"})
      out.push_back({.variant = variant, .work_group_size = wg});
  }
  return out;
}

nlohmann::json stored(const PairHistogramKernel& k) {
  return {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
}

}  // namespace

void tune_pair_histogram(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // 65,536 points: 2.1 G pairs, a pass in tens of milliseconds on a GPU.
  const long long n = problem_count(problem, "n_samples", 1 << 16, 1 << 24);
  const long long side = problem_count(problem, "lattice_side", 16, 64);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  report.problem = {{"n_samples", n}, {"lattice_side", side}, {"random_state", seed}};

  // Points on the integer lattice 0 .. side - 1 in 3-D, and an edge halfway between each two squared
  // distances (sqrt(m + 1/2)): a distance lies at least 1 / (4 sqrt(3) side) from every edge, far beyond
  // its rounding (tests/tolerances.hpp's edge_band), so the counts are exact.
  const Matrix points = make_uniform({.n_samples = n,
                                      .n_features = 3,
                                      .high = static_cast<double>(side),
                                      .random_state = static_cast<std::uint64_t>(seed)})
                            .array()
                            .floor()
                            .matrix();
  std::vector<double> edges;
  for (long long m = 0; m <= 3 * (side - 1) * (side - 1); ++m) edges.push_back(std::sqrt(static_cast<double>(m) + 0.5));
  PairHistogramParams params;
  params.binning = Binning::explicit_edges(edges);
  params.precision = options.precision;
  auto histogram = [&](const PairHistogramKernel& kernel) {
    params.kernel = kernel;
    return PairHistogram({device}, points, params);
  };
  const std::vector<std::uint64_t> reference = histogram({.variant = "naive"}).run().counts;

  std::vector<PairHistogramKernel> kernels = {PairHistogramKernel{}};  // the database's current choice first
  for (const PairHistogramKernel& kernel : pair_histogram_space(device.info(), n)) kernels.push_back(kernel);
  for (const PairHistogramKernel& kernel : kernels)
    add_candidate(report, stored(kernel), [&](TuneCandidate& c) {
      PairHistogram h = histogram(kernel);
      const PairHistogramResult first = h.run();
      c.parameters = stored(first.kernel);
      for (std::size_t k = 0; k < reference.size() && c.rejected.empty(); ++k)
        if (first.counts[k] != reference[k])
          c.rejected = "bucket " + std::to_string(k) + " counts " + std::to_string(first.counts[k]) + " pairs, naive " +
                       std::to_string(reference[k]);
      if (c.rejected.empty()) time_candidate(c, options, [&] { return h.run().total.kernel_s * 1e3; });
    });
  report.baseline = 0;
}

}  // namespace itercl
