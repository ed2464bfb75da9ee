// The program cache: an embedded kernel file plus an option string is built once per device and
// process (from the disk cache when an earlier run compiled it), then reused by every driver and
// every iteration.
#include <cstdlib>
#include <iostream>

#include "core/device_state.hpp"
#include "core/kernel_source.hpp"
#include "core/phase_clock.hpp"
#include "core/program_build.hpp"

namespace itercl {

const cl::Program& Device::program(const std::string& file, const std::string& options) const {
  std::lock_guard lock(state_->programs_mutex);
  auto key = std::make_pair(file, options);
  if (auto it = state_->programs.find(key); it != state_->programs.end()) return it->second;

  const core::Phase building("program_build");  // from the disk cache, or compiled
  const std::string source = core::kernel_source(file);
  // Every kernel is OpenCL C 1.2: the newest version NVIDIA's driver compiles.
  const std::string all_options = "-cl-std=CL1.2 " + options;
  if (const char* print = std::getenv("ITERCL_PRINT_SOURCE"); print && *print)
    std::cerr << "// itercl: " << file << " built with " << all_options << "\n" << source << "\n";

  cl::Program program = core::build_program(state_->context, state_->device, state_->info, file, source, all_options);
  return state_->programs.emplace(std::move(key), std::move(program)).first->second;
}

cl::Kernel Device::kernel(const std::string& file, const std::string& options, const char* name) const {
  return cl::Kernel(program(file, options), name);
}

}  // namespace itercl
