// Why no OpenCL device was found, in words a user can act on (internal; the public
// no_device_message() in itercl/device.hpp puts them together).
#pragma once

#include <string>

namespace itercl::core {

// PoCL (the CPU driver) keeps its kernels in a cache folder: $POCL_CACHE_DIR, else
// $XDG_CACHE_HOME/pocl/kcache, else $HOME/.cache/pocl/kcache. It fails to start, and so shows no
// device, when that folder cannot be created or written (a read-only or unset-up HOME in a container or
// a batch job). The folder and why it cannot be made; empty when it can.
std::string pocl_cache_problem();

// Whether an OpenCL ICD file names PoCL (in $OCL_ICD_VENDORS, else /etc/OpenCL/vendors).
bool pocl_registered();

}  // namespace itercl::core
