// The host-side steps of SMACOF (internal), in double: input checks, starting configurations, the
// Moore-Penrose inverse of V for weighted SMACOF, and the host memory they take.
#pragma once

#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_memory.hpp"
#include "core/random.hpp"
#include "itercl/error.hpp"
#include "itercl/matrix.hpp"
#include "itercl/rows.hpp"

namespace itercl::smacof {

// Checks weights against N points: N x N, finite, non-negative, symmetric within scikit-learn's
// check_symmetric tolerance (then averaged), and connecting every point through positive weights
// (else the groups' relative placement is undetermined). Returns them symmetric; the diagonal is ignored.
Matrix checked_weights(const Matrix& w, Eigen::Index n);

// V+ for weights W: V = diag(W 1) - W (off the diagonal), the Laplacian of the weight graph, whose null
// space is the constant vector for connected W; so V+ = (V + 1 1^T / N)^-1 - 1 1^T / N, through Eigen's
// Cholesky factorisation (Borg & Groenen, section 8.6).
Matrix v_pinv(const Matrix& weights);

// Uniform in [0, 1), n x dim (scikit-learn's random start; the draws are our own, see random.hpp).
Matrix random_init(Eigen::Index n, int dim, Rng& rng);

// Torgerson's classical scaling: B = -1/2 J (delta o delta) J, the top `dim` eigenvectors of B (Eigen's
// SelfAdjointEigenSolver) scaled by the square roots of their eigenvalues (negative ones taken as 0).
// Each axis is signed so that its largest-magnitude coordinate is positive, so results repeat.
Matrix classical_scaling(const Matrix& delta, int dim);

// The same for euclidean distances between the rows of `vectors`, without forming them: B is then the
// centred Gram matrix, and its eigenvectors are the principal components (PCA of the centred rows).
Matrix classical_scaling_of_vectors(const RowsView& vectors, int dim);

// Whether |a - b| is within scikit-learn's check_symmetric tolerance (numpy.allclose, atol 1e-10).
inline bool symmetric_enough(double a, double b) { return std::abs(a - b) <= 1e-10 + 1e-5 * std::abs(b); }

// "(3, 5)" or "(3 'Paris', 5 'Rome')" when names are given.
std::string pair_name(Eigen::Index i, Eigen::Index j, const std::vector<std::string>& names);

// "1.50 GiB": sizes as the memory messages give them.
std::string gib(std::uint64_t bytes);

// Bytes of an N x N matrix of doubles, the unit of SMACOF's host-side steps.
inline std::uint64_t square_bytes(Eigen::Index n) {
  return static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n) * sizeof(double);
}

}  // namespace itercl::smacof
