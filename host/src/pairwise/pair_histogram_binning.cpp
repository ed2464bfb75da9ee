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

// The least x of precision T whose root exceeds the edge.
template <class T>
T above(double edge) {
  return std::nextafter(at_most<T>(edge), std::numeric_limits<T>::infinity());
}

// The edges of the uniform rule: the binning's, or for radii 0 and the radii, when they are evenly
// spaced within 4 ulps of the largest in precision T (the model's edge lo + k (hi - lo) / n against the
// edge as given); else none. The kernel's guard, nine times the bound on the place x's rounding error,
// which counts half an ulp for the edges' own rounding, covers that margin several times over. A single
// bucket keeps the lookup: one comparison, no root.
template <class T>
std::vector<double> even_edges(const Binning& b) {
  if (b.kind == Binning::Kind::uniform) return b.bucket_edges();
  if (b.buckets() < 2) return {};
  std::vector<double> e = b.edges;
  if (b.kind == Binning::Kind::radii) e.insert(e.begin(), 0.0);
  const double lo = e.front(), hi = e.back(), n = static_cast<double>(e.size() - 1);
  const double margin = 4 * std::numeric_limits<T>::epsilon() * std::max(std::abs(lo), std::abs(hi));
  for (std::size_t k = 1; k + 1 < e.size(); ++k)
    if (std::abs(e[k] - (lo + static_cast<double>(k) * (hi - lo) / n)) > margin) return {};
  return e;
}

// The uniform rule's table for edges e: each bucket's least d2, the least beyond the closed last edge, the
// greatest within it. A distance equal to an interior edge belongs to the bucket above it (edges) or
// below it (radii: d <= r).
template <class T>
std::vector<double> uniform_table(const std::vector<double>& e, Binning::Kind kind) {
  std::vector<double> table;
  for (std::size_t k = 0; k + 1 < e.size(); ++k)
    table.push_back(kind == Binning::Kind::radii && k > 0 ? above<T>(e[k]) : at_least<T>(e[k]));
  table.push_back(above<T>(e.back()));
  table.push_back(at_most<T>(e.back()));
  return table;
}

// The lookup's thresholds: edges as the uniform rule's; radii, the greatest d2 within each radius.
template <class T>
std::vector<double> lookup_thresholds(const Binning& b) {
  if (b.kind == Binning::Kind::edges) return uniform_table<T>(b.edges, b.kind);
  std::vector<double> table;
  for (double r : b.edges) table.push_back(at_most<T>(r));
  return table;
}

// The bucket of d2 by the lookup's thresholds, as the kernel finds it (d2 within them): edges, the last
// threshold <= d2 among the buckets' lower ones; radii, the first threshold >= d2.
int start_bucket(const std::vector<double>& table, Binning::Kind kind, int buckets, double d2) {
  if (kind == Binning::Kind::radii)
    return std::min(static_cast<int>(std::lower_bound(table.begin(), table.end(), d2) - table.begin()), buckets - 1);
  const auto lower = table.begin() + buckets;  // the buckets' lower edges: table[0 .. buckets)
  return std::max(static_cast<int>(std::upper_bound(table.begin(), lower, d2) - table.begin()) - 1, 0);
}

template <class T>
DeviceBinning resolve_binning(const Binning& b, bool place) {
  if (const std::vector<double> e = even_edges<T>(b); !e.empty() && (place || b.kind == Binning::Kind::uniform)) {
    const double lo = e.front(), hi = e.back();
    return {
        Binning::Kind::uniform, {lo, hi, static_cast<double>(e.size() - 1) / (hi - lo)}, uniform_table<T>(e, b.kind)};
  }
  DeviceBinning d{b.kind, {0, 0, 0}, lookup_thresholds<T>(b)};
  const int cells = lookup_cells(b.kind, b.buckets());
  if (cells == 0) return d;
  // The cells' frame over d2, from the first edge's square (0 for radii) to the last's, cells per unit;
  // edges that end at or below 0 leave no span, and every pair then starts from bucket 0.
  const double first = b.kind == Binning::Kind::radii ? 0.0 : std::max(b.edges.front(), 0.0);
  const double last = std::max(b.edges.back(), 0.0);
  const double lo = first * first, hi = last * last, per_unit = hi > lo ? cells / (hi - lo) : 0.0;
  d.frame = {lo, hi, per_unit};
  // Cell c receives d2 from lo + c / per_unit to a cell on, within the device's rounding of the index: of
  // d2 - lo, of the product and of the frame's lo and per_unit in T, a few ulps of hi per_unit + cells (in
  // cells; a span far from 0 makes it large), bounded four times over, and at least 1/64 of a cell. Each
  // start is the bucket that far below the cell (cell 0 starts at bucket 0), and the most steps are to the
  // bucket that far above its end.
  const double slack = 4 * std::numeric_limits<T>::epsilon() * (hi * per_unit + cells) + 1.0 / 64;
  const std::vector<double> thresholds = d.table;
  for (int c = 0; c < cells; ++c) {
    const int start =
        c == 0 || per_unit == 0 ? 0 : start_bucket(thresholds, b.kind, b.buckets(), lo + (c - slack) / per_unit);
    const int highest = per_unit == 0 ? b.buckets() - 1
                                      : start_bucket(thresholds, b.kind, b.buckets(), lo + (c + 1 + slack) / per_unit);
    d.table.push_back(start);
    d.steps = std::max(d.steps, highest - start);
  }
  return d;
}

}  // namespace

DeviceBinning device_binning(const Binning& b, Precision precision, bool place) {
  return precision == Precision::f32 ? resolve_binning<float>(b, place) : resolve_binning<double>(b, place);
}

bool uniform_walk(const DeviceBinning& d, int buckets, Precision precision) {
  if (d.rule != Binning::Kind::uniform) return false;
  const double eps =
      precision == Precision::f32 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  return 64 * eps * (std::max(std::abs(d.frame[0]), std::abs(d.frame[1])) * d.frame[2] + buckets) >= 0.25;
}

int lookup_cells(Binning::Kind rule, int buckets) {
  if (rule == Binning::Kind::uniform || buckets == 1) return 0;
  return std::clamp(16 * buckets, 64, 2048);
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
