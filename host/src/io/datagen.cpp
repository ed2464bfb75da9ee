#include "itercl/datagen.hpp"

#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "core/random.hpp"
#include "io/io_limits.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace io {

// `rows` of the n_samples = n rows, from `first`: checked against the shape and the memory.
void check_shape(Eigen::Index n, Eigen::Index d, Eigen::Index first, Eigen::Index rows) {
  if (n < 1) throw ParamError("n_samples", "expected an integer >= 1, got " + std::to_string(n));
  if (d < 1) throw ParamError("n_features", "expected an integer >= 1, got " + std::to_string(d));
  if (first < 0 || rows < 0 || first > n - rows)
    throw ParamError("n_samples", "rows [" + std::to_string(first) + ", " + std::to_string(first + rows) +
                                      ") lie outside the " + std::to_string(n) + " samples");
  // Checked before allocating: the rows' doubles against the memory available now (a generator asked
  // for 10^12 points would otherwise end in std::bad_alloc or the OOM killer).
  const double needed = static_cast<double>(rows) * static_cast<double>(d) * sizeof(double);
  const auto available = static_cast<double>(available_memory());
  if (needed > available)
    throw ParamError("n_samples", std::to_string(n) + " x " + std::to_string(d) + " features need " +
                                      bytes_text(needed) + " of memory; " + bytes_text(available) +
                                      " is available: at most " +
                                      std::to_string(static_cast<long long>(available / (sizeof(double) * d))) +
                                      " samples of " + std::to_string(d) + " features fit");
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// A standard normal by Box-Muller.
double normal(Rng& rng) {
  const double u = 1.0 - uniform01(rng), v = uniform01(rng);  // u in (0, 1]
  return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

}  // namespace io

Matrix make_blobs(const BlobsParams& p) { return make_blobs(p, 0, p.n_samples); }

Matrix make_blobs(const BlobsParams& p, Eigen::Index first, Eigen::Index rows) {
  io::check_shape(p.n_samples, p.n_features, first, rows);
  if (p.centers < 1) throw ParamError("centers", "expected an integer >= 1, got " + std::to_string(p.centers));
  if (!(p.cluster_std >= 0)) throw ParamError("cluster_std", "expected a number >= 0");
  if (!(p.center_high > p.center_low)) throw ParamError("center_box", "expected low < high");
  if (!std::isfinite(p.cluster_std) || !std::isfinite(p.center_high - p.center_low))
    throw ParamError(!std::isfinite(p.cluster_std) ? "cluster_std" : "center_box",
                     "expected finite values whose generated points stay finite");
  Rng rng(p.random_state);
  Matrix centres(p.centers, p.n_features);
  for (Eigen::Index k = 0; k < centres.size(); ++k)
    centres.data()[k] = p.center_low + (p.center_high - p.center_low) * uniform01(rng);
  rng.discard(static_cast<unsigned long long>(first * p.n_features * 2));  // a normal takes two draws
  Matrix X(rows, p.n_features);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < p.n_features; ++j)
      X(i, j) = centres((first + i) % p.centers, j) + p.cluster_std * io::normal(rng);
  if (!X.allFinite())
    throw ParamError("cluster_std", "the generated points are not all finite; use a smaller cluster_std or center_box");
  return X;
}

Matrix make_uniform(const UniformParams& p) { return make_uniform(p, 0, p.n_samples); }

Matrix make_uniform(const UniformParams& p, Eigen::Index first, Eigen::Index rows) {
  io::check_shape(p.n_samples, p.n_features, first, rows);
  if (!(p.high > p.low)) throw ParamError("high", "expected low < high");
  // Generated data is finite or an error: [-1e308, 1e308] has a width beyond double's range.
  if (!std::isfinite(p.low) || !std::isfinite(p.high) || !std::isfinite(p.high - p.low))
    throw ParamError("high", "[low, high] = [" + io::number_text(p.low) + ", " + io::number_text(p.high) +
                                 "]: its width is not a finite double; expected high - low below about 1.8e308");
  Rng rng(p.random_state);
  rng.discard(static_cast<unsigned long long>(first * p.n_features));
  Matrix X(rows, p.n_features);
  for (Eigen::Index k = 0; k < X.size(); ++k) X.data()[k] = p.low + (p.high - p.low) * uniform01(rng);
  return X;
}

}  // namespace itercl
