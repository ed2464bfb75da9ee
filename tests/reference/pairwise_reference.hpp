// Plain double-precision all-pairs distances with scipy.spatial.distance's definitions, and the
// distance histograms and pair counts built on them; written independently of the library.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "itercl/matrix.hpp"

namespace reference {

using itercl::Matrix;

// scipy: euclidean, sqeuclidean, cityblock, minkowski (p), chebyshev, cosine; and the inner product.
inline double distance(const std::string& metric, const Matrix& X, Eigen::Index i, const Matrix& Y, Eigen::Index j,
                       double p = 2) {
  double acc = 0, dot = 0, nx = 0, ny = 0;
  for (Eigen::Index k = 0; k < X.cols(); ++k) {
    const double a = X(i, k), b = Y(j, k), t = std::abs(a - b);
    if (metric == "euclidean" || metric == "sqeuclidean") acc += t * t;
    if (metric == "cityblock") acc += t;
    if (metric == "minkowski") acc += std::pow(t, p);
    if (metric == "chebyshev") acc = std::max(acc, t);
    dot += a * b, nx += a * a, ny += b * b;
  }
  if (metric == "euclidean") return std::sqrt(acc);
  if (metric == "minkowski") return std::pow(acc, 1 / p);
  if (metric == "cosine") return 1 - std::clamp(dot / (std::sqrt(nx) * std::sqrt(ny)), -1.0, 1.0);
  if (metric == "dot") return dot;
  return acc;
}

inline Matrix cdist(const std::string& metric, const Matrix& X, const Matrix& Y, double p = 2) {
  Matrix D(X.rows(), Y.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < Y.rows(); ++j) D(i, j) = distance(metric, X, i, Y, j, p);
  return D;
}

// Euclidean distance of points i and j, with the minimum-image convention in a periodic box of side
// lengths `box` (empty: no box).
inline double particle_distance(const Matrix& X, Eigen::Index i, Eigen::Index j, const std::vector<double>& box) {
  double s = 0;
  for (Eigen::Index k = 0; k < X.cols(); ++k) {
    double t = X(i, k) - X(j, k);
    if (!box.empty()) t -= box[static_cast<std::size_t>(k)] * std::nearbyint(t / box[static_cast<std::size_t>(k)]);
    s += t * t;
  }
  return std::sqrt(s);
}

// numpy.histogram of the distances of all pairs i < j over `edges` (the last bin closed), plus, per
// bin, how many pairs lie within `band` of one of its edges (those may land on either side).
struct Histogram {
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> near_edge;  // per bin: pairs within band of its lower or upper edge
  std::uint64_t near_any = 0;            // pairs within band of any edge
};

inline Histogram histogram(const Matrix& X, const std::vector<double>& edges, const std::vector<double>& box,
                           double band) {
  Histogram h;
  const std::size_t bins = edges.size() - 1;
  h.counts.assign(bins, 0);
  h.near_edge.assign(bins, 0);
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = i + 1; j < X.rows(); ++j) {
      const double d = particle_distance(X, i, j, box);
      bool near = false;
      for (std::size_t e = 0; e < edges.size(); ++e)
        if (std::abs(d - edges[e]) <= band) {
          near = true;
          if (e < bins) ++h.near_edge[e];
          if (e > 0) ++h.near_edge[e - 1];
        }
      h.near_any += near;
      if (d < edges.front() || d > edges.back()) continue;
      const auto b = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), d) - edges.begin());
      ++h.counts[std::min(b - 1, bins - 1)];
    }
  return h;
}

}  // namespace reference
