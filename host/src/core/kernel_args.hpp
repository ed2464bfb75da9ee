// Setting a kernel's arguments (internal): every driver sets them in one call, in the order of the
// kernel's signature, so no argument index is typed by hand and none is skipped.
#pragma once

#include "itercl/opencl.hpp"

namespace itercl {

// Sets all of `kernel`'s arguments, in order; cl::LocalSpaceArg (cl::Local(bytes)) for a local buffer.
template <class... Args>
void set_args(cl::Kernel& kernel, const Args&... args) {
  cl_uint index = 0;
  (kernel.setArg(index++, args), ...);
}

}  // namespace itercl
