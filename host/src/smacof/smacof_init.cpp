// SMACOF's host-side steps: input checks, random and classical starts, V+ for weights.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>

#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_ranks.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl {
namespace smacof {

// Makes every column's largest-magnitude entry positive (eigenvectors are defined up to sign).
void fix_signs(Matrix& coordinates) {
  for (Eigen::Index c = 0; c < coordinates.cols(); ++c) {
    Eigen::Index at = 0;
    coordinates.col(c).cwiseAbs().maxCoeff(&at);
    if (coordinates(at, c) < 0) coordinates.col(c) *= -1;
  }
}

// The top `dim` eigenpairs of symmetric S as columns v_k * sqrt(max(lambda_k, 0)), largest first.
Matrix top_scaled_eigenvectors(const Matrix& S, int dim) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(S);
  if (solver.info() != Eigen::Success) throw RuntimeError("classical scaling: the eigen-solver did not converge");
  const Eigen::Index n = S.rows();
  Matrix out = Matrix::Zero(n, dim);
  for (int k = 0; k < dim && k < n; ++k) {  // eigenvalues come in increasing order
    const double lambda = solver.eigenvalues()[n - 1 - k];
    out.col(k) = solver.eigenvectors().col(n - 1 - k) * std::sqrt(std::max(lambda, 0.0));
  }
  return out;
}

std::string gib(std::uint64_t bytes) {
  char out[32];
  std::snprintf(out, sizeof out, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  return out;
}

std::string pair_name(Eigen::Index i, Eigen::Index j, const std::vector<std::string>& names) {
  auto one = [&](Eigen::Index k) {
    std::string s = std::to_string(k);
    if (static_cast<std::size_t>(k) < names.size())
      s.append(" '").append(names[static_cast<std::size_t>(k)]).append("'");
    return s;
  };
  std::string s(1, '(');
  return s.append(one(i)).append(", ").append(one(j)).append(")");
}

}  // namespace smacof

Matrix checked_dissimilarities(const Matrix& d, bool symmetrize, const std::vector<std::string>& names) {
  const Eigen::Index n = d.rows();
  if (d.cols() != n)
    throw InputError("dissimilarities: expected a square matrix, got " + std::to_string(n) + " x " +
                     std::to_string(d.cols()));
  if (n < 2) throw InputError("dissimilarities: need at least 2 points, got " + std::to_string(n));
  bool any_positive = false;
  Matrix sym = smacof::checked_dissimilarity_rows(d, d, 0, 0, symmetrize, names, any_positive);
  if (!any_positive) throw InputError("dissimilarities: all zero, nothing to embed");
  return sym;
}

namespace smacof {

Matrix checked_dissimilarity_rows(const Matrix& rows, const Matrix& columns, Eigen::Index first,
                                  Eigen::Index first_column, bool symmetrize, const std::vector<std::string>& names,
                                  bool& any_positive) {
  const Eigen::Index m = rows.rows(), n = rows.cols();
  for (Eigen::Index r = 0; r < m; ++r) {
    for (Eigen::Index c = 0; c < n; ++c) {
      const Eigen::Index i = first + r, j = first_column + c;
      const double v = rows(r, c);
      const std::string at = "dissimilarities: " + pair_name(i, j, names);
      if (!std::isfinite(v)) throw InputError(at + " is " + number_text(v) + "; values must be finite");
      if (v < 0) throw InputError(at + " is " + number_text(v) + "; dissimilarities must be non-negative");
      if (i == j && v != 0) throw InputError(at + " is " + number_text(v) + "; the diagonal must be 0");
      any_positive |= v > 0;
    }
  }
  // Each pair once on one device (j > i); over ranks a pair's two rows may lie on two ranks, so each
  // checks all of its own (a non-finite transposed value is reported by the rank that holds its row).
  const bool whole = m == n && first == 0 && first_column == 0;
  for (Eigen::Index r = 0; r < m && !symmetrize; ++r)
    for (Eigen::Index c = whole ? r + 1 : 0; c < n; ++c) {
      const Eigen::Index i = first + r, j = first_column + c;
      const double t = columns(c, r);
      if (std::isfinite(t) && !symmetric_enough(rows(r, c), t))
        throw InputError("dissimilarities: " + pair_name(i, j, names) + " is " + number_text(rows(r, c)) + " but " +
                         pair_name(j, i, names) + " is " + number_text(t) +
                         ": the matrix is not symmetric (set data.symmetrize to use (D + D^T) / 2)");
    }
  return (rows + columns.transpose()) / 2;
}

Matrix checked_weights(const Matrix& w, Eigen::Index n) {
  if (w.rows() != n || w.cols() != n)
    throw ParamError("weights", "expected " + std::to_string(n) + " x " + std::to_string(n) + " (one per pair), got " +
                                    std::to_string(w.rows()) + " x " + std::to_string(w.cols()));
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j) {
      const double v = w(i, j);
      if (!std::isfinite(v) || v < 0)
        throw ParamError("weights",
                         pair_name(i, j, {}) + " is " + number_text(v) + "; weights must be finite and non-negative");
      if (j > i && !symmetric_enough(v, w(j, i)))
        throw ParamError("weights", pair_name(i, j, {}) + " is " + number_text(v) + " but " + pair_name(j, i, {}) +
                                        " is " + number_text(w(j, i)) + ": weights must be symmetric");
    }
  Matrix sym = (w + w.transpose()) / 2;
  sym.diagonal().setZero();
  // Connected through positive weights: a search from point 0.
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  std::vector<Eigen::Index> stack{0};
  seen[0] = 1;
  Eigen::Index reached = 1;
  while (!stack.empty()) {
    const Eigen::Index i = stack.back();
    stack.pop_back();
    for (Eigen::Index j = 0; j < n; ++j)
      if (sym(i, j) > 0 && !seen[static_cast<std::size_t>(j)]) {
        seen[static_cast<std::size_t>(j)] = 1;
        ++reached;
        stack.push_back(j);
      }
  }
  if (reached < n) {
    Eigen::Index first = 0;
    while (seen[static_cast<std::size_t>(first)]) ++first;
    throw ParamError("weights", "point " + std::to_string(first) +
                                    " is not connected to point 0 through positive "
                                    "weights: the placement of disconnected groups is undetermined");
  }
  return sym;
}

Matrix v_pinv(const Matrix& weights) {
  const Eigen::Index n = weights.rows();
  Eigen::MatrixXd v = -weights;
  v.diagonal().setZero();
  v.diagonal() = -v.rowwise().sum();
  const double inv_n = 1.0 / static_cast<double>(n);
  Eigen::LLT<Eigen::MatrixXd> llt(v.array() + inv_n);
  if (llt.info() != Eigen::Success)
    throw InputError("weights: V + 11^T/N is not positive definite (are the weights connected?)");
  Eigen::MatrixXd inverse = llt.solve(Eigen::MatrixXd::Identity(n, n));
  return Matrix(inverse.array() - inv_n);
}

Matrix random_init(Eigen::Index n, int dim, Rng& rng) {
  Matrix x(n, dim);
  for (Eigen::Index k = 0; k < x.size(); ++k) x.data()[k] = uniform01(rng);
  return x;
}

Matrix classical_scaling(const Matrix& delta, int dim) {
  Eigen::MatrixXd a = -0.5 * delta.array().square().matrix();
  const Eigen::VectorXd row_mean = a.rowwise().mean();
  const double grand_mean = row_mean.mean();
  // J A J with J = I - 11^T/N; A is symmetric, so its column means are its row means.
  a.colwise() -= row_mean;
  a.rowwise() -= row_mean.transpose();
  a.array() += grand_mean;
  Matrix x = top_scaled_eigenvectors(a, dim);
  fix_signs(x);
  return x;
}

Matrix classical_scaling_of_vectors(const RowsView& vectors, int dim) {
  // The centred rows in double: the matrix whose principal components are the start.
  const Eigen::RowVectorXd mean = vectors.column_mean();
  const Matrix centred =
      vectors.visit([&](const auto& r) -> Matrix { return r.template cast<double>().rowwise() - mean; });
  Matrix x = Matrix::Zero(vectors.rows(), dim);
  if (centred.cols() < centred.rows()) {
    // Xc^T Xc = V S^2 V^T: B's eigenvectors are Xc v_k / s_k, scaled by s_k, i.e. the scores Xc v_k.
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(centred.transpose() * centred);
    if (solver.info() != Eigen::Success) throw RuntimeError("classical scaling: the eigen-solver did not converge");
    const Eigen::Index f = centred.cols();
    for (int k = 0; k < dim && k < f; ++k) x.col(k) = centred * solver.eigenvectors().col(f - 1 - k);
  } else {
    x = top_scaled_eigenvectors(centred * centred.transpose(), dim);
  }
  fix_signs(x);
  return x;
}

}  // namespace smacof
}  // namespace itercl
