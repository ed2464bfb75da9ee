// A caller's rows on the device checked (context, size, finiteness, range) and repacked there.
#include "core/device_rows_pack.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/defines.hpp"
#include "core/host_memory.hpp"
#include "core/int_indexing.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"

namespace itercl::core {

// pack_columns' work-group: a power of two every device launches; the kernel is one pass over memory.
constexpr int kPackGroup = 64;

void check_device_rows(const Device& device, const DeviceRows& rows, const char* field) {
  if (!rows.buffer()) throw ParamError(field, "no buffer (a default-constructed cl::Buffer)");
  if (rows.rows < 1 || rows.cols < 1)
    throw InputError(std::string(field) + ": no rows (shape " + std::to_string(rows.rows) + " x " +
                     std::to_string(rows.cols) + ")");
  check_int_indexing(field, static_cast<std::uint64_t>(rows.rows) * static_cast<std::uint64_t>(rows.cols), "values");
  if (rows.buffer.getInfo<CL_MEM_CONTEXT>()() != device.context()())
    throw ParamError(field, "the buffer belongs to another OpenCL context than device '" + device.info().name +
                                "' (build the device from your context: itercl::Device::from_opencl)");
  const std::size_t need = static_cast<std::size_t>(rows.rows * rows.cols) * real_size(rows.precision);
  const std::size_t has = rows.buffer.getInfo<CL_MEM_SIZE>();
  if (has < need)
    throw ParamError(field, "the buffer holds " + std::to_string(has) + " bytes; " + std::to_string(rows.rows) + " x " +
                                std::to_string(rows.cols) + " values in " +
                                std::string(precision_name(rows.precision)) + " need " + std::to_string(need));
  device.require(rows.precision);
}

PackedDeviceRows pack_device_rows(const Device& device, const DeviceRows& rows, Precision precision, const char* field,
                                  const DeviceRows* origin) {
  check_device_rows(device, rows, field);
  device.require(precision);
  if (origin && (origin->precision != rows.precision || origin->cols != rows.cols))
    throw ParamError(field, "is " + std::string(precision_name(rows.precision)) + " x " + std::to_string(rows.cols) +
                                " columns; the first input is " + std::string(precision_name(origin->precision)) +
                                " x " + std::to_string(origin->cols));
  PackedDeviceRows out;
  try {
    Stopwatch wall;
    const auto n = static_cast<std::size_t>(rows.rows), d = static_cast<std::size_t>(rows.cols);
    const std::size_t groups = (n + kPackGroup - 1) / kPackGroup, source = real_size(rows.precision);
    out.columns = cl::Buffer(device.context(), CL_MEM_READ_WRITE, n * d * real_size(precision));
    cl::Buffer largest(device.context(), CL_MEM_WRITE_ONLY, groups * source);
    cl::Kernel pack =
        device.kernel("device_rows.cl",
                      Defines(precision).add("SOURCE", precision_name(rows.precision)).add("WG_SIZE", kPackGroup).str(),
                      "pack_columns");
    set_args(pack, rows.buffer, static_cast<cl_int>(n), static_cast<cl_int>(d), origin ? origin->buffer : rows.buffer,
             static_cast<cl_int>(origin != nullptr), out.columns, largest);
    cl::CommandQueue& q = device.queue();
    cl::Event run, read_origin, read_largest;
    q.enqueueNDRangeKernel(pack, cl::NullRange, cl::NDRange(groups * kPackGroup), cl::NDRange(kPackGroup), nullptr,
                           &run);
    std::vector<unsigned char> shift(d * source, 0), maxima(groups * source);
    if (origin) q.enqueueReadBuffer(origin->buffer, CL_FALSE, 0, shift.size(), shift.data(), nullptr, &read_origin);
    q.enqueueReadBuffer(largest, CL_TRUE, 0, maxima.size(), maxima.data(), nullptr, &read_largest);
    if (origin) read_origin.wait();
    out.origin.resize(static_cast<Eigen::Index>(d));
    for (std::size_t j = 0; j < d; ++j)
      out.origin[static_cast<Eigen::Index>(j)] = rows.precision == Precision::f32
                                                     ? reinterpret_cast<const float*>(shift.data())[j]
                                                     : reinterpret_cast<const double*>(shift.data())[j];
    for (std::size_t g = 0; g < groups; ++g)
      out.largest = std::max(out.largest, rows.precision == Precision::f32
                                              ? static_cast<double>(reinterpret_cast<const float*>(maxima.data())[g])
                                              : reinterpret_cast<const double*>(maxima.data())[g]);
    out.timings.kernel_s = event_seconds(run);
    out.timings.transfer_s = (origin ? event_seconds(read_origin) : 0) + event_seconds(read_largest);
    out.timings.wall_s = wall.seconds();
  } catch (...) {
    rethrow_as_itercl_error();
  }
  if (!std::isfinite(out.largest))
    throw InputError(std::string(field) + ": contains NaN or infinity (or values whose differences overflow " +
                     std::string(precision_name(rows.precision)) + ")");
  return out;
}

std::vector<unsigned char> read_device_rows(const Device& device, const DeviceRows& rows, const char* field) {
  check_device_rows(device, rows, field);
  const std::size_t bytes = static_cast<std::size_t>(rows.rows * rows.cols) * real_size(rows.precision);
  std::vector<unsigned char> values = host_bytes("the device rows' host copy", bytes);
  try {
    device.queue().enqueueReadBuffer(rows.buffer, CL_TRUE, 0, bytes, values.data());
  } catch (...) {
    rethrow_as_itercl_error();
  }
  return values;
}

}  // namespace itercl::core
