// The buckets of a histogram: the binning's checks and edges, the table the kernel reads them from, and
// g(r) from the counts.
#include "pairwise/pair_histogram_binning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "itercl/error.hpp"
#include "pairwise/pair_histogram_description.hpp"

namespace itercl {
namespace pairwise {

namespace {

// The least x of precision T whose root reaches the edge as T holds it: sqrt(x) >= edge exactly when
// x >= at_least(edge), for every x of T (IEEE's sqrt is correctly rounded, so monotonic).
template <class T>
T at_least(double edge) {
  const auto e = static_cast<T>(edge);
  if (!(e > 0)) return e < 0 ? T(-1) : T(0);
  constexpr T inf = std::numeric_limits<T>::infinity();
  T x = e * e;
  while (std::sqrt(x) < e) x = std::nextafter(x, inf);
  while (x > 0 && std::sqrt(std::nextafter(x, T(0))) >= e) x = std::nextafter(x, T(0));
  return x;
}

// The greatest x of precision T whose root stays within the edge: sqrt(x) <= edge exactly when
// x <= at_most(edge).
template <class T>
T at_most(double edge) {
  const auto e = static_cast<T>(edge);
  if (!(e > 0)) return e < 0 ? T(-1) : T(0);
  constexpr T inf = std::numeric_limits<T>::infinity();
  T x = e * e;
  while (std::sqrt(x) > e) x = std::nextafter(x, T(0));
  while (x < inf && std::sqrt(std::nextafter(x, inf)) <= e) x = std::nextafter(x, inf);
  return x;
}

template <class T>
std::vector<double> thresholds(const Binning& b) {
  const std::vector<double> e = b.bucket_edges();
  std::vector<double> table;
  if (b.kind == Binning::Kind::radii) {
    for (double r : e) table.push_back(at_most<T>(r));
    return table;
  }
  for (double edge : e) table.push_back(at_least<T>(edge));
  // In place of the last edge's: the least d2 beyond the closed last edge, so that one comparison also
  // decides the last bin (cl/pair_histogram.cl's uniform bins).
  table.back() = std::nextafter(at_most<T>(e.back()), std::numeric_limits<T>::infinity());
  table.push_back(at_most<T>(e.back()));
  return table;
}

// The bucket of d2 by the thresholds, as the kernel's table_bucket finds it (d2 within them): edges, the
// last threshold <= d2 among the buckets' lower ones; radii, the first threshold >= d2.
int start_bucket(const std::vector<double>& table, Binning::Kind kind, int buckets, double d2) {
  if (kind == Binning::Kind::radii)
    return std::min(static_cast<int>(std::lower_bound(table.begin(), table.end(), d2) - table.begin()), buckets - 1);
  const auto lower = table.begin() + buckets;  // the buckets' lower edges: table[0 .. buckets)
  return std::max(static_cast<int>(std::upper_bound(table.begin(), lower, d2) - table.begin()) - 1, 0);
}

}  // namespace

std::vector<double> edge_table(const Binning& b, Precision precision) {
  std::vector<double> table = precision == Precision::f32 ? thresholds<float>(b) : thresholds<double>(b);
  const int cells = lookup_cells(b.kind, b.buckets());
  const std::vector<double> frame = uniform_frame(b);
  std::vector<double> starts(static_cast<std::size_t>(cells), 0.0);
  // Cell c receives d2 from lo + c / inv_width; the device's rounding of the index moves a d2 by far less
  // than a cell, so each start is the bucket a cell lower (cell 0 starts at bucket 0).
  for (int c = 1; c < cells && frame[2] > 0; ++c)
    starts[static_cast<std::size_t>(c)] = start_bucket(table, b.kind, b.buckets(), frame[0] + (c - 1) / frame[2]);
  table.insert(table.end(), starts.begin(), starts.end());
  return table;
}

int lookup_cells(Binning::Kind kind, int buckets) {
  if (kind == Binning::Kind::uniform || buckets == 1) return 0;
  return std::clamp(16 * buckets, 64, 2048);
}

std::vector<double> uniform_frame(const Binning& b) {
  if (b.kind == Binning::Kind::uniform) return {b.lo, b.hi, b.bins / (b.hi - b.lo)};
  const int cells = lookup_cells(b.kind, b.buckets());
  if (cells == 0) return {0, 0, 0};
  const double first = b.kind == Binning::Kind::radii ? 0.0 : std::max(b.edges.front(), 0.0);
  const double last = std::max(b.edges.back(), 0.0);
  const double lo = first * first, hi = last * last;
  // Edges that end at or below 0 leave no span: every pair then starts from bucket 0.
  return {lo, hi, hi > lo ? cells / (hi - lo) : 0.0};
}

}  // namespace pairwise

int Binning::buckets() const {
  if (kind == Kind::uniform) return bins;
  if (kind == Kind::edges) return static_cast<int>(edges.size()) - 1;
  return static_cast<int>(edges.size());
}

std::vector<double> Binning::bucket_edges() const {
  if (kind != Kind::uniform) return edges;
  std::vector<double> e(static_cast<std::size_t>(bins) + 1);
  // numpy's linspace(lo, hi, bins + 1), as numpy.histogram makes its edges: k * step + lo, the last one hi.
  const double step = (hi - lo) / bins;
  for (int k = 0; k < bins; ++k) {
    const double offset = static_cast<double>(k) * step;  // rounded before the sum, as numpy (no fused multiply-add)
    e[static_cast<std::size_t>(k)] = offset + lo;
  }
  e[static_cast<std::size_t>(bins)] = hi;
  return e;
}

void Binning::validate() const {
  // 2^20 buckets at most: 8 MiB of 64-bit totals on every device, and as much again on the host.
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
  if (parts < 1 || part < 0 || part >= parts)
    throw ParamError("part",
                     "expected 0 <= part < parts, got part " + std::to_string(part) + " of " + std::to_string(parts));
}

std::vector<double> radial_distribution(const std::vector<std::uint64_t>& counts, const std::vector<double>& edges,
                                        Eigen::Index n, double volume, Eigen::Index dim) {
  // The volume of a d-ball of radius r: pi^(d/2) / Gamma(d/2 + 1) r^d.
  const double d = static_cast<double>(dim);
  const double unit = std::pow(std::numbers::pi, d / 2) / std::tgamma(d / 2 + 1);
  const double pairs = pairwise::histogram_pairs(n);
  std::vector<double> g(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const double r0 = std::max(edges[k], 0.0), r1 = std::max(edges[k + 1], 0.0);
    const double shell = unit * (std::pow(r1, d) - std::pow(r0, d));
    g[k] = shell > 0 ? static_cast<double>(counts[k]) / (pairs * shell / volume) : 0.0;
  }
  return g;
}

}  // namespace itercl
