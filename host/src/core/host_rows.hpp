// Rows owned on the host in float or double (internal): a data source's rows in the precision a run keeps
// them in. A float run's points held as a double Matrix take twice their size (issue 11's 150 GB of float
// points would be 300 GB), so a source that draws or reads float values keeps them float; RowsView reads
// them in place, as every K-Means step does.
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "core/host_memory.hpp"
#include "itercl/rows.hpp"

namespace itercl::core {

class HostRows {
 public:
  HostRows() = default;
  explicit HostRows(Matrix values) : f64_(std::move(values)), rows_(f64_.rows()), cols_(f64_.cols()) {}
  // rows x cols values of `precision`, not initialised (the caller writes every one, on as many threads as
  // it likes: the pages are touched there first); `what` names them if the memory is short.
  HostRows(Precision precision, Eigen::Index rows, Eigen::Index cols, const std::string& what)
      : rows_(rows), cols_(cols), precision_(precision) {
    const auto count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    allocate_host(what, count * real_size(precision), [&] {
      if (precision == Precision::f32)
        f32_ = std::make_unique_for_overwrite<float[]>(count);
      else
        f64_.resize(rows, cols);  // Eigen leaves the values uninitialised
    });
  }

  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }
  Precision precision() const { return precision_; }
  RowsView view() const {
    return precision_ == Precision::f32 ? RowsView(f32_.get(), rows_, cols_) : RowsView(f64_.data(), rows_, cols_);
  }
  // The values to write, row-major: T is the held precision's type.
  template <class T>
  T* data() {
    if constexpr (std::is_same_v<T, float>)
      return precision_ == Precision::f32 ? f32_.get() : nullptr;
    else
      return precision_ == Precision::f64 ? f64_.data() : nullptr;
  }
  // The values as a double Matrix: moved out when held in double, else widened (a copy).
  Matrix to_matrix() && {
    if (precision_ == Precision::f64) return std::move(f64_);
    return view().visit([](const auto& r) -> Matrix { return r.template cast<double>(); });
  }

 private:
  Matrix f64_;
  std::unique_ptr<float[]> f32_;
  Eigen::Index rows_ = 0, cols_ = 0;
  Precision precision_ = Precision::f64;
};

}  // namespace itercl::core
