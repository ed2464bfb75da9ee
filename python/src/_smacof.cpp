// SMACOF: from dissimilarities (itercl::Smacof::fit) or from vectors, the dissimilarities then computed on
// the device (fit_vectors).
#include <pybind11/stl.h>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/smacof.hpp"

namespace itercl::python {
namespace {

py::dict smacof_fit(const py::array& data, bool vectors, const std::string& metric, const py::object& weights_in,
                    int n_components, int max_iter, double eps, const std::string& init,
                    const py::object& init_embedding, int n_init, std::uint64_t random_state,
                    const std::string& device_spec, const std::string& precision, const std::string& kernel,
                    const py::object& callback) {
  SmacofParams p;
  p.n_components = n_components;
  p.max_iter = max_iter;
  p.eps = eps;
  if (init == "random") {
    p.init = SmacofInit::random;
  } else if (init == "classical") {
    p.init = SmacofInit::classical;
  } else if (init == "given") {
    p.init = SmacofInit::given;
    p.init_embedding = to_matrix(py::cast<py::array>(init_embedding), "init");
  } else {
    throw ParamError("init", "expected \"random\", \"classical\" or an array, got \"" + init + "\"");
  }
  p.n_init = n_init;
  p.random_state = random_state;
  p.precision = parse_precision(precision);
  p.kernel = kernel_from_json<SmacofKernel>(kernel);
  p.validate();
  const Metric m = parse_metric(metric);
  if (vectors) check_dissimilarity_metric(m);
  // Vectors are read in place (no double copy); dissimilarities are copied, as Smacof::fit symmetrises them.
  const Matrix D = vectors ? Matrix() : to_matrix(data, "dissimilarities");
  py::object keep;
  const RowsView X = vectors ? to_rows(data, "X", keep) : RowsView(D);
  Matrix W;
  if (!weights_in.is_none()) W = to_matrix(py::cast<py::array>(weights_in), "weights");

  PythonCancel cancel(callback);
  p.progress = cancel.progress();
  SmacofResult r = cancel.run([&] {
    const Smacof smacof(Device::select(device_spec), p);
    return vectors ? smacof.fit_vectors(X, m, W) : smacof.fit(D, W);
  });
  py::dict out;
  out["embedding"] = to_numpy(std::move(r.embedding));
  out["stress"] = r.stress;
  out["normalized_stress"] = r.normalized_stress;
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  std::vector<double> trace;
  for (const SmacofIteration& it : r.iterations) trace.push_back(it.stress);
  out["stress_trace"] = to_numpy(std::move(trace));
  out["init_stress"] = to_numpy(std::move(r.init_stress));
  out["best_init"] = r.best_init;
  out["kernel"] = kernel_to_json(r.kernel);
  return out;
}

}  // namespace

void bind_smacof(py::module_& m) {
  m.def("smacof_fit", &smacof_fit, py::arg("data"), py::arg("vectors"), py::arg("metric"), py::arg("weights"),
        py::arg("n_components"), py::arg("max_iter"), py::arg("eps"), py::arg("init"), py::arg("init_embedding"),
        py::arg("n_init"), py::arg("random_state"), py::arg("device"), py::arg("precision"), py::arg("kernel"),
        py::arg("callback") = py::none());
}

}  // namespace itercl::python
