// The one place that configures the OpenCL C++ bindings (CLHPP 2023.02, Debian 12).
// Target and minimum 1.2: every device we run on (NVIDIA's driver, PoCL) accepts the 1.2 API, and
// CLHPP 2023.02 refuses TARGET 200/300 with MINIMUM 120 (see NOTES.md). Exceptions are on, so every
// failing call throws cl::Error naming the call.
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
