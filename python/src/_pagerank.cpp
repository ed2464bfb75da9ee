// PageRank over a graph given as its edges (source, destination), nodes 0 .. n_nodes - 1.
#include <pybind11/stl.h>

#include "convert.hpp"
#include "itercl/graph.hpp"
#include "itercl/pagerank.hpp"

namespace itercl::python {
namespace {

py::dict pagerank(std::int32_t n_nodes, const py::array& src, const py::array& dst, double alpha,
                  const py::object& personalization, const py::object& dangling, int max_iter, double tol,
                  const std::string& device_spec, const std::string& precision, const std::string& kernel) {
  PageRankParams p;
  p.alpha = alpha;
  p.max_iter = max_iter;
  p.tol = tol;
  p.personalization = to_vector(personalization, "personalization");
  p.dangling = to_vector(dangling, "dangling");
  p.precision = parse_precision(precision);
  p.kernel = kernel_from_json<PageRankKernel>(kernel);
  if (n_nodes < 0) throw ParamError("n_nodes", "expected an integer >= 0, got " + std::to_string(n_nodes));
  p.validate(n_nodes);
  Graph g;
  g.n_nodes = n_nodes;
  g.src = to_int32_vector(src, "src");
  g.dst = to_int32_vector(dst, "dst");
  if (g.src.size() != g.dst.size())
    throw ParamError("dst",
                     std::to_string(g.dst.size()) + " destinations for " + std::to_string(g.src.size()) + " sources");

  PageRankResult r;
  {
    py::gil_scoped_release release;
    const InLinks links = in_links(g);
    const Device device = Device::select(device_spec);
    r = PageRank(device, p).fit(links);
  }
  py::dict out;
  out["ranks"] = to_numpy(std::move(r.ranks));
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  std::vector<double> residuals;
  for (const PageRankIteration& it : r.iterations) residuals.push_back(it.residual);
  out["residual_trace"] = to_numpy(std::move(residuals));
  out["kernel"] = kernel_to_json(r.kernel);
  return out;
}

}  // namespace

void bind_pagerank(py::module_& m) {
  m.def("pagerank", &pagerank, py::arg("n_nodes"), py::arg("src"), py::arg("dst"), py::arg("alpha"),
        py::arg("personalization"), py::arg("dangling"), py::arg("max_iter"), py::arg("tol"), py::arg("device"),
        py::arg("precision"), py::arg("kernel"));
}

}  // namespace itercl::python
