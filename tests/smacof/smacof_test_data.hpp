// Test data the SMACOF test files share.
#pragma once

#include "reference/smacof_reference.hpp"
#include "test_support.hpp"

namespace smacof_test_data {

// Dissimilarities that no embedding fits exactly: distances of random 4-D points, perturbed.
inline itercl::Matrix noisy_delta(Eigen::Index n, std::uint64_t seed) {
  itercl::Matrix d = reference::distances(test::random_matrix(n, 4, seed, 1.0, 3.0));
  const itercl::Matrix noise = test::random_matrix(n, n, seed + 1).cwiseAbs() * 0.3;
  d += noise + noise.transpose();
  d.diagonal().setZero();
  return d;
}

}  // namespace smacof_test_data
