// The program cache: an embedded kernel file plus an option string is built once per device and
// process (from the disk cache when an earlier run compiled it), then reused by every driver and
// every iteration.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "core/device_state.hpp"
#include "core/kernel_source.hpp"
#include "core/phase_clock.hpp"
#include "core/program_build.hpp"
#include "itercl/error.hpp"

namespace itercl {

namespace core {

// ITERCL_PRINT_SOURCE: on for 1, true, yes or on, off when unset, empty or 0, false, no or off (any case);
// anything else is refused, so that a typo cannot silently mean either.
bool print_source() {
  const char* value = std::getenv("ITERCL_PRINT_SOURCE");
  if (!value) return false;
  std::string v(value);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view on : {"1", "true", "yes", "on"})
    if (v == on) return true;
  for (std::string_view off : {"", "0", "false", "no", "off"})
    if (v == off) return false;
  throw InputError(std::string("ITERCL_PRINT_SOURCE: '") + value + "' is neither 1/true/yes/on nor 0/false/no/off");
}

}  // namespace core

const cl::Program& Device::program(const std::string& file, const std::string& options) const {
  std::lock_guard lock(state_->programs_mutex);
  auto key = std::make_pair(file, options);
  if (auto it = state_->programs.find(key); it != state_->programs.end()) return it->second;

  const core::Phase building("program_build");  // from the disk cache, or compiled
  const std::string source = core::kernel_source(file);
  // Every kernel is OpenCL C 1.2: the newest version NVIDIA's driver compiles.
  const std::string all_options = "-cl-std=CL1.2 " + options;
  if (core::print_source())
    std::cerr << "// itercl: " << file << " built with " << all_options << "\n" << source << "\n";

  cl::Program program =
      core::driver_caches_kernels(state_->info)
          ? core::from_source(state_->context, state_->device, file, source, all_options)
          : core::build_program(state_->context, state_->device, state_->info, file, source, all_options);
  return state_->programs.emplace(std::move(key), std::move(program)).first->second;
}

cl::Kernel Device::kernel(const std::string& file, const std::string& options, const char* name) const {
  return cl::Kernel(program(file, options), name);
}

}  // namespace itercl
