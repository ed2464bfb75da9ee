// What every handle to one device shares (internal).
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/pinned_buffer.hpp"
#include "itercl/device.hpp"

namespace itercl {

struct Device::State {
  State(DeviceInfo info, cl::Device device);  // a context and a profiling queue of its own
  State(DeviceInfo info, cl::Device device, cl::Context context, cl::CommandQueue queue);  // the caller's

  DeviceInfo info;
  cl::Device device;
  cl::Context context;
  cl::CommandQueue queue;

  std::mutex programs_mutex;
  std::map<std::pair<std::string, std::string>, cl::Program> programs;  // (file, options) -> built program

  // Two pinned chunks that uploads pack into while the other one crosses the bus (core/staged_copies.hpp),
  // made at the first upload and kept, so that later fits do not pay for pinning again.
  static constexpr std::size_t kStagingBytes = std::size_t{16} << 20;
  std::mutex staging_mutex;
  std::array<PinnedHostBuffer, 2> staging;
};

}  // namespace itercl
