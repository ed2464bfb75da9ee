// A plain double-precision K-Means, written independently of the library, as the tests' reference.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "itercl/matrix.hpp"

namespace reference {

using itercl::Matrix;

inline double squared_distance(const Matrix& X, Eigen::Index i, const Matrix& C, Eigen::Index j) {
  double s = 0;
  for (Eigen::Index d = 0; d < X.cols(); ++d) s += (X(i, d) - C(j, d)) * (X(i, d) - C(j, d));
  return s;
}

// Nearest centroid of every point; the lowest index among equal distances.
inline std::vector<std::int32_t> nearest(const Matrix& X, const Matrix& C) {
  std::vector<std::int32_t> labels(static_cast<std::size_t>(X.rows()));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < C.rows(); ++j) {
      const double d = squared_distance(X, i, C, j);
      if (d < best) best = d, labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(j);
    }
  }
  return labels;
}

inline double inertia(const Matrix& X, const std::vector<double>& w, const std::vector<std::int32_t>& labels,
                      const Matrix& C) {
  double s = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    s += (w.empty() ? 1.0 : w[static_cast<std::size_t>(i)]) *
         squared_distance(X, i, C, labels[static_cast<std::size_t>(i)]);
  return s;
}

struct Lloyd {
  Matrix centroids;
  std::vector<std::int32_t> labels;
  double inertia = 0;
  int n_iter = 0;
  std::vector<double> inertia_trace;
};

// scikit-learn's Lloyd loop for data without empty clusters (the tests that use it make sure none
// empties): assign, update as weighted means, stop when labels repeat or the squared shift <= tol.
inline Lloyd lloyd(const Matrix& X, const std::vector<double>& w, Matrix C, int max_iter, double scaled_tol) {
  Lloyd r;
  std::vector<std::int32_t> previous(static_cast<std::size_t>(X.rows()), -1);
  bool stable = false;
  for (int it = 0; it < max_iter; ++it) {
    const auto labels = nearest(X, C);
    r.inertia_trace.push_back(inertia(X, w, labels, C));
    Matrix sums = Matrix::Zero(C.rows(), C.cols());
    std::vector<double> weight(static_cast<std::size_t>(C.rows()), 0.0);
    for (Eigen::Index i = 0; i < X.rows(); ++i) {
      const double wi = w.empty() ? 1.0 : w[static_cast<std::size_t>(i)];
      sums.row(labels[static_cast<std::size_t>(i)]) += wi * X.row(i);
      weight[static_cast<std::size_t>(labels[static_cast<std::size_t>(i)])] += wi;
    }
    double shift = 0;
    for (Eigen::Index j = 0; j < C.rows(); ++j) {
      const Eigen::RowVectorXd next = sums.row(j) / weight[static_cast<std::size_t>(j)];
      shift += (next - C.row(j)).squaredNorm();
      C.row(j) = next;
    }
    r.n_iter = it + 1;
    if (labels == previous) {
      stable = true;
      break;
    }
    previous = labels;
    if (shift <= scaled_tol) break;
  }
  r.labels = stable ? previous : nearest(X, C);
  r.inertia = inertia(X, w, r.labels, C);
  r.centroids = C;
  return r;
}

}  // namespace reference
