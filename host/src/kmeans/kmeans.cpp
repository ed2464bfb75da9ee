// KMeans::fit: Lloyd iterations with the assignment on the device and the update on the host.
#include "itercl/kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/device_rows_pack.hpp"
#include "core/number_text.hpp"
#include "itercl/error.hpp"
#include "kmeans/kmeans_ranks.hpp"
#include "kmeans/kmeans_steps.hpp"

namespace itercl {
void KMeansParams::validate(const RowsView& X, std::span<const double> w) const {
  core::Comm one_rank;
  kmeans::check_rows(one_rank, *this, {X, w, 0, X.rows(), {}});
}

void KMeansParams::validate() const {
  if (n_clusters < 1) throw ParamError("n_clusters", "expected an integer >= 1, got " + std::to_string(n_clusters));
  if (n_init < 0) throw ParamError("n_init", "expected an integer >= 1 (or \"auto\"), got " + std::to_string(n_init));
  if (max_iter < 1) throw ParamError("max_iter", "expected an integer >= 1, got " + std::to_string(max_iter));
  if (!(tol >= 0) || !std::isfinite(tol)) throw ParamError("tol", "expected a number >= 0, got " + number_text(tol));
  kernel.validate();
  if (init == KMeansInit::given) {
    if (init_centroids.rows() != n_clusters)
      throw ParamError("init", "has " + std::to_string(init_centroids.rows()) +
                                   " centroids for n_clusters = " + std::to_string(n_clusters));
    if (!init_centroids.allFinite()) throw ParamError("init", "centroids contain NaN or infinity");
    if (n_init > 1)
      throw ParamError("n_init",
                       std::to_string(n_init) + " runs from the same given centroids would be identical; use 1");
  }
}

double kmeans_scaled_tol(const RowsView& X, double tol) {
  if (tol == 0 || X.rows() == 0) return 0;
  core::Comm one_rank;
  const kmeans::LocalRows all{X, {}, 0, X.rows(), {}};
  return kmeans::scaled_tol(one_rank, all, kmeans::sample_mean(one_rank, all), tol);
}

KMeans::KMeans(const Device& device, KMeansParams params) : device_(device), params_(std::move(params)) {
  params_.validate();
  device_.require(params_.precision);
}

KMeansResult KMeans::fit(const RowsView& X, std::span<const double> sample_weight) const {
  core::Comm one_rank;  // one process is the one-rank case of the ranks' loop: one Lloyd loop for both
  return kmeans::fit_over_ranks(one_rank, device_, params_, {X, sample_weight, 0, X.rows(), {}});
}

KMeansResult KMeans::fit(const DeviceRows& X, std::span<const double> sample_weight) const {
  const std::vector<unsigned char> values = core::read_device_rows(device_, X, "data");
  const RowsView rows = X.precision == Precision::f32
                            ? RowsView(reinterpret_cast<const float*>(values.data()), X.rows, X.cols)
                            : RowsView(reinterpret_cast<const double*>(values.data()), X.rows, X.cols);
  core::Comm one_rank;
  return kmeans::fit_over_ranks(one_rank, device_, params_, {rows, sample_weight, 0, X.rows, {}, &X});
}

KMeansResult KMeans::fit(const Ranks& ranks, const RowsView& X, std::span<const double> sample_weight) const {
  core::Comm& comm = ranks.comm();
  const core::Comm::RowsPlace place = comm.place_rows(X.rows());
  return kmeans::fit_over_ranks(comm, device_, params_, {X, sample_weight, place.first, place.total, {}},
                                kmeans::LabelsTo::each_rank);
}

}  // namespace itercl
