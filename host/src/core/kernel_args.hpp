// Setting a kernel's arguments (internal): every driver sets them in one call, in the order of the
// kernel's signature, so no argument index is typed by hand and none is skipped.
#pragma once

#include <type_traits>
#include <utility>

#include "itercl/opencl.hpp"

namespace itercl {

// Sets all of `kernel`'s arguments, in order; cl::LocalSpaceArg (cl::Local(bytes)) for a local buffer.
// A buffer argument must be a named object that lives until the launch is enqueued: clSetKernelArg takes
// no reference to it, and NVIDIA's driver frees a temporary sub-buffer released in between, so that the
// launch fails with CL_INVALID_KERNEL_ARGS or crashes (PoCL keeps it and hides the mistake). Once
// enqueued, the command holds the buffer.
template <class... Args>
void set_args(cl::Kernel& kernel, Args&&... args) {
  static_assert(((std::is_lvalue_reference_v<Args> || !std::is_base_of_v<cl::Memory, std::remove_cvref_t<Args>>)&&...),
                "set_args: pass buffers as named objects that outlive the launch, not temporaries");
  cl_uint index = 0;
  (kernel.setArg(index++, std::forward<Args>(args)), ...);
}

}  // namespace itercl
