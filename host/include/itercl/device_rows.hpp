// Rows that already live on the device, in a cl::Buffer of the caller's (their own kernels wrote them,
// ViennaCL or Boost.Compute holds them): n x d values, row-major, float or double, in the context of the
// itercl::Device they are given with (Device::from_opencl builds one from the caller's context). The
// algorithms that take them repack them on the device into their own layout; the values never travel
// through the host, except where an algorithm's host steps need them (KMeans::fit reads them back once).
#pragma once

#include "itercl/matrix.hpp"
#include "itercl/opencl.hpp"

namespace itercl {

struct DeviceRows {
  cl::Buffer buffer;  // at least rows * cols values of `precision`, from offset 0
  Eigen::Index rows = 0, cols = 0;
  Precision precision = Precision::f32;  // of the values as stored
};

}  // namespace itercl
