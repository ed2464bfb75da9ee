// itercl.devices(), the default device spec, the program cache switch.
#include <pybind11/stl.h>

#include "convert.hpp"

namespace itercl::python {

void bind_devices(py::module_& m) {
  m.def("devices", [] {
    py::list out;
    for (const DeviceInfo& d : list_devices()) {
      py::dict info;
      info["id"] = d.id();
      info["type"] = d.type;
      info["name"] = d.name;
      info["platform"] = d.platform;
      info["vendor"] = d.vendor;
      info["version"] = d.version;
      info["driver_version"] = d.driver_version;
      info["opencl_c_version"] = d.opencl_c_version;
      info["compute_units"] = d.compute_units;
      info["global_memory"] = d.global_memory;
      info["max_allocation"] = d.max_allocation;
      info["local_memory"] = d.local_memory;
      info["max_work_group_size"] = d.max_work_group_size;
      info["fp64"] = d.fp64;
      info["nvidia_compute_capability"] = d.nvidia_compute_capability;  // 0 off NVIDIA; mma needs 80
      out.append(info);
    }
    return out;
  });
  // The spec a call without device= uses: ITERCL_DEVICE, else "auto" (the CLI's order without a config).
  m.def("default_device_spec", [] { return device_spec("", ""); });
  // Checks a spec now (InputError -> ValueError if nothing matches) and says which device it names.
  m.def("select_device", [](const std::string& spec) {
    const DeviceInfo& d = Device::select(spec).info();
    return py::make_tuple(d.id(), d.name, d.type, d.fp64);
  });
  m.def("set_program_disk_cache", &set_program_disk_cache);
  m.def("program_cache_dir", [] { return program_cache_dir().string(); });
}

}  // namespace itercl::python
