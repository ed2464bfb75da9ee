// SMACOF's tuning problem (smacof_description.hpp).
#include "smacof/smacof_description.hpp"

#include <string>

#include "itercl/datagen.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl::smacof {

TuneProblem tune_problem(Eigen::Index n, int dim, Eigen::Index features, std::uint64_t seed) {
  const Matrix points = make_uniform({.n_samples = n, .n_features = features, .random_state = seed});
  TuneProblem p;
  p.delta = allocate_host("the tuning problem's " + std::to_string(n) + " x " + std::to_string(n) + " dissimilarities",
                          square_bytes(n), [&] { return Matrix(n, n); });
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) p.delta(i, j) = (points.row(i) - points.row(j)).norm();
  p.x0 = make_uniform({.n_samples = n, .n_features = dim, .random_state = seed + 1});
  return p;
}

}  // namespace itercl::smacof
