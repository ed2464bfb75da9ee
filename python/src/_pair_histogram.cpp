// Distance histograms and pair counts (itercl::PairHistogram), and g(r) from a histogram.
#include <pybind11/stl.h>

#include <optional>

#include "cancel.hpp"
#include "convert.hpp"
#include "itercl/pair_histogram.hpp"

namespace itercl::python {
namespace {

// kind: "uniform" (bins over [lo, hi]), "edges" or "radii" (`edges`).
py::tuple pair_histogram(const py::array& X_in, const std::string& kind, int bins, double lo, double hi,
                         const std::vector<double>& edges, const std::vector<double>& box,
                         const std::vector<std::string>& devices, const std::string& precision,
                         const std::string& kernel, Eigen::Index block, std::optional<int> comm) {
  PairHistogramParams p;
  if (kind == "uniform")
    p.binning = Binning::uniform(bins, lo, hi);
  else if (kind == "edges")
    p.binning = Binning::explicit_edges(edges);
  else
    p.binning = Binning::radii(edges);
  p.box = box;
  p.precision = parse_precision(precision);
  p.kernel = kernel_from_json<PairHistogramKernel>(kernel);
  p.block = block;
  const Matrix X = to_matrix(X_in, "X");
  p.validate(X.cols());
  PythonCancel cancel;
  p.progress = cancel.progress();
  PairHistogramResult r = cancel.run([&] {
    if (comm) {  // the ranks first: ranks sharing a host share its cores under PoCL only if set before its start
      const Ranks ranks(*comm);
      return pair_histogram_over_ranks(ranks, select_devices(devices), X, p);
    }
    return PairHistogram(select_devices(devices), X, p).run();
  });
  std::vector<std::int64_t> counts(r.counts.begin(), r.counts.end());
  return py::make_tuple(to_numpy(std::move(counts)), to_numpy(std::move(r.edges)));
}

}  // namespace

void bind_pair_histogram(py::module_& m) {
  m.def("pair_histogram", &pair_histogram, py::arg("X"), py::arg("kind"), py::arg("bins"), py::arg("lo"), py::arg("hi"),
        py::arg("edges"), py::arg("box"), py::arg("devices"), py::arg("precision"), py::arg("kernel"), py::arg("block"),
        py::arg("comm") = py::none());
  m.def(
      "radial_distribution",
      [](const std::vector<std::uint64_t>& counts, const std::vector<double>& edges, Eigen::Index n, double volume,
         Eigen::Index dim) { return to_numpy(radial_distribution(counts, edges, n, volume, dim)); },
      py::arg("counts"), py::arg("edges"), py::arg("n"), py::arg("volume"), py::arg("dim"));
}

}  // namespace itercl::python
