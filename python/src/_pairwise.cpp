// All-pairs distances: the whole matrix (written rectangle by rectangle straight into a NumPy array of
// the device's precision) and the reductions on the device (row min / max / sum, k nearest, threshold).
#include <pybind11/stl.h>

#include <optional>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/mpi.hpp"
#include "itercl/pairwise.hpp"

namespace itercl::python {
namespace {

PairwiseParams pairwise_params(const std::string& metric, double p, const std::string& precision,
                               const std::string& kernel, Eigen::Index block_rows, Eigen::Index block_cols) {
  PairwiseParams params;
  params.metric = parse_metric(metric);
  params.p = p;
  params.precision = parse_precision(precision);
  params.kernel = kernel_from_json<PairwiseKernel>(kernel);
  params.block_rows = block_rows;
  params.block_cols = block_cols;
  params.validate();
  return params;
}

template <typename Real>
void fill(py::array_t<Real>& out, PairwiseDistances& pd) {
  Real* D = out.mutable_data();
  const Eigen::Index n2 = pd.cols();
  // Rectangles arrive from each device's thread; they write disjoint entries.
  pd.run([D, n2](const PairTile& t) {
    const Real* tile = static_cast<const Real*>(t.data);
    for (Eigen::Index i = 0; i < t.rows; ++i)
      for (Eigen::Index j = 0; j < t.cols; ++j) {
        const Real v = tile[i * t.ld + j];
        D[(t.row0 + i) * n2 + t.col0 + j] = v;
        if (t.symmetric && t.row0 != t.col0) D[(t.col0 + j) * n2 + t.row0 + i] = v;
      }
  });
}

py::array pairwise_matrix(const py::array& X_in, const py::object& Y_in, const std::string& metric, double p,
                          const std::vector<std::string>& devices, const std::string& precision,
                          const std::string& kernel, Eigen::Index block_rows, Eigen::Index block_cols,
                          std::optional<int> comm) {
  PythonCancel cancel;
  PairwiseParams params = pairwise_params(metric, p, precision, kernel, block_rows, block_cols);
  params.progress = cancel.progress();
  // The arrays are read in place (float32 or float64, C-contiguous, as the Python layer passes them).
  py::object keep_x, keep_y;
  const RowsView X = to_rows(X_in, "X", keep_x);
  std::optional<RowsView> Y;
  if (!Y_in.is_none()) Y = to_rows(py::cast<py::array>(Y_in), "Y", keep_y);
  const RowsView* Y_ptr = Y ? &*Y : nullptr;
  if (comm) {  // this rank's rows of D; the ranks first: under PoCL ranks share a host's cores only if set before its
               // start
    RankRowsOfDistances r = cancel.run([&] {
      const Ranks ranks(*comm);
      return pairwise_rows_over_ranks(ranks, select_devices(devices), X, Y_ptr, params);
    });
    const py::array flat = params.precision == Precision::f32 ? to_numpy(std::move(r.f32)) : to_numpy(std::move(r.f64));
    return flat.attr("reshape")(r.rows, r.cols);
  }
  const Eigen::Index n1 = X.rows(), n2 = Y ? Y->rows() : X.rows();
  const auto compute = [&](auto out) {
    cancel.run([&] {
      PairwiseDistances pd(select_devices(devices), X, Y_ptr, params);
      fill(out, pd);
    });
    return py::array(out);
  };
  if (params.precision == Precision::f32) return compute(py::array_t<float>({n1, n2}));
  return compute(py::array_t<double>({n1, n2}));
}

py::dict pairwise_reduce(const py::array& X_in, const py::object& Y_in, const std::string& metric, double p,
                         const std::vector<std::string>& devices, const std::string& precision,
                         const std::string& kernel, Eigen::Index block_rows, Eigen::Index block_cols,
                         const std::string& form, int k, double threshold) {
  PythonCancel cancel;
  PairwiseParams params = pairwise_params(metric, p, precision, kernel, block_rows, block_cols);
  params.progress = cancel.progress();
  PairwiseReduction reduction;
  reduction.form = form;
  reduction.k = k;
  reduction.threshold = threshold;
  reduction.validate();
  py::object keep_x, keep_y;
  const RowsView X = to_rows(X_in, "X", keep_x);
  std::optional<RowsView> Y;
  if (!Y_in.is_none()) Y = to_rows(py::cast<py::array>(Y_in), "Y", keep_y);
  ReducedDistances r = cancel.run([&] {
    PairwiseDistances pd(select_devices(devices), X, Y ? &*Y : nullptr, params);
    return pd.reduce(reduction);
  });
  py::dict out;
  out["width"] = r.width;
  out["values"] = to_numpy(std::move(r.values));
  out["indices"] = to_numpy(std::move(r.indices));
  std::vector<std::int64_t> i, j;
  std::vector<double> d;
  for (const NearPair& pair : r.pairs) i.push_back(pair.i), j.push_back(pair.j), d.push_back(pair.d);
  out["i"] = to_numpy(std::move(i));
  out["j"] = to_numpy(std::move(j));
  out["d"] = to_numpy(std::move(d));
  return out;
}

}  // namespace

void bind_pairwise(py::module_& m) {
  m.def("pairwise_matrix", &pairwise_matrix, py::arg("X"), py::arg("Y"), py::arg("metric"), py::arg("p"),
        py::arg("devices"), py::arg("precision"), py::arg("kernel"), py::arg("block_rows"), py::arg("block_cols"),
        py::arg("comm") = py::none());
  m.def("pairwise_reduce", &pairwise_reduce, py::arg("X"), py::arg("Y"), py::arg("metric"), py::arg("p"),
        py::arg("devices"), py::arg("precision"), py::arg("kernel"), py::arg("block_rows"), py::arg("block_cols"),
        py::arg("form"), py::arg("k"), py::arg("threshold"));
}

}  // namespace itercl::python
