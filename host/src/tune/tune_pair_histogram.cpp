// `itercl tune pair_histogram`: the histogram variants and their block sizes, on points of an integer
// lattice whose squared distances are integers, binned between them: every correct variant counts exactly
// what naive counts.
#include "itercl/error.hpp"
#include "itercl/pair_histogram.hpp"
#include "pairwise/pair_histogram_description.hpp"
#include "pairwise/pair_histogram_kernel.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace pairwise {

// Blocks larger than the points are left out: they would stage nothing more.
std::vector<PairHistogramKernel> histogram_tuning_space(const DeviceInfo& info, Eigen::Index n) {
  std::vector<PairHistogramKernel> out;
  for (int wg : {32, 64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size || (wg > 32 && wg > n)) continue;
    for (const std::string_view variant : kHistogramVariants)
      out.push_back({.variant = std::string(variant), .work_group_size = wg});
  }
  return out;
}

// The fields the database stores (global_counter_bits follows the device's atomics).
nlohmann::json histogram_entry(const PairHistogramKernel& k) {
  return {{"variant", k.variant}, {"work_group_size", k.work_group_size}};
}

}  // namespace pairwise

void tune_pair_histogram(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  // 65,536 points: 2.1 G pairs, a pass in tens of milliseconds on a GPU.
  const long long n = problem_count(problem, "n_samples", 1 << 16, 1 << 24);
  const long long side = problem_count(problem, "lattice_side", 16, 64);
  const long long seed = problem.integer("random_state").value_or(1);
  problem.finish();
  report.problem = {{"n_samples", n}, {"lattice_side", side}, {"random_state", seed}};

  // Exact counts: every correct variant counts what the reference counts (pair_histogram_description.hpp).
  const pairwise::LatticeProblem lattice = pairwise::lattice_problem(n, side, static_cast<std::uint64_t>(seed));
  PairHistogramParams params;
  params.binning = Binning::explicit_edges(lattice.edges);
  params.precision = options.precision;
  auto histogram = [&](const PairHistogramKernel& kernel) {
    params.kernel = kernel;
    return PairHistogram({device}, lattice.points, params);
  };
  const std::vector<std::uint64_t> reference = histogram({.variant = pairwise::kHistogramReference}).run().counts;

  std::vector<PairHistogramKernel> kernels = {PairHistogramKernel{}};  // the database's current choice first
  for (const PairHistogramKernel& kernel : pairwise::histogram_tuning_space(device.info(), n))
    kernels.push_back(kernel);
  for (const PairHistogramKernel& kernel : kernels)
    add_candidate(report, options, kernels.size(), pairwise::histogram_entry(kernel), [&](TuneCandidate& c) {
      PairHistogram h = histogram(kernel);
      const PairHistogramResult first = h.run();
      c.parameters = pairwise::histogram_entry(first.kernel);
      c.rejected = pairwise::count_mismatch(first.counts, reference);
      if (c.rejected.empty()) time_candidate(c, options, [&] { return h.run().total.kernel_s * 1e3; });
    });
  report.baseline = 0;
}

}  // namespace itercl
