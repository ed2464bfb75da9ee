// A plain double-precision SMACOF, written independently of the library as the tests' reference: the
// dense B(X) of Borg & Groenen (8.24) times X, as scikit-learn writes it, and for weights the
// pseudo-inverse of V from a complete orthogonal decomposition.
#pragma once

#include <Eigen/QR>
#include <cmath>
#include <vector>

#include "itercl/matrix.hpp"

namespace reference {

using itercl::Matrix;

inline Matrix distances(const Matrix& X) {
  Matrix d(X.rows(), X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.rows(); ++j) d(i, j) = (X.row(i) - X.row(j)).norm();
  return d;
}

// Distances between rows by name: "euclidean", "sqeuclidean", "cityblock".
inline Matrix pairwise(const Matrix& X, const std::string& metric) {
  Matrix d(X.rows(), X.rows());
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.rows(); ++j) {
      const Eigen::RowVectorXd diff = X.row(i) - X.row(j);
      d(i, j) = metric == "cityblock"     ? diff.cwiseAbs().sum()
                : metric == "sqeuclidean" ? diff.squaredNorm()
                                          : diff.norm();
    }
  return d;
}

// All-ones weights when W is empty.
inline Matrix weights_or_ones(const Matrix& W, Eigen::Index n) { return W.size() ? W : Matrix::Ones(n, n); }

// 1/2 sum_{i != j} w (d - delta)^2, and 1/2 sum_{i != j} w d^2.
inline double stress(const Matrix& delta, const Matrix& W, const Matrix& X) {
  const Matrix d = distances(X), w = weights_or_ones(W, X.rows());
  double s = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.rows(); ++j)
      if (i != j) s += w(i, j) * (d(i, j) - delta(i, j)) * (d(i, j) - delta(i, j));
  return s / 2;
}
inline double squared_distances(const Matrix& W, const Matrix& X) {
  const Matrix d = distances(X), w = weights_or_ones(W, X.rows());
  double s = 0;
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.rows(); ++j)
      if (i != j) s += w(i, j) * d(i, j) * d(i, j);
  return s / 2;
}

// V+ of the weights (empty for unweighted SMACOF, whose update is B X / n).
inline Matrix v_pinv(const Matrix& W) {
  if (!W.size()) return {};
  Eigen::MatrixXd V = -W;
  V.diagonal().setZero();
  for (Eigen::Index i = 0; i < V.rows(); ++i) V(i, i) = -V.row(i).sum();
  return Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(V).pseudoInverse();
}

// The Guttman transform: B(X) X / n, or V+ B(X) X with weights.
inline Matrix guttman(const Matrix& delta, const Matrix& W, const Matrix& pinv, const Matrix& X) {
  const Eigen::Index n = X.rows();
  const Matrix d = distances(X), w = weights_or_ones(W, n);
  Matrix B = Matrix::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      if (i != j && d(i, j) > 0) B(i, j) = -w(i, j) * delta(i, j) / d(i, j);
  for (Eigen::Index i = 0; i < n; ++i) B(i, i) = -B.row(i).sum();
  return W.size() ? Matrix(pinv * (B * X)) : Matrix(B * X / static_cast<double>(n));
}

struct Smacof {
  std::vector<Matrix> embeddings;  // X_1 .. X_n_iter
  std::vector<double> stress;      // of each
  int n_iter = 0;
  bool converged = false;
};

// scikit-learn 1.7's loop: stop when (old - new) / (1/2 sum w d^2) < eps from the second iteration on.
inline Smacof smacof(const Matrix& delta, const Matrix& W, Matrix X, int max_iter, double eps) {
  Smacof r;
  const Matrix pinv = v_pinv(W);
  for (int it = 0; it < max_iter; ++it) {
    X = guttman(delta, W, pinv, X);
    const double s = stress(delta, W, X);
    r.embeddings.push_back(X);
    r.stress.push_back(s);
    r.n_iter = it + 1;
    if (it > 0 && eps > 0 && (r.stress[it - 1] - s) / squared_distances(W, X) < eps) {
      r.converged = true;
      break;
    }
  }
  return r;
}

}  // namespace reference
