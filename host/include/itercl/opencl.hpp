// The one place that configures the OpenCL C++ bindings (Khronos OpenCL-CLHPP 2023.02, Debian 12's
// opencl-clhpp-headers). Target and minimum 1.2: every device we run on (NVIDIA's driver, PoCL) accepts
// the 1.2 API, and CLHPP 2023.02 does not compile TARGET 200/300 with MINIMUM 120: its CommandQueue
// constructors call cl::detail::getContextPlatformVersion whenever TARGET >= 200 and MINIMUM < 200, but
// CL/opencl.hpp defines that function only under TARGET >= 120 && MINIMUM < 120. Exceptions are on, so
// every failing call throws cl::Error naming the call.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif
#include <CL/opencl.hpp>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
