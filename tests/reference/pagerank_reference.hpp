// A plain double-precision PageRank power iteration, written independently of the library from
// networkx's definition, as the tests' reference: it reads the edge list directly (no CSR).
//   x <- alpha * (x M + (sum of x over dangling nodes) d) + (1 - alpha) p,  M = D_out^-1 A,
// stopping when ||x_new - x||_1 < n * tol. A weighted graph (g.weights) is networkx's MultiDiGraph:
// A sums the weights of parallel edges, D_out holds the out-weights, and a node of out-weight 0 dangles.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "itercl/graph.hpp"

namespace reference {

struct PageRank {
  std::vector<double> ranks;
  std::vector<double> residuals;  // ||x_new - x||_1 of every iteration
  int n_iter = 0;
  bool converged = false;
};

// p, d: empty for uniform (d = p); otherwise weights, normalised here. x0: the start (networkx's
// nstart), normalised here; empty for uniform.
inline PageRank pagerank(const itercl::Graph& g, double alpha, int max_iter, double tol, std::vector<double> p = {},
                         std::vector<double> d = {}, std::vector<double> x0 = {}) {
  const auto n = static_cast<std::size_t>(g.n_nodes);
  PageRank r;
  if (n == 0) {
    r.converged = true;
    return r;
  }
  auto normalise = [n](std::vector<double>& w) {
    if (w.empty()) w.assign(n, 1.0);
    double sum = 0;
    for (double v : w) sum += v;
    for (double& v : w) v /= sum;
  };
  normalise(p);
  if (d.empty()) d = p;
  normalise(d);
  const auto weight = [&](std::size_t e) { return g.weights.empty() ? 1.0 : g.weights[e]; };
  std::vector<double> outdeg(n, 0);
  for (std::size_t e = 0; e < g.src.size(); ++e) outdeg[static_cast<std::size_t>(g.src[e])] += weight(e);
  normalise(x0);
  std::vector<double> x = x0, next(n);
  for (int it = 0; it < max_iter; ++it) {
    double dangling = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (outdeg[i] == 0) dangling += x[i];
    std::vector<double> flow(n, 0.0);
    for (std::size_t e = 0; e < g.src.size(); ++e) {
      const auto u = static_cast<std::size_t>(g.src[e]), v = static_cast<std::size_t>(g.dst[e]);
      if (weight(e) != 0) flow[v] += x[u] * weight(e) / outdeg[u];
    }
    double err = 0;
    for (std::size_t i = 0; i < n; ++i) {
      next[i] = alpha * (flow[i] + dangling * d[i]) + (1 - alpha) * p[i];
      err += std::abs(next[i] - x[i]);
    }
    x.swap(next);
    r.residuals.push_back(err);
    r.n_iter = it + 1;
    if (err < static_cast<double>(n) * tol) {
      r.converged = true;
      break;
    }
  }
  r.ranks = x;
  return r;
}

inline double l1_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += std::abs(a[i] - b[i]);
  return s;
}

}  // namespace reference
