#include "itercl/datagen.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/device_data.hpp"
#include "core/parallel.hpp"
#include "core/random.hpp"
#include "io/datagen_rows.hpp"
#include "io/io_limits.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace io {

// `rows` of the n_samples = n rows, from `first`: checked against the shape and the memory (values of
// `value_bytes` each).
void check_shape(Eigen::Index n, Eigen::Index d, Eigen::Index first, Eigen::Index rows, std::size_t value_bytes) {
  if (n < 1) throw ParamError("n_samples", "expected an integer >= 1, got " + std::to_string(n));
  if (d < 1) throw ParamError("n_features", "expected an integer >= 1, got " + std::to_string(d));
  if (first < 0 || rows < 0 || first > n - rows)
    throw ParamError("n_samples", "rows [" + std::to_string(first) + ", " + std::to_string(first + rows) +
                                      ") lie outside the " + std::to_string(n) + " samples");
  // Checked before allocating: the rows' values against the memory available now (a generator asked
  // for 10^12 points would otherwise end in std::bad_alloc or the OOM killer).
  const double needed = static_cast<double>(rows) * static_cast<double>(d) * static_cast<double>(value_bytes);
  const auto available = static_cast<double>(available_memory());
  if (needed > available)
    throw ParamError("n_samples", std::to_string(n) + " x " + std::to_string(d) + " features need " +
                                      bytes_text(needed) + " of memory; " + bytes_text(available) +
                                      " is available: at most " +
                                      std::to_string(static_cast<long long>(available / (value_bytes * d))) +
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

// Stream s's generator (datagen_rows.hpp): `first_stream` for s = 0.
Rng stream_rng(std::uint64_t seed, Eigen::Index s, const Rng& first_stream) {
  if (s == 0) return first_stream;
  const auto us = static_cast<std::uint64_t>(s);
  std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                         static_cast<std::uint32_t>(us), static_cast<std::uint32_t>(us >> 32)};
  return Rng(sequence);
}

// Rows [first, first + rows) of `d` values each, in `precision`: row i is value(rng, i, j) for j = 0..d-1
// drawn in order from its stream's generator, each value taking `draws` draws. Whole streams go to the
// workers; a stream cut by `first` skips the draws of its rows before it. Returns whether every value is
// finite in `precision`.
template <class Value>
bool draw_rows(core::HostRows& out, Eigen::Index first, std::uint64_t seed, const Rng& first_stream, int draws,
               int workers, Value&& value) {
  const Eigen::Index rows = out.rows(), d = out.cols();
  const Eigen::Index s0 = first / kStreamRows, s1 = rows ? (first + rows - 1) / kStreamRows + 1 : s0;
  const auto streams = static_cast<std::size_t>(s1 - s0);
  if (workers <= 0) workers = worker_count(static_cast<std::size_t>(rows * d));
  workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(workers), streams));
  std::vector<char> finite(static_cast<std::size_t>(std::max(workers, 1)), 1);
  with_real(out.precision(), [&](auto zero) {
    using T = decltype(zero);
    T* values = out.data<T>();
    parallel_blocks(streams, workers, [&](std::size_t b, std::size_t e, int w) {
      bool all_finite = true;
      for (std::size_t k = b; k < e; ++k) {
        const Eigen::Index s = s0 + static_cast<Eigen::Index>(k);
        const Eigen::Index begin = std::max(first, s * kStreamRows),
                           end = std::min(first + rows, (s + 1) * kStreamRows);
        Rng rng = stream_rng(seed, s, first_stream);
        rng.discard(static_cast<unsigned long long>((begin - s * kStreamRows) * d * draws));
        T* row = values + (begin - first) * d;
        for (Eigen::Index i = begin; i < end; ++i, row += d)
          for (Eigen::Index j = 0; j < d; ++j) {
            row[j] = static_cast<T>(value(rng, i, j));
            all_finite = all_finite && std::isfinite(row[j]);
          }
      }
      finite[static_cast<std::size_t>(w)] = all_finite;
    });
  });
  return std::all_of(finite.begin(), finite.end(), [](char f) { return f != 0; });
}

std::string rows_text(Eigen::Index rows, Eigen::Index d, Precision precision) {
  return "generated points: " + std::to_string(rows) + " x " + std::to_string(d) + " values in " +
         std::string(precision_name(precision));
}

core::HostRows blobs_rows(const BlobsParams& p, Eigen::Index first, Eigen::Index rows, Precision precision,
                          int workers) {
  check_shape(p.n_samples, p.n_features, first, rows, real_size(precision));
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
  core::HostRows X(precision, rows, p.n_features, rows_text(rows, p.n_features, precision));
  const bool finite = draw_rows(X, first, p.random_state, rng, 2, workers, [&](Rng& r, Eigen::Index i, Eigen::Index j) {
    return centres(i % p.centers, j) + p.cluster_std * normal(r);  // a normal takes two draws
  });
  if (!finite)
    throw ParamError("cluster_std", std::string("the generated points are not all finite") +
                                        (precision == Precision::f32 ? " in float" : "") +
                                        "; use a smaller cluster_std or center_box");
  return X;
}

core::HostRows uniform_rows(const UniformParams& p, Eigen::Index first, Eigen::Index rows, Precision precision,
                            int workers) {
  check_shape(p.n_samples, p.n_features, first, rows, real_size(precision));
  if (!(p.high > p.low)) throw ParamError("high", "expected low < high");
  // Generated data is finite or an error: [-1e308, 1e308] has a width beyond double's range.
  if (!std::isfinite(p.low) || !std::isfinite(p.high) || !std::isfinite(p.high - p.low))
    throw ParamError("high", "[low, high] = [" + number_text(p.low) + ", " + number_text(p.high) +
                                 "]: its width is not a finite double; expected high - low below about 1.8e308");
  core::HostRows X(precision, rows, p.n_features, rows_text(rows, p.n_features, precision));
  const bool finite =
      draw_rows(X, first, p.random_state, Rng(p.random_state), 1, workers,
                [&](Rng& r, Eigen::Index, Eigen::Index) { return p.low + (p.high - p.low) * uniform01(r); });
  if (!finite)  // only in float: [low, high] beyond float's range
    throw ParamError("high", "[low, high] = [" + number_text(p.low) + ", " + number_text(p.high) +
                                 "] reaches beyond float's range (about 3.4e38): use precision double");
  return X;
}

}  // namespace io

Matrix make_blobs(const BlobsParams& p) { return make_blobs(p, 0, p.n_samples); }

Matrix make_blobs(const BlobsParams& p, Eigen::Index first, Eigen::Index rows) {
  return io::blobs_rows(p, first, rows, Precision::f64).to_matrix();
}

Matrix make_uniform(const UniformParams& p) { return make_uniform(p, 0, p.n_samples); }

Matrix make_uniform(const UniformParams& p, Eigen::Index first, Eigen::Index rows) {
  return io::uniform_rows(p, first, rows, Precision::f64).to_matrix();
}

}  // namespace itercl
