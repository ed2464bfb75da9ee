// The histogram kernel's tuning struct, the binning's checks and edges, and g(r).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>
#include <ostream>

#include "itercl/error.hpp"
#include "itercl/pair_histogram.hpp"
#include "tuning/kernel_fields.hpp"

namespace itercl {
namespace pair_histogram {

const char* const kVariants[] = {"naive", "tiled", "private_hist", "private_hist_balanced"};

}  // namespace pair_histogram

void PairHistogramKernel::validate() const {
  if (variant != "auto" && std::find(std::begin(pair_histogram::kVariants), std::end(pair_histogram::kVariants),
                                     variant) == std::end(pair_histogram::kVariants))
    throw ParamError(
        "kernel.variant",
        "expected one of auto, naive, tiled, private_hist, private_hist_balanced; got \"" + variant + "\"");
  if (work_group_size < 0 || work_group_size > 4096)
    throw ParamError("kernel.work_group_size", "expected an integer from 1 to 4096 (or 0 for the default), got " +
                                                   std::to_string(work_group_size));
  if (global_counter_bits != 0 && global_counter_bits != 32 && global_counter_bits != 64)
    throw ParamError("kernel.global_counter_bits",
                     "expected 32, 64 (or 0 for the device's best), got " + std::to_string(global_counter_bits));
}

namespace pair_histogram {

const std::vector<KernelField<PairHistogramKernel>>& fields() {
  static const std::vector<KernelField<PairHistogramKernel>> table = {
      {"variant", &PairHistogramKernel::variant},
      {"work_group_size", &PairHistogramKernel::work_group_size},
      {"global_counter_bits", &PairHistogramKernel::global_counter_bits}};
  return table;
}

}  // namespace pair_histogram

void to_json(nlohmann::json& j, const PairHistogramKernel& k) { j = kernel_fields_json(k, pair_histogram::fields()); }

void from_json(const nlohmann::json& j, PairHistogramKernel& k) { read_kernel_fields(j, k, pair_histogram::fields()); }

std::ostream& operator<<(std::ostream& out, const PairHistogramKernel& k) { return out << nlohmann::json(k).dump(); }

int Binning::buckets() const {
  if (kind == Kind::uniform) return bins;
  if (kind == Kind::edges) return static_cast<int>(edges.size()) - 1;
  return static_cast<int>(edges.size());
}

std::vector<double> Binning::bucket_edges() const {
  if (kind != Kind::uniform) return edges;
  std::vector<double> e(static_cast<std::size_t>(bins) + 1);
  for (int k = 0; k <= bins; ++k) e[static_cast<std::size_t>(k)] = lo + (hi - lo) * k / bins;  // numpy's linspace
  return e;
}

void Binning::validate() const {
  constexpr int kMaxBuckets = 1 << 20;
  if (kind == Kind::uniform) {
    if (bins < 1 || bins > kMaxBuckets)
      throw ParamError(
          "bins", "expected an integer from 1 to " + std::to_string(kMaxBuckets) + ", got " + std::to_string(bins));
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo))
      throw ParamError("range", "expected [low, high] with finite low < high, got [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "]");
    return;
  }
  const char* field = kind == Kind::edges ? "edges" : "radii";
  const std::size_t least = kind == Kind::edges ? 2 : 1;
  if (edges.size() < least || edges.size() > static_cast<std::size_t>(kMaxBuckets))
    throw ParamError(field, "expected " + std::string(kind == Kind::edges ? "2 to " : "1 to ") +
                                std::to_string(kMaxBuckets) + " values, got " + std::to_string(edges.size()));
  for (std::size_t k = 0; k < edges.size(); ++k) {
    if (!std::isfinite(edges[k]) || (kind == Kind::radii && edges[k] < 0))
      throw ParamError(field, "value " + std::to_string(k) + " is " + std::to_string(edges[k]) +
                                  (kind == Kind::radii ? "; expected finite radii >= 0" : "; expected finite edges"));
    if (k > 0 && !(edges[k] > edges[k - 1]))
      throw ParamError(field, "expected increasing values; value " + std::to_string(k) + " (" +
                                  std::to_string(edges[k]) + ") does not exceed the one before");
  }
}

void PairHistogramParams::validate(Eigen::Index dim) const {
  binning.validate();
  kernel.validate();
  if (!box.empty()) {
    if (static_cast<Eigen::Index>(box.size()) != dim)
      throw ParamError(
          "box", std::to_string(box.size()) + " side lengths for points of " + std::to_string(dim) + " coordinates");
    for (double side : box)
      if (!(side > 0) || !std::isfinite(side))
        throw ParamError("box", "side lengths must be finite and > 0, got " + std::to_string(side));
  }
  if (block < 0) throw ParamError("block", "expected an integer >= 1 (or 0 for the default)");
}

std::vector<double> radial_distribution(const std::vector<std::uint64_t>& counts, const std::vector<double>& edges,
                                        Eigen::Index n, double volume, Eigen::Index dim) {
  // The volume of a d-ball of radius r: pi^(d/2) / Gamma(d/2 + 1) r^d.
  const double d = static_cast<double>(dim);
  const double unit = std::pow(std::numbers::pi, d / 2) / std::tgamma(d / 2 + 1);
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
  std::vector<double> g(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const double r0 = std::max(edges[k], 0.0), r1 = std::max(edges[k + 1], 0.0);
    const double shell = unit * (std::pow(r1, d) - std::pow(r0, d));
    g[k] = shell > 0 ? static_cast<double>(counts[k]) / (pairs * shell / volume) : 0.0;
  }
  return g;
}

}  // namespace itercl
