// The caller's rows read in place: n x d values, row-major, float or double (a NumPy C-contiguous
// array, a std::vector, a row-major Eigen matrix), so that an input reaches the device without an
// intermediate double itercl::Matrix (twice the memory of float data, and a pass over it).
#pragma once

#include "itercl/matrix.hpp"

namespace itercl {

class RowsView {
 public:
  // A Matrix converts implicitly: every API taking a RowsView takes a Matrix.
  RowsView(const Matrix& m)  // NOLINT(google-explicit-constructor)
      : data_(m.data()), rows_(m.rows()), cols_(m.cols()), precision_(Precision::f64) {}
  RowsView(const float* data, Eigen::Index rows, Eigen::Index cols)
      : data_(data), rows_(rows), cols_(cols), precision_(Precision::f32) {}
  RowsView(const double* data, Eigen::Index rows, Eigen::Index cols)
      : data_(data), rows_(rows), cols_(cols), precision_(Precision::f64) {}

  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  Precision precision() const { return precision_; }  // of the values as stored

  // Rows [first, first + count), in place.
  RowsView block(Eigen::Index first, Eigen::Index count) const {
    RowsView b = *this;
    b.data_ = static_cast<const unsigned char*>(data_) + first * cols_ * real_size(precision_);
    b.rows_ = count;
    return b;
  }

  // f(rows), rows an Eigen::Map of the values as stored (float or double, row-major); f's result.
  template <class F>
  decltype(auto) visit(F&& f) const {
    if (precision_ == Precision::f32)
      return f(Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          static_cast<const float*>(data_), rows_, cols_));
    return f(Eigen::Map<const Matrix>(static_cast<const double*>(data_), rows_, cols_));
  }

  // Per column, in double; and whether every value is finite. Each one pass over the values as stored.
  Eigen::RowVectorXd column_mean() const {
    return visit([](const auto& r) -> Eigen::RowVectorXd { return r.template cast<double>().colwise().mean(); });
  }
  // These two on all cores (a pass over 10^10 values takes minutes on one): their answers do not depend
  // on the order the values are seen in.
  bool all_finite() const;
  // Per column, the largest |value - shift[column]|, in double; and the largest of all columns.
  Eigen::RowVectorXd largest_per_column(const Eigen::RowVectorXd& shift) const;
  double largest_from(const Eigen::RowVectorXd& shift) const { return largest_per_column(shift).maxCoeff(); }

 private:
  const void* data_;
  Eigen::Index rows_, cols_;
  Precision precision_;
};

}  // namespace itercl
