// Building programs from source or from the disk cache of compiled binaries (internal).
#pragma once

#include <string>

#include "itercl/device.hpp"

namespace itercl::core {

// The stable 64-bit FNV-1a hash, as 16 hex digits: cache keys must not change between runs or builds.
std::string fnv1a_hex(const std::string& bytes);

// Builds `source` for the device from source, without the disk cache. Throws BuildError with the log
// and the options when the source does not compile.
cl::Program from_source(const cl::Context& context, const cl::Device& device, const std::string& name,
                        const std::string& source, const std::string& options);

// Whether the device's driver keeps its own cache of compiled kernels, so that itercl's disk cache only
// costs: PoCL (~/.cache/pocl/kcache, keyed by the source, the options and the device). Asking PoCL for a
// program's binary (CL_PROGRAM_BINARIES) compiles every kernel of the file for any work-group size first:
// the K-Means quick start from an empty cache took 176 s with itercl's disk cache against 89 s without on
// a loaded 2-core machine, and 3,016 of the 3,900 kernels in that machine's PoCL cache were such builds.
bool driver_caches_kernels(const DeviceInfo& info);

// Builds `source` for the device. With the disk cache on, a binary cached under a key of the device,
// its driver version, the source and the options is loaded instead of compiling; a freshly compiled
// program is stored. A cache entry that fails its checksum or fails to load is deleted and rebuilt:
// the cache can make a run faster, never make it fail. `from_disk` (if given) says which way it went.
// Throws BuildError with the log and the options when the source does not compile.
cl::Program build_program(const cl::Context& context, const cl::Device& device, const DeviceInfo& info,
                          const std::string& name, const std::string& source, const std::string& options,
                          bool* from_disk = nullptr);

}  // namespace itercl::core
