// SmacofDissimilarities: the input checks and the one upload of the dissimilarities (or their build from
// vectors on the device), then any number of runs or single steps over them.
#include <cmath>
#include <limits>

#include "core/centring.hpp"
#include "core/device_rows_pack.hpp"
#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_fit.hpp"
#include "smacof/smacof_kernel.hpp"
#include "smacof/smacof_steps.hpp"

namespace itercl {
namespace smacof {

// The float device stores delta and sums (d - delta)^2 over up to N terms per work-item: that must stay
// finite.
void check_range(double largest, Eigen::Index n, Precision p, const char* what) {
  const double max = p == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  core::check_resolved(largest, p, what, "the largest dissimilarity");
  if (largest >= std::sqrt(max / (4.0 * static_cast<double>(n))))
    throw InputError(std::string(what) + ": values up to " + number_text(largest) + " overflow the stress in " +
                     std::string(precision_name(p)) + "; rescale the data or use precision double");
}

void check_init(const SmacofParams& p, Eigen::Index n) {
  if (p.init == SmacofInit::given && p.init_embedding.rows() != n)
    throw ParamError("init",
                     "has " + std::to_string(p.init_embedding.rows()) + " rows for " + std::to_string(n) + " points");
}

void check_vectors(const RowsView& vectors, Metric metric, const SmacofParams& p) {
  check_dissimilarity_metric(metric);
  const Eigen::Index n = vectors.rows();
  if (n < 2 || vectors.cols() < 1)
    throw InputError("data: need at least 2 vectors of at least 1 feature, got " + std::to_string(n) + " x " +
                     std::to_string(vectors.cols()));
  if (!vectors.all_finite()) throw InputError("data: contains NaN or infinity");
  // The largest distance from the mean on any feature.
  const double spread = vectors.largest_from(vectors.column_mean());
  if (spread == 0) throw InputError("data: all vectors are identical, nothing to embed");
  // The largest dissimilarity is at most 2 * spread per feature (cityblock, summed; euclidean less).
  const double features = static_cast<double>(vectors.cols());
  const double largest = metric == Metric::sqeuclidean ? 4 * spread * spread * features : 2 * spread * features;
  check_range(largest, n, p.precision, "data");
  check_init(p, n);
}

Problem vectors_problem(const SmacofParams& p, Eigen::Index n, Eigen::Index features, Metric metric, bool weighted) {
  return {.n = n,
          .dim = p.n_components,
          .precision = p.precision,
          .weighted = weighted,
          .features = features,
          .metric = metric};
}

namespace {

// The host-side steps over N x N doubles, each named if the host runs out of memory for it.
Matrix symmetric_weights(const Matrix& weights, Eigen::Index n) {
  return allocate_host("the weights' symmetric copy", square_bytes(n), [&] { return checked_weights(weights, n); });
}
Matrix weights_pinv(const Matrix& w) {
  return allocate_host("V+ of the weights", square_bytes(w.rows()), [&] { return v_pinv(w); });
}
Matrix classical_start(const Matrix& delta, int dim) {
  return allocate_host("classical scaling's doubly centred matrix", square_bytes(delta.rows()),
                       [&] { return classical_scaling(delta, dim); });
}

// A start of the caller's: N x n_components, finite, not all one point (as params' init_embedding).
SmacofParams with_start(SmacofParams p, const Matrix& x0, Eigen::Index n) {
  p.init = SmacofInit::given;
  p.init_embedding = x0;
  p.n_init = 1;
  p.validate();
  check_init(p, n);
  return p;
}

}  // namespace
}  // namespace smacof

SmacofDissimilarities::SmacofDissimilarities(const Device& device, SmacofParams params, Eigen::Index n)
    : params_(std::move(params)), n_(n) {
  params_.validate();
  device.require(params_.precision);
  smacof::check_init(params_, n_);
}

SmacofDissimilarities::SmacofDissimilarities(const Device& device, const Matrix& dissimilarities, const Matrix& weights,
                                             SmacofParams params)
    : SmacofDissimilarities(device, std::move(params), dissimilarities.rows()) {
  const SmacofParams& p = params_;
  const Matrix delta = allocate_host("the dissimilarities' symmetric copy", smacof::square_bytes(n_),
                                     [&] { return checked_dissimilarities(dissimilarities); });
  smacof::check_range(delta.maxCoeff(), n_, p.precision, "dissimilarities");
  const bool weighted = weights.size() > 0;
  const Matrix w = weighted ? smacof::symmetric_weights(weights, n_) : Matrix();
  device_ = std::make_unique<smacof::SmacofDevice>(
      device, p.kernel,
      smacof::Problem{.n = n_, .dim = p.n_components, .precision = p.precision, .weighted = weighted});
  device_->upload_dissimilarities(delta);
  if (weighted) device_->upload_weights(w, smacof::weights_pinv(w));
  if (p.init == SmacofInit::classical) classical_ = smacof::classical_start(delta, p.n_components);
}

SmacofDissimilarities SmacofDissimilarities::from_vectors(const Device& device, const RowsView& vectors, Metric metric,
                                                          const Matrix& weights, SmacofParams params) {
  SmacofDissimilarities s(device, std::move(params), vectors.rows());
  const SmacofParams& p = s.params_;
  smacof::check_vectors(vectors, metric, p);
  const Eigen::Index n = vectors.rows();
  const bool weighted = weights.size() > 0;
  const Matrix w = weighted ? smacof::symmetric_weights(weights, n) : Matrix();
  s.device_ = std::make_unique<smacof::SmacofDevice>(
      device, p.kernel, smacof::vectors_problem(p, vectors.rows(), vectors.cols(), metric, weighted));
  s.device_->build_dissimilarities(vectors);
  if (weighted) s.device_->upload_weights(w, smacof::weights_pinv(w));
  if (p.init == SmacofInit::classical)
    s.classical_ = metric == Metric::euclidean
                       ? smacof::classical_scaling_of_vectors(vectors, p.n_components)
                       : smacof::classical_start(s.device_->read_dissimilarities(), p.n_components);
  return s;
}

SmacofDissimilarities SmacofDissimilarities::from_vectors(const Device& device, const DeviceRows& vectors,
                                                          Metric metric, const Matrix& weights, SmacofParams params) {
  check_dissimilarity_metric(metric);
  if (vectors.rows < 2 || vectors.cols < 1)
    throw InputError("data: need at least 2 vectors of at least 1 feature, got " + std::to_string(vectors.rows) +
                     " x " + std::to_string(vectors.cols));
  SmacofDissimilarities s(device, std::move(params), vectors.rows);
  const SmacofParams& p = s.params_;
  const core::PackedDeviceRows packed = core::pack_device_rows(device, vectors, p.precision, "data", &vectors);
  // As check_vectors, the spread measured from the first row: every feature's difference between two
  // vectors is still at most twice it.
  if (packed.largest == 0) throw InputError("data: all vectors are identical, nothing to embed");
  const double features = static_cast<double>(vectors.cols);
  smacof::check_range(
      metric == Metric::sqeuclidean ? 4 * packed.largest * packed.largest * features : 2 * packed.largest * features,
      vectors.rows, p.precision, "data");
  smacof::check_init(p, vectors.rows);
  const bool weighted = weights.size() > 0;
  const Matrix w = weighted ? smacof::symmetric_weights(weights, vectors.rows) : Matrix();
  const Eigen::Index n = vectors.rows;
  s.device_ = std::make_unique<smacof::SmacofDevice>(device, p.kernel,
                                                     smacof::vectors_problem(p, n, vectors.cols, metric, weighted));
  s.device_->build_dissimilarities(packed.columns, vectors.cols);
  if (weighted) s.device_->upload_weights(w, smacof::weights_pinv(w));
  if (p.init == SmacofInit::classical) {
    if (metric == Metric::euclidean) {
      const std::vector<unsigned char> values = core::read_device_rows(device, vectors, "data");
      s.classical_ = smacof::classical_scaling_of_vectors(
          vectors.precision == Precision::f32
              ? RowsView(reinterpret_cast<const float*>(values.data()), n, vectors.cols)
              : RowsView(reinterpret_cast<const double*>(values.data()), n, vectors.cols),
          p.n_components);
    } else {
      s.classical_ = smacof::classical_start(s.device_->read_dissimilarities(), p.n_components);
    }
  }
  return s;
}

SmacofDissimilarities::~SmacofDissimilarities() = default;
SmacofDissimilarities::SmacofDissimilarities(SmacofDissimilarities&&) noexcept = default;
SmacofDissimilarities& SmacofDissimilarities::operator=(SmacofDissimilarities&&) noexcept = default;

SmacofResult SmacofDissimilarities::fit() { return smacof::fit_on(*device_, params_, n_, classical_); }

SmacofResult SmacofDissimilarities::fit(const Matrix& init) {
  return smacof::fit_on(*device_, smacof::with_start(params_, init, n_), n_, classical_);
}

void SmacofDissimilarities::start(const Matrix& x0) {
  smacof::with_start(params_, x0, n_);  // the checks of a given start
  device_->start(x0, nullptr);
}

SmacofIteration SmacofDissimilarities::step() {
  SmacofIteration it{};
  const smacof::StressSums s = device_->iterate(&it.timings);
  it.stress = s.stress;
  it.squared_distances = s.squared_distances;
  return it;
}

Matrix SmacofDissimilarities::embedding() const { return device_->embedding(); }

const SmacofKernel& SmacofDissimilarities::kernel() const { return device_->kernel(); }

Timings SmacofDissimilarities::upload_timings() const { return device_->upload_timings(); }

}  // namespace itercl
