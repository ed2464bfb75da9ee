// Device selection, one context and profiling queue per device, and the program cache.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/matrix.hpp"
#include "itercl/opencl.hpp"

namespace itercl {

struct DeviceInfo {
  int platform_index = 0, device_index = 0;  // "P:D" as `itercl devices` lists them
  std::string platform, name, vendor;
  std::string type;  // "gpu", "cpu", "accelerator" or "other"
  std::string version, driver_version, opencl_c_version;
  unsigned compute_units = 0;
  std::uint64_t global_memory = 0, max_allocation = 0, local_memory = 0;
  std::size_t max_work_group_size = 0;
  bool fp64 = false;
  // NVIDIA's compute capability, major * 10 + minor (cl_nv_device_attribute_query); 0 on other platforms.
  // Kernels with inline PTX (cl/kmeans_mma.cl) need it.
  int nvidia_compute_capability = 0;

  std::string id() const { return std::to_string(platform_index) + ":" + std::to_string(device_index); }
};
void to_json(nlohmann::json& j, const DeviceInfo& info);

// Every OpenCL device on every platform, in platform then device order. An empty list when no ICD
// is registered (never an exception for that: `itercl devices` reports it).
std::vector<DeviceInfo> list_devices();

// Why list_devices() is empty, and what to do: PoCL registered but unable to create its kernel cache
// folder (an unwritable HOME), else how to install a driver. Device::select throws it.
std::string no_device_message();

// Compiled programs are kept on disk between runs (keyed by device, driver version, source and
// options) in program_cache_dir(): $ITERCL_CACHE_DIR, else $XDG_CACHE_HOME/itercl, else ~/.cache/itercl.
// set_program_disk_cache(false) (the CLI's --no-cache) compiles everything afresh in this process.
void set_program_disk_cache(bool enabled);
std::filesystem::path program_cache_dir();

// The OpenCL compiler's messages of a build that succeeded: the driver's build log (NVIDIA's) and what its
// compiler wrote to stderr itself during the build (PoCL's in-process clang: "5 warnings generated."),
// which is caught so that it never reaches the terminal. A failed build carries both in its BuildError.
// The handler (the CLI's --verbose prints them) is called for every build with messages, from the
// building thread; none (the default) drops them.
using BuildLogHandler =
    std::function<void(const std::string& file, const std::string& options, const std::string& log)>;
void set_build_log_handler(BuildLogHandler handler);
// Hands stderr back to the process for good: a build in progress on another thread stops catching what
// is written there, and later builds catch nothing (their compiler's messages reach stderr). For a
// program that writes its last words while a build may be running, then ends without waiting for it
// (the CLI at tune's --budget or Ctrl-C): written during the build, they would join its log and be lost.
void release_stderr();

// Throws InputError if `p` needs fp64 and the device has none.
void require_precision(const DeviceInfo& info, Precision p);

// The spec a run uses: the command line's --device, else ITERCL_DEVICE, else the config's, else "auto".
std::string device_spec(std::string_view from_command_line, std::string_view from_config);

// A device with its context, an in-order profiling queue and a cache of built programs. Copies are
// handles to the same state: selecting the same device twice in a process shares the context, so a
// program is built once per device and process.
class Device {
 public:
  // spec: "auto" (a GPU if present, else a CPU), "gpu", "cpu", "P:D", or a case-insensitive
  // substring of the device name. Throws InputError if nothing matches (listing what exists), and
  // RuntimeError with installation advice if there is no OpenCL device at all.
  static Device select(std::string_view spec);

  // A device over the caller's own OpenCL objects (as ViennaCL's and Boost.Compute's users hold them):
  // itercl builds its programs and allocates its buffers in `context` and enqueues on `queue`, so
  // buffers of the caller's in that context can be read by itercl's kernels and the reverse. The queue
  // must be in-order and have CL_QUEUE_PROFILING_ENABLE (itercl reads its events' times); else
  // InputError. Unlike select(), each call makes a handle with a program cache of its own.
  static Device from_opencl(const cl::Context& context, const cl::Device& device, const cl::CommandQueue& queue);

  const DeviceInfo& info() const;
  const cl::Context& context() const;
  const cl::Device& device() const;
  cl::CommandQueue& queue() const;

  void require(Precision p) const { require_precision(info(), p); }

  // The program built from an embedded kernel file (e.g. "kmeans.cl") with `options`; built on first
  // use, then served from the cache. Throws BuildError carrying the build log and the options.
  const cl::Program& program(const std::string& file, const std::string& options) const;
  cl::Kernel kernel(const std::string& file, const std::string& options, const char* name) const;

  struct State;                             // opaque: defined in the library's sources
  State& state() const { return *state_; }  // for the library's internals (the staging chunks, the programs)

 private:
  explicit Device(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace itercl
