// The all-pairs inputs as the devices hold them: checked, centred, rounded and packed once on the host.
#include "pairwise/pairwise_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/centring.hpp"
#include "core/device_data.hpp"
#include "core/host_memory.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "tuning/kernel_checks.hpp"

namespace itercl::pairwise {

bool translation_invariant(Metric m) { return m != Metric::cosine && m != Metric::dot; }

Metric effective_metric(const PairwiseParams& p) {
  if (p.metric == Metric::minkowski && p.p == 1) return Metric::cityblock;
  if (p.metric == Metric::minkowski && p.p == 2) return Metric::euclidean;
  return p.metric;
}

// The largest |value| whose accumulated terms stay finite in `precision` over `dim` dimensions.
void check_range(double largest, Eigen::Index dim, const char* name, Metric metric, double p, Precision precision) {
  const double max =
      precision == Precision::f32 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
  const double terms = static_cast<double>(dim);
  double power = 2;  // squared differences and products
  if (metric == Metric::cityblock || metric == Metric::chebyshev) power = 1;
  if (metric == Metric::minkowski) power = p;
  core::check_resolved(
      largest, precision, name,
      metric == Metric::cosine || metric == Metric::dot ? "the largest |value|" : "the largest |value - centre|");
  // log-space, so that the check itself cannot overflow
  if (std::log(terms) + power * std::log(2 * largest) >= std::log(max))
    throw InputError(std::string(name) + ": values up to " + std::to_string(largest) + " overflow the " +
                     std::string(metric_name(metric)) + " sums in " + std::string(precision_name(precision)) +
                     "; rescale the data or use precision double");
}

// One input shifted, rounded and packed column-major straight from the caller's values, its range
// checked on the way (after the shift, as the device will see it).
std::vector<unsigned char> pack_input(const RowsView& m, const Eigen::RowVectorXd& shift, const char* name,
                                      Metric metric, double p, Precision precision) {
  const std::size_t values = static_cast<std::size_t>(m.rows()) * static_cast<std::size_t>(m.cols());
  std::vector<unsigned char> bytes =
      host_bytes(std::string(name) + " in the device's precision", values * real_size(precision));
  double largest = 0;
  m.visit([&](const auto& rows) {
    with_real(precision, [&](auto zero) {
      using T = decltype(zero);
      T* out = reinterpret_cast<T*>(bytes.data());
      for (Eigen::Index j = 0; j < rows.cols(); ++j)
        for (Eigen::Index i = 0; i < rows.rows(); ++i) {
          const double v = static_cast<double>(rows(i, j)) - shift[j];
          largest = std::max(largest, std::abs(v));
          out[j * rows.rows() + i] = static_cast<T>(v);
        }
    });
  });
  check_range(largest, m.cols(), name, metric, p, precision);
  return bytes;
}

Inputs pack_inputs(const RowsView& X, const RowsView* Y, Metric metric, double p, Precision precision) {
  Eigen::RowVectorXd shift = Eigen::RowVectorXd::Zero(X.cols());
  if (translation_invariant(metric)) {
    const Eigen::RowVectorXd mean = X.column_mean();
    shift = core::centring_origin(mean, X.largest_per_column(mean));
  }
  Inputs in;
  in.x = pack_input(X, shift, "data", metric, p, precision);
  if (Y) in.y = pack_input(*Y, shift, "second input", metric, p, precision);
  return in;
}

// A cosine's row whose norm the device's products cannot resolve (its dot products with rows like it
// underflow: parallel rows came out at distance 1).
namespace {
void check_row_norm(double norm, Eigen::Index row, const char* name, Precision precision) {
  core::check_resolved(norm, precision, std::string(name) + ": row " + std::to_string(row), "its norm");
}
}  // namespace

// Per-vector values for the inner-product forms, from the values as the device holds them.
std::vector<unsigned char> aux_values(const std::vector<unsigned char>& packed, Eigen::Index n, Eigen::Index dim,
                                      Precision precision, Metric metric, const char* name) {
  std::vector<unsigned char> out =
      host_bytes(std::string(name) + "'s norms", static_cast<std::size_t>(n) * real_size(precision));
  with_real(precision, [&](auto zero) {
    using T = decltype(zero);
    const T* v = reinterpret_cast<const T*>(packed.data());
    T* o = reinterpret_cast<T*>(out.data());
    for (Eigen::Index i = 0; i < n; ++i) {
      double sq = 0;
      for (Eigen::Index k = 0; k < dim; ++k) sq += static_cast<double>(v[k * n + i]) * v[k * n + i];
      if (metric == Metric::cosine) {
        if (sq == 0)
          throw InputError(std::string(name) + ": row " + std::to_string(i) +
                           " is all zeros; the cosine distance is undefined for it");
        check_row_norm(std::sqrt(sq), i, name, precision);
        o[i] = static_cast<T>(1 / std::sqrt(sq));
      } else {
        o[i] = static_cast<T>(sq);
      }
    }
  });
  return out;
}

void add_aux_values(Inputs& in, Eigen::Index n1, Eigen::Index n2, Eigen::Index dim, bool two_inputs, Metric metric,
                    Precision precision) {
  in.xaux = aux_values(in.x, n1, dim, precision, metric, "data");
  if (two_inputs) in.yaux = aux_values(in.y, n2, dim, precision, metric, "second input");
}

cl::Buffer device_aux_values(const Device& device, const cl::Buffer& columns, Eigen::Index n, Eigen::Index dim,
                             Metric metric, Precision precision, const char* name) {
  try {
    const std::size_t bytes = static_cast<std::size_t>(n) * real_size(precision);
    cl::Buffer out(device.context(), CL_MEM_READ_WRITE, bytes);
    cl::Kernel squares =
        device.kernel("device_rows.cl", Defines(precision).add("SOURCE", "float").str(), "row_squares");
    set_args(squares, columns, static_cast<cl_int>(n), static_cast<cl_int>(dim), out);
    cl::CommandQueue& q = device.queue();
    q.enqueueNDRangeKernel(squares, cl::NullRange, cl::NDRange(static_cast<std::size_t>(n)), cl::NullRange);
    if (metric != Metric::cosine) {
      q.finish();
      return out;
    }
    std::vector<unsigned char> values = host_bytes(std::string(name) + "'s norms", bytes);
    q.enqueueReadBuffer(out, CL_TRUE, 0, bytes, values.data());
    with_real(precision, [&](auto zero) {
      using T = decltype(zero);
      T* v = reinterpret_cast<T*>(values.data());
      for (Eigen::Index i = 0; i < n; ++i) {
        if (v[i] == 0)
          throw InputError(std::string(name) + ": row " + std::to_string(i) +
                           " is all zeros; the cosine distance is undefined for it");
        check_row_norm(std::sqrt(static_cast<double>(v[i])), i, name, precision);
        v[i] = static_cast<T>(1 / std::sqrt(static_cast<double>(v[i])));
      }
    });
    q.enqueueWriteBuffer(out, CL_TRUE, 0, bytes, values.data());
    return out;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

}  // namespace itercl::pairwise
