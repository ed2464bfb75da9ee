// RowsView's passes over every value, split over the CPU's cores by rows.
#include "itercl/rows.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.hpp"

namespace itercl {

bool RowsView::all_finite() const {
  const auto n = static_cast<std::size_t>(rows_);
  const int workers = worker_count(n * static_cast<std::size_t>(cols_));
  std::vector<char> finite(static_cast<std::size_t>(workers), 1);
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    finite[static_cast<std::size_t>(w)] =
        block(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin)).visit([](const auto& r) {
          bool all = true;  // no early exit: a loop the compiler can vectorise
          for (Eigen::Index k = 0; k < r.size(); ++k) all &= std::isfinite(r.data()[k]);
          return all;
        });
  });
  return std::all_of(finite.begin(), finite.end(), [](char f) { return f != 0; });
}

Eigen::RowVectorXd RowsView::largest_per_column(const Eigen::RowVectorXd& shift) const {
  const auto n = static_cast<std::size_t>(rows_), d = static_cast<std::size_t>(cols_);
  const int workers = worker_count(n * d);
  std::vector<std::vector<double>> largest(static_cast<std::size_t>(workers), std::vector<double>(d, 0.0));
  parallel_blocks(n, workers, [&](std::size_t begin, std::size_t end, int w) {
    std::vector<double>& m = largest[static_cast<std::size_t>(w)];
    block(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin)).visit([&](const auto& r) {
      for (Eigen::Index i = 0; i < r.rows(); ++i) {
        const auto* x = r.data() + i * r.cols();
        for (std::size_t j = 0; j < d; ++j)
          m[j] = std::max(m[j], std::abs(static_cast<double>(x[j]) - shift[static_cast<Eigen::Index>(j)]));
      }
    });
  });
  Eigen::RowVectorXd out = Eigen::RowVectorXd::Zero(cols_);
  for (const auto& m : largest)
    for (std::size_t j = 0; j < d; ++j)
      out[static_cast<Eigen::Index>(j)] = std::max(out[static_cast<Eigen::Index>(j)], m[j]);
  return out;
}

}  // namespace itercl
