// What every handle to one device shares (internal).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

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
};

}  // namespace itercl
