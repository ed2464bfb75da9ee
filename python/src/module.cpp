// itercl._itercl: thin bindings over the public C++ API (host/include/itercl). The Python package
// (python/itercl) checks and converts the arguments and shapes the results as scikit-learn, SciPy and
// networkx do; these functions take plain values and return dicts of arrays.
#include "convert.hpp"
#include "itercl/version.hpp"

PYBIND11_MODULE(_itercl, m) {
  m.doc() = "itercl's C++ library; use the itercl package, not this module";
  m.attr("__version__") = ITERCL_VERSION;
  itercl::python::register_errors(m);
  itercl::python::bind_devices(m);
  itercl::python::bind_kmeans(m);
  itercl::python::bind_smacof(m);
  itercl::python::bind_pagerank(m);
  itercl::python::bind_pairwise(m);
  itercl::python::bind_pair_histogram(m);
}
