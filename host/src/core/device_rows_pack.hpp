// A caller's rows on the device (itercl::DeviceRows) checked and repacked there into the layout the
// kernels read (internal; cl/device_rows.cl).
#pragma once

#include "itercl/device.hpp"
#include "itercl/device_rows.hpp"
#include "itercl/timing.hpp"

namespace itercl::core {

struct PackedDeviceRows {
  cl::Buffer columns;         // rows x cols in the run's precision, column-major, each row less the origin row
  Eigen::RowVectorXd origin;  // the shift the values are less (read back: cols values), or zeros
  double largest = 0;         // the largest |value - origin|; finite (non-finite values are an InputError)
  Timings timings;            // the repacking kernel and the reads of the origin and the group maxima
};

// Checks `rows`: at least one row and one column, in a buffer of the device's context that holds them.
// `field` names the input in errors (ParamError for the buffer, InputError for the shape).
void check_device_rows(const Device& device, const DeviceRows& rows, const char* field);

// Checks `rows` and repacks them in `precision`, less the first row of `origin` (rows of the same
// precision and columns; null: no shift). Non-finite values are an InputError naming `field`.
PackedDeviceRows pack_device_rows(const Device& device, const DeviceRows& rows, Precision precision, const char* field,
                                  const DeviceRows* origin);

// Checks `rows` and reads their values back to the host as stored (rows * cols values of rows.precision).
std::vector<unsigned char> read_device_rows(const Device& device, const DeviceRows& rows, const char* field);

}  // namespace itercl::core
