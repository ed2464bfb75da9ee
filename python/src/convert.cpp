#include "convert.hpp"

#include "itercl/opencl.hpp"

namespace itercl::python {

Matrix to_matrix(const py::array& a, const char* field) {
  if (a.ndim() != 2) throw ParamError(field, "expected a 2-D array, got " + std::to_string(a.ndim()) + " dimensions");
  const Eigen::Index rows = a.shape(0), cols = a.shape(1);
  if (py::isinstance<py::array_t<float, py::array::c_style>>(a)) {
    const auto f = py::array_t<float, py::array::c_style>::ensure(a);
    return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(f.data(), rows, cols)
        .cast<double>();
  }
  const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d) throw ParamError(field, "expected an array of numbers");
  return Eigen::Map<const Matrix>(d.data(), rows, cols);
}

RowsView to_rows(const py::array& a, const char* field, py::object& keep) {
  if (a.ndim() != 2) throw ParamError(field, "expected a 2-D array, got " + std::to_string(a.ndim()) + " dimensions");
  const Eigen::Index rows = a.shape(0), cols = a.shape(1);
  if (py::isinstance<py::array_t<float, py::array::c_style>>(a))
    return {static_cast<const float*>(a.data()), rows, cols};
  const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d) throw ParamError(field, "expected an array of numbers");
  keep = d;  // `a` itself when it is float64 and C-contiguous already
  return {d.data(), rows, cols};
}

std::vector<double> to_vector(const py::object& a, const char* field) {
  if (a.is_none()) return {};
  const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d || d.ndim() != 1) throw ParamError(field, "expected a 1-D array of numbers");
  return {d.data(), d.data() + d.size()};
}

py::array_t<std::int32_t> to_int32_array(const py::array& a, const char* field) {
  auto d = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d || d.ndim() != 1) throw ParamError(field, "expected a 1-D array of integers");
  return d;
}

py::array to_numpy(Matrix&& m) {
  auto* owned = new Matrix(std::move(m));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<Matrix*>(p); });
  const auto rows = static_cast<py::ssize_t>(owned->rows()), cols = static_cast<py::ssize_t>(owned->cols());
  const std::vector<py::ssize_t> shape{rows, cols};
  const std::vector<py::ssize_t> strides{cols * static_cast<py::ssize_t>(sizeof(double)), sizeof(double)};
  return py::array_t<double>(shape, strides, owned->data(), free_when_done);
}

py::dict phases_dict(const Phases& phases) {
  py::dict out;
  for (const auto& [name, seconds] : phases.seconds) out[py::str(name)] = seconds * 1e3;
  return out;
}

std::vector<Device> select_devices(const std::vector<std::string>& specs) {
  std::vector<Device> devices;
  for (const std::string& spec : specs) devices.push_back(Device::select(spec));
  return devices;
}

void register_errors(py::module_& m) {
  static py::exception<BuildError> build_error(m, "BuildError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const BuildError& e) {
      PyErr_SetString(build_error.ptr(), e.what());
    } catch (const InputError& e) {  // ParamError too: "field: detail"
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const nlohmann::json::exception& e) {  // a kernel dict that is not valid JSON
      PyErr_SetString(PyExc_ValueError, (std::string("kernel: ") + e.what()).c_str());
    } catch (const cl::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, (std::string(e.what()) + " failed: " + cl_error_name(e.err())).c_str());
    }
  });
}

}  // namespace itercl::python
