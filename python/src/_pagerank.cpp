// PageRank over a graph given as its edges (source, destination), nodes 0 .. n_nodes - 1: one call
// (pagerank), or the graph kept on the device for many runs and single steps (PageRankGraph).
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"
#include "resident.hpp"

namespace itercl::python {
namespace {

PageRankParams pagerank_params(std::int32_t n_nodes, double alpha, const py::object& dangling, int max_iter, double tol,
                               const std::string& precision, const std::string& kernel) {
  PageRankParams p;
  p.alpha = alpha;
  p.max_iter = max_iter;
  p.tol = tol;
  p.dangling = to_vector(dangling, "dangling");
  p.precision = parse_precision(precision);
  p.kernel = kernel_from_json<PageRankKernel>(kernel);
  if (n_nodes < 0) throw ParamError("n_nodes", "expected an integer >= 0, got " + std::to_string(n_nodes));
  p.validate(n_nodes);
  return p;
}

// The edge arrays read in place when they are int32 and C-contiguous (the Python layer makes them so),
// else converted once; `src`, `dst` and `weights` (None: unweighted) hold what the view reads.
struct EdgeArrays {
  py::array_t<std::int32_t> src, dst;
  std::vector<double> weights;
  EdgesView view;
};
EdgeArrays edge_list(std::int32_t n_nodes, const py::array& src, const py::array& dst, const py::object& weights) {
  EdgeArrays e{to_int32_array(src, "src"), to_int32_array(dst, "dst"), to_vector(weights, "weight"), {}};
  if (e.src.size() != e.dst.size())
    throw ParamError("dst",
                     std::to_string(e.dst.size()) + " destinations for " + std::to_string(e.src.size()) + " sources");
  const auto m = static_cast<std::size_t>(e.src.size());
  if (!weights.is_none() && e.weights.size() != m)
    throw ParamError("weight", std::to_string(e.weights.size()) + " weights for " + std::to_string(m) + " edges");
  e.view = {n_nodes, {e.src.data(), m}, {e.dst.data(), m}, e.weights};
  return e;
}

py::dict result_dict(PageRankResult&& r) {
  py::dict out;
  out["ranks"] = to_numpy(std::move(r.ranks));
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  std::vector<double> residuals;
  for (const PageRankIteration& it : r.iterations) residuals.push_back(it.residual);
  out["residual_trace"] = to_numpy(std::move(residuals));
  out["kernel"] = kernel_to_json(r.kernel);
  out["phases"] = phases_dict(r.phases);
  return out;
}

py::dict pagerank(std::int32_t n_nodes, const py::array& src, const py::array& dst, const py::object& weights,
                  double alpha, const py::object& personalization, const py::object& dangling, int max_iter, double tol,
                  const std::string& device_spec, const std::string& precision, const std::string& kernel,
                  const py::object& nstart, const py::object& callback, std::optional<int> comm) {
  PageRankParams p = pagerank_params(n_nodes, alpha, dangling, max_iter, tol, precision, kernel);
  p.personalization = to_vector(personalization, "personalization");
  p.nstart = to_vector(nstart, "nstart");
  p.validate(n_nodes);
  const EdgeArrays edges = edge_list(n_nodes, src, dst, weights);
  PythonCancel cancel(callback);
  p.progress = cancel.progress();
  // The in-links are built inside the fit, where the kernel's graph_build says, as a phase of the call.
  return result_dict(cancel.run([&] {
    if (comm) {  // the ranks first: ranks sharing a host share its cores under PoCL only if set before its start
      const Ranks ranks(*comm);
      return PageRank(Device::select(device_spec), p).fit(ranks, edges.view);  // each rank builds its rows
    }
    return PageRank(Device::select(device_spec), p).fit(edges.view);
  }));
}

// The graph's format on the device, built once; the personalization and start per run.
using ResidentGraph = Resident<PageRankGraph>;

std::unique_ptr<ResidentGraph> make_graph(std::int32_t n_nodes, const py::array& src, const py::array& dst,
                                          const py::object& weights, double alpha, const py::object& dangling,
                                          int max_iter, double tol, const std::string& device_spec,
                                          const std::string& precision, const std::string& kernel) {
  const PageRankParams p = pagerank_params(n_nodes, alpha, dangling, max_iter, tol, precision, kernel);
  const EdgeArrays edges = edge_list(n_nodes, src, dst, weights);
  PythonCancel cancel;
  return std::make_unique<ResidentGraph>(
      cancel.run([&] { return PageRankGraph(Device::select(device_spec), edges.view, LinkOptions{}, p); }),
      "PageRankGraph");
}

py::dict run_graph(ResidentGraph& resident, const py::object& personalization, const py::object& nstart,
                   const py::object& callback) {
  const std::vector<double> pv = to_vector(personalization, "personalization"), x0 = to_vector(nstart, "nstart");
  return resident.use(
      [&](PageRankGraph& graph) {
        PythonCancel cancel(callback);
        const ProgressForCall<PageRankGraph> progress(graph, cancel);
        return result_dict(cancel.run([&] { return graph.run(pv, x0); }));
      },
      false, true);
}

}  // namespace

void bind_pagerank(py::module_& m) {
  m.def("pagerank_formats", &pagerank_formats);
  m.def("pagerank", &pagerank, py::arg("n_nodes"), py::arg("src"), py::arg("dst"), py::arg("weights"), py::arg("alpha"),
        py::arg("personalization"), py::arg("dangling"), py::arg("max_iter"), py::arg("tol"), py::arg("device"),
        py::arg("precision"), py::arg("kernel"), py::arg("nstart") = py::none(), py::arg("callback") = py::none(),
        py::arg("comm") = py::none());
  py::class_<ResidentGraph>(m, "PageRankGraph")
      .def(py::init(&make_graph), py::arg("n_nodes"), py::arg("src"), py::arg("dst"), py::arg("weights"),
           py::arg("alpha"), py::arg("dangling"), py::arg("max_iter"), py::arg("tol"), py::arg("device"),
           py::arg("precision"), py::arg("kernel"))
      .def("run", &run_graph, py::arg("personalization") = py::none(), py::arg("nstart") = py::none(),
           py::arg("callback") = py::none())
      .def(
          "start",
          [](ResidentGraph& r, const py::object& personalization, const py::object& nstart) {
            const std::vector<double> pv = to_vector(personalization, "personalization");
            const std::vector<double> x0 = to_vector(nstart, "nstart");
            r.use([&](PageRankGraph& g) { PythonCancel().run([&] { g.start(pv, x0); }); }, false, true);
          },
          py::arg("personalization") = py::none(), py::arg("nstart") = py::none())
      .def("step",
           [](ResidentGraph& r) {
             return r.use([](PageRankGraph& g) { return PythonCancel().run([&] { return g.step().residual; }); }, true);
           })
      .def("ranks",
           [](ResidentGraph& r) {
             return r.use([](PageRankGraph& g) { return to_numpy(PythonCancel().run([&] { return g.ranks(); })); },
                          true);
           })
      .def_property_readonly("n_nodes", [](const ResidentGraph& r) { return r.object().n_nodes(); })
      .def_property_readonly("kernel", [](const ResidentGraph& r) { return kernel_to_json(r.object().kernel()); });
}

}  // namespace itercl::python
