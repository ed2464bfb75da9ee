// Shared by the binding files: NumPy arrays to and from the library's types, device selection, kernel
// structs from JSON text, and the translation of itercl's errors into Python's.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/experiment.hpp"
#include "itercl/matrix.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl::python {

namespace py = pybind11;

// A 2-D float32 or float64 array (the Python layer has checked and converted it) as a Matrix, for the
// APIs that take one: a copy; float32 is widened in the same pass.
Matrix to_matrix(const py::array& a, const char* field);
// A 2-D float32 or float64 C-contiguous array read in place, for the APIs that take rows (itercl/rows.hpp):
// no copy. Another array is converted to float64 first, that copy held by `keep`; the view is valid
// while `a` and `keep` live.
RowsView to_rows(const py::array& a, const char* field, py::object& keep);
// A 1-D float64 array (or None: empty) as a vector.
std::vector<double> to_vector(const py::object& a, const char* field);
// A 1-D int32 C-contiguous array: `a` itself when it is one (no copy), else a converted copy.
py::array_t<std::int32_t> to_int32_array(const py::array& a, const char* field);

// A Matrix as a float64 array, owning the moved matrix (no copy).
py::array to_numpy(Matrix&& m);
template <typename T>
py::array to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

// A call's phases as {name: milliseconds}, in the order the call entered them (the Python layer adds its
// own share and the time to solution around them: itercl/_base.py, call_timings).
py::dict phases_dict(const Phases& phases);

// Device::select for each spec (the CLI's: "auto", "gpu", "cpu", "P:D", a name's substring).
std::vector<Device> select_devices(const std::vector<std::string>& specs);

// A kernel struct from a JSON object's text ("" or "{}": the defaults); its from_json names bad fields.
template <typename Kernel>
Kernel kernel_from_json(const std::string& text) {
  Kernel k;
  if (!text.empty()) from_json(parse_config_json(text, "kernel"), k);
  return k;
}
template <typename Kernel>
std::string kernel_to_json(const Kernel& k) {
  nlohmann::json j;
  to_json(j, k);
  return j.dump();
}

// Registers the translation of errors: ParamError and InputError become ValueError, the rest of
// itercl's errors and OpenCL's RuntimeError.
void register_errors(py::module_& m);

// The family bindings, one file each.
void bind_devices(py::module_& m);
void bind_kmeans(py::module_& m);
void bind_smacof(py::module_& m);
void bind_pagerank(py::module_& m);
void bind_pairwise(py::module_& m);
void bind_pair_histogram(py::module_& m);

}  // namespace itercl::python
