// SMACOF: from dissimilarities (itercl::Smacof::fit) or from vectors, the dissimilarities then computed on
// the device (fit_vectors); and the dissimilarities kept on the device for many runs and single steps
// (itercl::SmacofDissimilarities).
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/smacof.hpp"
#include "resident.hpp"

namespace itercl::python {
namespace {

SmacofParams smacof_params(int n_components, int max_iter, double eps, const std::string& init,
                           const py::object& init_embedding, int n_init, std::uint64_t random_state,
                           const std::string& precision, const std::string& kernel) {
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
  return p;
}

// The input as the library takes it: vectors read in place (no double copy); dissimilarities copied, as
// Smacof::fit symmetrises them into a copy of its own anyway. `keep` holds what the view reads.
struct SmacofInput {
  Matrix dissimilarities, weights;
  py::object keep;
  RowsView vectors{static_cast<const double*>(nullptr), 0, 0};
};
SmacofInput smacof_input(const py::array& data, bool vectors, const std::string& metric, const py::object& weights) {
  SmacofInput in;
  if (vectors) {
    check_dissimilarity_metric(parse_metric(metric));
    in.vectors = to_rows(data, "X", in.keep);
  } else {
    in.dissimilarities = to_matrix(data, "dissimilarities");
  }
  if (!weights.is_none()) in.weights = to_matrix(py::cast<py::array>(weights), "weights");
  return in;
}

py::dict result_dict(SmacofResult&& r) {
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
  out["phases"] = phases_dict(r.phases);
  return out;
}

py::dict smacof_fit(const py::array& data, bool vectors, const std::string& metric, const py::object& weights,
                    int n_components, int max_iter, double eps, const std::string& init,
                    const py::object& init_embedding, int n_init, std::uint64_t random_state,
                    const std::string& device_spec, const std::string& precision, const std::string& kernel,
                    const py::object& callback, std::optional<int> comm) {
  SmacofParams p =
      smacof_params(n_components, max_iter, eps, init, init_embedding, n_init, random_state, precision, kernel);
  const SmacofInput in = smacof_input(data, vectors, metric, weights);
  PythonCancel cancel(callback);
  p.progress = cancel.progress();
  return result_dict(cancel.run([&] {
    // The ranks first: ranks sharing a host share its cores under PoCL only if set before its start.
    const std::optional<Ranks> ranks = comm ? std::optional<Ranks>(std::in_place, *comm) : std::nullopt;
    const Smacof smacof(Device::select(device_spec), p);
    if (ranks) return smacof.fit_vectors(*ranks, in.vectors, parse_metric(metric));
    return vectors ? smacof.fit_vectors(in.vectors, parse_metric(metric), in.weights)
                   : smacof.fit(in.dissimilarities, in.weights);
  }));
}

// The dissimilarities (or the vectors they are computed from) on the device, once; init "random" or
// "classical" for fit() without a start of the caller's.
using ResidentDissimilarities = Resident<SmacofDissimilarities>;

std::unique_ptr<ResidentDissimilarities> make_dissimilarities(
    const py::array& data, bool vectors, const std::string& metric, const py::object& weights, int n_components,
    int max_iter, double eps, const std::string& init, int n_init, std::uint64_t random_state,
    const std::string& device_spec, const std::string& precision, const std::string& kernel) {
  const SmacofParams p =
      smacof_params(n_components, max_iter, eps, init, py::none(), n_init, random_state, precision, kernel);
  const SmacofInput in = smacof_input(data, vectors, metric, weights);
  return std::make_unique<ResidentDissimilarities>(PythonCancel().run([&] {
    const Device device = Device::select(device_spec);
    return vectors ? SmacofDissimilarities::from_vectors(device, in.vectors, parse_metric(metric), in.weights, p)
                   : SmacofDissimilarities(device, in.dissimilarities, in.weights, p);
  }),
                                                   "SmacofDissimilarities");
}

py::dict fit_resident(ResidentDissimilarities& resident, const py::object& init, const py::object& callback) {
  const Matrix x0 = init.is_none() ? Matrix() : to_matrix(py::cast<py::array>(init), "init");
  return resident.use(
      [&](SmacofDissimilarities& s) {
        PythonCancel cancel(callback);
        const ProgressForCall<SmacofDissimilarities> progress(s, cancel);
        return result_dict(cancel.run([&] { return init.is_none() ? s.fit() : s.fit(x0); }));
      },
      false, true);
}

}  // namespace

void bind_smacof(py::module_& m) {
  m.def("smacof_fit", &smacof_fit, py::arg("data"), py::arg("vectors"), py::arg("metric"), py::arg("weights"),
        py::arg("n_components"), py::arg("max_iter"), py::arg("eps"), py::arg("init"), py::arg("init_embedding"),
        py::arg("n_init"), py::arg("random_state"), py::arg("device"), py::arg("precision"), py::arg("kernel"),
        py::arg("callback") = py::none(), py::arg("comm") = py::none());
  py::class_<ResidentDissimilarities>(m, "SmacofDissimilarities")
      .def(py::init(&make_dissimilarities), py::arg("data"), py::arg("vectors"), py::arg("metric"), py::arg("weights"),
           py::arg("n_components"), py::arg("max_iter"), py::arg("eps"), py::arg("init"), py::arg("n_init"),
           py::arg("random_state"), py::arg("device"), py::arg("precision"), py::arg("kernel"))
      .def("fit", &fit_resident, py::arg("init") = py::none(), py::arg("callback") = py::none())
      .def(
          "start",
          [](ResidentDissimilarities& r, const py::array& init) {
            const Matrix x0 = to_matrix(init, "init");
            r.use([&](SmacofDissimilarities& s) { PythonCancel().run([&] { s.start(x0); }); }, false, true);
          },
          py::arg("init"))
      .def("step",
           [](ResidentDissimilarities& r) {
             const SmacofIteration it =
                 r.use([](SmacofDissimilarities& s) { return PythonCancel().run([&] { return s.step(); }); }, true);
             return py::make_tuple(it.stress, it.squared_distances);
           })
      .def("embedding",
           [](ResidentDissimilarities& r) {
             return r.use(
                 [](SmacofDissimilarities& s) { return to_numpy(PythonCancel().run([&] { return s.embedding(); })); },
                 true);
           })
      .def_property_readonly("n_points", [](const ResidentDissimilarities& r) { return r.object().n_points(); })
      .def_property_readonly("kernel",
                             [](const ResidentDissimilarities& r) { return kernel_to_json(r.object().kernel()); });
}

}  // namespace itercl::python
