// Device discovery and selection, and the per-device state every Device handle shares.
#include "itercl/device.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/device_state.hpp"
#include "core/environment.hpp"
#include "itercl/error.hpp"

namespace itercl {
namespace core {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "gpu";
  if (t & CL_DEVICE_TYPE_CPU) return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back())))) s.pop_back();
  return s;
}

struct Found {
  DeviceInfo info;
  cl::Device device;
};

DeviceInfo describe(int p, int d, const cl::Device& dev);

std::uint64_t bytes_from_environment(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  std::uint64_t bytes = 0;
  const std::string_view text(v);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (ec != std::errc() || end != text.data() + text.size() || bytes == 0)
    throw InputError(std::string(name) + ": '" + v + "' is not a positive number of bytes");
  return bytes;
}

// ITERCL_DEVICE_MEMORY and ITERCL_MAX_ALLOCATION lower what a device reports (never raise it): for a
// device shared with other work, and so that the tests can run on a small CPU the code paths that
// split data a device cannot hold at once (several buffers, points streamed through it).
void apply_memory_limits(DeviceInfo& i) {
  if (const std::uint64_t memory = bytes_from_environment("ITERCL_DEVICE_MEMORY")) {
    i.global_memory = std::min(i.global_memory, memory);
    i.max_allocation = std::min(i.max_allocation, memory);
  }
  if (const std::uint64_t allocation = bytes_from_environment("ITERCL_MAX_ALLOCATION"))
    i.max_allocation = std::min(i.max_allocation, allocation);
}

// All devices. clGetPlatformIDs answers CL_PLATFORM_NOT_FOUND_KHR (cl_khr_icd) when the loader has no
// ICD registered: that is an empty list; any other failure is an error naming its call and code.
std::vector<Found> discover() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    if (e.err() == CL_PLATFORM_NOT_FOUND_KHR) return {};
    rethrow_as_itercl_error();
  }
  std::vector<Found> found;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& e) {
      if (e.err() == CL_DEVICE_NOT_FOUND) continue;  // a platform with no devices
      rethrow_as_itercl_error();
    }
    for (std::size_t d = 0; d < devices.size(); ++d)
      found.push_back({describe(static_cast<int>(p), static_cast<int>(d), devices[d]), devices[d]});
  }
  return found;
}

// The description of one device; `p` and `d` its place in the listing (`itercl devices`).
DeviceInfo describe(int p, int d, const cl::Device& dev) {
  DeviceInfo i;
  i.platform_index = p;
  i.device_index = d;
  i.platform = trimmed(cl::Platform(dev.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>());
  i.name = trimmed(dev.getInfo<CL_DEVICE_NAME>());
  i.vendor = trimmed(dev.getInfo<CL_DEVICE_VENDOR>());
  i.type = type_name(dev.getInfo<CL_DEVICE_TYPE>());
  i.version = trimmed(dev.getInfo<CL_DEVICE_VERSION>());
  i.driver_version = trimmed(dev.getInfo<CL_DRIVER_VERSION>());
  i.opencl_c_version = trimmed(dev.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  i.compute_units = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  i.global_memory = dev.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  i.max_allocation = dev.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  i.local_memory = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  i.max_work_group_size = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const auto extensions = dev.getInfo<CL_DEVICE_EXTENSIONS>();
  i.fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
  if (extensions.find("cl_nv_device_attribute_query") != std::string::npos)
    i.nvidia_compute_capability = static_cast<int>(dev.getInfo<CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV>() * 10 +
                                                   dev.getInfo<CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV>());
  apply_memory_limits(i);
  return i;
}

std::string listing(const std::vector<Found>& all) {
  std::ostringstream s;
  for (const auto& f : all) s << "\n  " << f.info.id() << "  " << f.info.type << "  " << f.info.name;
  return s.str();
}

const Found* match(const std::vector<Found>& all, const std::string& spec) {
  auto first_of_type = [&](const std::string& type) -> const Found* {
    auto it = std::find_if(all.begin(), all.end(), [&](const Found& f) { return f.info.type == type; });
    return it == all.end() ? nullptr : &*it;
  };
  const std::string s = lower(spec);
  if (s == "auto") {
    if (const Found* gpu = first_of_type("gpu")) return gpu;
    if (const Found* cpu = first_of_type("cpu")) return cpu;
    return &all.front();
  }
  if (s == "gpu" || s == "cpu" || s == "accelerator") return first_of_type(s);
  if (auto colon = s.find(':'); colon != std::string::npos) {
    int p = -1, d = -1;
    auto [pe, pec] = std::from_chars(s.data(), s.data() + colon, p);
    auto [de, dec] = std::from_chars(s.data() + colon + 1, s.data() + s.size(), d);
    if (pec == std::errc() && dec == std::errc() && pe == s.data() + colon && de == s.data() + s.size()) {
      auto it = std::find_if(all.begin(), all.end(),
                             [&](const Found& f) { return f.info.platform_index == p && f.info.device_index == d; });
      return it == all.end() ? nullptr : &*it;
    }
  }
  auto it = std::find_if(all.begin(), all.end(), [&](const Found& f) {
    return lower(f.info.name).find(s) != std::string::npos || lower(f.info.platform).find(s) != std::string::npos;
  });
  return it == all.end() ? nullptr : &*it;
}

// One state per cl_device_id for the whole process. Deliberately never destroyed: releasing OpenCL
// objects from static destructors races the ICD loader's own teardown on some drivers.
struct Registry {
  std::mutex mutex;
  std::map<cl_device_id, std::shared_ptr<Device::State>> states;
};
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

}  // namespace core

void to_json(nlohmann::json& j, const DeviceInfo& i) {
  j = {{"id", i.id()},
       {"platform", i.platform},
       {"name", i.name},
       {"vendor", i.vendor},
       {"type", i.type},
       {"version", i.version},
       {"driver_version", i.driver_version},
       {"opencl_c_version", i.opencl_c_version},
       {"compute_units", i.compute_units},
       {"global_memory_bytes", i.global_memory},
       {"max_allocation_bytes", i.max_allocation},
       {"local_memory_bytes", i.local_memory},
       {"max_work_group_size", i.max_work_group_size},
       {"fp64", i.fp64},
       {"nvidia_compute_capability", i.nvidia_compute_capability}};
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  for (auto& f : core::discover()) out.push_back(std::move(f.info));
  return out;
}

std::string device_spec(std::string_view from_command_line, std::string_view from_config) {
  if (!from_command_line.empty()) return std::string(from_command_line);
  if (const char* env = std::getenv("ITERCL_DEVICE"); env && *env) return env;
  if (!from_config.empty()) return std::string(from_config);
  return "auto";
}

Device Device::select(std::string_view spec) {
  const auto all = core::discover();
  if (all.empty()) throw RuntimeError(no_device_message());
  const core::Found* f = core::match(all, std::string(spec));
  if (!f) throw InputError("device '" + std::string(spec) + "': no such device. Devices present:" + core::listing(all));

  core::Registry& r = core::registry();
  std::lock_guard lock(r.mutex);
  auto& state = r.states[f->device()];
  if (!state) state = std::make_shared<State>(f->info, f->device);
  return Device(state);
}

Device Device::from_opencl(const cl::Context& context, const cl::Device& device, const cl::CommandQueue& queue) {
  if (queue.getInfo<CL_QUEUE_DEVICE>()() != device() || queue.getInfo<CL_QUEUE_CONTEXT>()() != context())
    throw InputError("queue: belongs to another device or context than the ones given");
  const cl_command_queue_properties props = queue.getInfo<CL_QUEUE_PROPERTIES>();
  if (!(props & CL_QUEUE_PROFILING_ENABLE))
    throw InputError("queue: needs CL_QUEUE_PROFILING_ENABLE (itercl times its kernels and transfers by their events)");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw InputError("queue: needs in-order execution (itercl's drivers enqueue each step after the one it reads)");
  // Its place in the listing where discovery sees it, so that its id() matches `itercl devices`.
  DeviceInfo info = core::describe(-1, -1, device);
  for (const core::Found& f : core::discover())
    if (f.device() == device()) info = f.info;
  return Device(std::make_shared<State>(std::move(info), device, context, queue));
}

Device::State::State(DeviceInfo i, cl::Device d)
    : info(std::move(i)), device(std::move(d)), context(device), queue(context, device, CL_QUEUE_PROFILING_ENABLE) {}

Device::State::State(DeviceInfo i, cl::Device d, cl::Context c, cl::CommandQueue q)
    : info(std::move(i)), device(std::move(d)), context(std::move(c)), queue(std::move(q)) {}

const DeviceInfo& Device::info() const { return state_->info; }
const cl::Context& Device::context() const { return state_->context; }
const cl::Device& Device::device() const { return state_->device; }
cl::CommandQueue& Device::queue() const { return state_->queue; }

void require_precision(const DeviceInfo& info, Precision p) {
  if (p == Precision::f64 && !info.fp64)
    throw InputError("precision double: device '" + info.name +
                     "' has no double-precision support (cl_khr_fp64); use precision float or another device");
}

}  // namespace itercl
