// Host-side data types shared by every algorithm.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <string_view>

namespace itercl {

// Samples are rows. Host data stays in double whatever precision the device computes in: loaders,
// references and CPU-side steps (centroid updates) work in double, and only uploads convert.
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;

enum class Precision { f32, f64 };

// "float" / "double", the names configs and kernels (-DREAL=...) use.
std::string_view precision_name(Precision p);
Precision parse_precision(std::string_view name);  // throws ParamError("precision", ...)
inline std::size_t real_size(Precision p) { return p == Precision::f32 ? 4 : 8; }

}  // namespace itercl
