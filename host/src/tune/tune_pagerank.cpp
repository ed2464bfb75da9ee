// `itercl tune pagerank`: the formats the device sums alone, their work-group sizes, BSR widths,
// csr_vector lanes and csr_adaptive's node order, on an R-MAT graph. Not hybrid: part of its sum runs on the host,
// outside the OpenCL event times every candidate is compared by.
#include "itercl/error.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_description.hpp"
#include "pagerank/pagerank_kernel.hpp"
#include "tune/tuners.hpp"

namespace itercl {
namespace pagerank {

// Every tuned format of the table (kFormatTable) at each work-group size, with its own field's values and
// the node orders it times.
std::vector<PageRankKernel> tuning_space(const DeviceInfo& info) {
  std::vector<PageRankKernel> out;
  for (int wg : {64, 128, 256}) {
    if (static_cast<std::size_t>(wg) > info.max_work_group_size) continue;
    for (const Format& f : kFormatTable) {
      if (!f.tuned) continue;
      for (const std::string_view order : f.tuned_orders) {
        const PageRankKernel k = {.format = std::string(f.name), .reorder = std::string(order), .work_group_size = wg};
        if (f.tuned_values.empty()) out.push_back(k);
        for (const int value : f.tuned_values) (out.emplace_back(k).*f.tuned_member) = value;
      }
    }
  }
  return out;
}

// What the database stores of a candidate: the fields the tuner sweeps (its format's tuned field).
nlohmann::json stored(const PageRankKernel& k) {
  nlohmann::json j = {{"format", k.format}, {"reorder", k.reorder}, {"work_group_size", k.work_group_size}};
  if (k.format == "auto" || !format(k.format).tuned_member) return j;
  const std::string field(format(k.format).fields[0]);
  j[field] = nlohmann::json(k)[field];
  return j;
}

}  // namespace pagerank

void tune_pagerank(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report) {
  using Rmat = pagerank::TuningGraph;
  const long long scale = problem_count(problem, "scale", Rmat::kScale, Rmat::kMostScale);
  const long long edge_factor = problem_count(problem, "edge_factor", Rmat::kEdgeFactor, Rmat::kMostEdgeFactor);
  const long long seed = problem.integer("random_state").value_or(Rmat::kRandomState);
  problem.finish();
  report.problem = {{"scale", scale}, {"edge_factor", edge_factor}, {"random_state", seed}};

  const InLinks links = Rmat{.scale = static_cast<int>(scale),
                             .edge_factor = static_cast<int>(edge_factor),
                             .random_state = static_cast<std::uint64_t>(seed)}
                            .links();
  // Every candidate runs the same iterations: two warm-ups, then one timed sum over in-links for each repeat.
  auto fit = [&](const PageRankKernel& kernel) {
    PageRankParams p;
    p.max_iter = options.repeats + 2;
    p.tol = 0;
    p.precision = options.precision;
    p.kernel = kernel;
    return PageRank(device, p).fit(links);
  };
  const std::vector<double> reference = fit({.format = pagerank::kReferenceFormat}).ranks;

  std::vector<PageRankKernel> kernels = {PageRankKernel{}};  // the database's current choice first
  for (const PageRankKernel& kernel : pagerank::tuning_space(device.info())) kernels.push_back(kernel);
  for (const PageRankKernel& kernel : kernels)
    add_candidate(report, options, kernels.size(), pagerank::stored(kernel), [&](TuneCandidate& c) {
      const PageRankResult r = fit(kernel);
      c.parameters = pagerank::stored(r.kernel);
      c.rejected = pagerank::ranks_mismatch(r.ranks, reference, options.precision);
      if (!c.rejected.empty()) return;
      std::vector<double> ms;
      for (std::size_t i = 2; i < r.iterations.size(); ++i) ms.push_back(r.iterations[i].spmv_kernel_s * 1e3);
      record_times(c, std::move(ms));
    });
  report.baseline = 0;
}

}  // namespace itercl
