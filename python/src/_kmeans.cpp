// K-Means: the fit (itercl::KMeans) and the assignment step alone (itercl::KMeansAssignment, predict).
#include <pybind11/stl.h>

#include <optional>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/kmeans.hpp"

namespace itercl::python {
namespace {

py::dict kmeans_fit(const py::array& X_in, const py::object& sample_weight, int n_clusters, const std::string& init,
                    const py::object& init_centroids, int n_init, int max_iter, double tol, std::uint64_t random_state,
                    const std::string& device_spec, const std::string& precision, const std::string& kernel,
                    const py::object& callback, std::optional<int> comm) {
  py::object keep;
  const RowsView X = to_rows(X_in, "X", keep);  // float32 or float64 read in place: no double copy
  const std::vector<double> w = to_vector(sample_weight, "sample_weight");
  KMeansParams p;
  p.n_clusters = n_clusters;
  if (init == "k-means++") {
    p.init = KMeansInit::kmeans_plus_plus;
  } else if (init == "random") {
    p.init = KMeansInit::random;
  } else if (init == "given") {
    p.init = KMeansInit::given;
    p.init_centroids = to_matrix(py::cast<py::array>(init_centroids), "init");
  } else {
    throw ParamError("init", "expected \"k-means++\", \"random\" or an array of centroids, got \"" + init + "\"");
  }
  p.n_init = n_init;
  p.max_iter = max_iter;
  p.tol = tol;
  p.random_state = random_state;
  p.precision = parse_precision(precision);
  p.kernel = kernel_from_json<KMeansKernel>(kernel);
  if (!comm) p.validate(X, w);  // over ranks, the rows of all are checked together in the fit

  PythonCancel cancel(callback);
  p.progress = cancel.progress();
  KMeansResult r = cancel.run([&] {
    // The ranks first: ranks sharing a host share its cores under PoCL only if set before its start.
    const std::optional<Ranks> ranks = comm ? std::optional<Ranks>(std::in_place, *comm) : std::nullopt;
    const KMeans kmeans(Device::select(device_spec), p);
    return ranks ? kmeans.fit(*ranks, X, w) : kmeans.fit(X, w);
  });
  py::dict out;
  out["cluster_centers"] = to_numpy(std::move(r.centroids));
  out["labels"] = to_numpy(std::move(r.labels));
  out["inertia"] = r.inertia;
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  out["n_relocated"] = r.n_relocated;
  out["init_inertia"] = to_numpy(std::move(r.init_inertia));
  out["best_init"] = r.best_init;
  std::vector<double> trace;
  for (const KMeansIteration& it : r.iterations) trace.push_back(it.inertia);
  out["inertia_trace"] = to_numpy(std::move(trace));
  out["kernel"] = kernel_to_json(r.kernel);
  out["phases"] = phases_dict(r.phases);
  return out;
}

py::array kmeans_assign(const py::array& X_in, const py::array& centroids_in, const std::string& device_spec,
                        const std::string& precision, const std::string& kernel) {
  py::object keep;
  const RowsView X = to_rows(X_in, "X", keep);
  const Matrix C = to_matrix(centroids_in, "cluster_centers_");
  const Precision prec = parse_precision(precision);
  const KMeansKernel k = kernel_from_json<KMeansKernel>(kernel);
  std::vector<std::int32_t> labels;
  {
    py::gil_scoped_release release;
    const Device device = Device::select(device_spec);
    KMeansAssignment assignment(device, X, prec, k);
    const std::span<const std::int32_t> l = assignment.assign(C);
    labels.assign(l.begin(), l.end());
  }
  return to_numpy(std::move(labels));
}

}  // namespace

void bind_kmeans(py::module_& m) {
  m.def("kmeans_fit", &kmeans_fit, py::arg("X"), py::arg("sample_weight"), py::arg("n_clusters"), py::arg("init"),
        py::arg("init_centroids"), py::arg("n_init"), py::arg("max_iter"), py::arg("tol"), py::arg("random_state"),
        py::arg("device"), py::arg("precision"), py::arg("kernel"), py::arg("callback") = py::none(),
        py::arg("comm") = py::none());
  m.def("kmeans_assign", &kmeans_assign, py::arg("X"), py::arg("centroids"), py::arg("device"), py::arg("precision"),
        py::arg("kernel"));
  m.def("kmeans_scaled_tol", [](const py::array& X, double tol) {
    py::object keep;
    return kmeans_scaled_tol(to_rows(X, "X", keep), tol);
  });
}

}  // namespace itercl::python
