// The SMACOF iteration on a device (internal): dissimilarities (and weights) resident, the embedding in
// two device buffers swapped each iteration, only the stress partials read back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "itercl/smacof.hpp"
#include "smacof/smacof_kernel.hpp"

namespace itercl::smacof {

// Halved sums over ordered pairs: the raw stress and (1/2) sum w d^2, both of one embedding.
struct StressSums {
  double stress = 0;
  double squared_distances = 0;
};

class SmacofDevice {
 public:
  // Resolves the kernel, checks memory, builds the kernels and allocates every buffer.
  SmacofDevice(const Device& device, const SmacofKernel& kernel, const Problem& problem);
  ~SmacofDevice();
  SmacofDevice(SmacofDevice&&) noexcept;

  void upload_dissimilarities(const Matrix& delta);                // N x N, checked and symmetric
  void build_dissimilarities(const Matrix& vectors);               // N x features, by the problem's metric
  Matrix read_dissimilarities() const;                             // N x N (classical init of vectors)
  void upload_weights(const Matrix& weights, const Matrix& pinv);  // both N x N

  // Uploads the start X_0; the fused variant also runs its first pass (X_1, and sigma(X_0) unused).
  void start(const Matrix& x0, Timings* timings);
  // One iteration: X_m = Guttman transform of X_{m-1}; returns the stress sums of X_m.
  StressSums iterate(Timings* timings);
  Matrix embedding() const;  // X_m of the last iterate()

  const SmacofKernel& kernel() const;
  const std::string& build_options() const;
  const std::vector<std::string>& tuning_sources() const;  // the database entries the defaults came from
  Timings upload_timings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace itercl::smacof
