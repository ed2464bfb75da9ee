#include "itercl/peak.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/device_data.hpp"
#include "core/kernel_args.hpp"
#include "itercl/error.hpp"
#include "itercl/timing.hpp"

namespace itercl {
namespace tuning {

constexpr int kRuns = 5, kChains = 2, kWidth = 8, kIterations = 1024;  // as cl/peak.cl

// Work-groups of 64: large enough for PoCL to vectorise across work-items, a multiple of any GPU's warp.
constexpr std::size_t kWorkGroup = 64;

// FMA work-items per compute unit: on a GPU, many resident work-groups (8192 = 128 groups of 64) to hide
// its latencies; a CPU's compute unit (a core) runs its work-items one after another, so 1024 each is
// enough to time and keeps the run short.
constexpr std::size_t kGpuItemsPerUnit = 8192, kCpuItemsPerUnit = 1024;

// The copy's buffers (each also at most half the device's largest allocation): on a GPU, several times
// its L2 (tens of MiB), so that the copy streams device memory; on a CPU, where the copy is slower, 64 MiB
// keeps the measurement short.
constexpr std::size_t kGpuCopyBytes = std::size_t{256} << 20, kCpuCopyBytes = std::size_t{64} << 20;

// The copy kernel moves real4 elements, with REAL=float: 16 bytes each.
constexpr std::size_t kCopyElement = 4 * sizeof(float);

double best_seconds(cl::CommandQueue& queue, cl::Kernel& kernel, std::size_t global) {
  double best = 1e30;
  for (int r = 0; r < kRuns; ++r) {
    cl::Event e;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(kWorkGroup), nullptr, &e);
    e.wait();
    best = std::min(best, event_seconds(e));
  }
  return best;
}

double fma_gflops(const Device& device, Precision p) {
  const std::size_t global =
      device.info().compute_units * (device.info().type == "gpu" ? kGpuItemsPerUnit : kCpuItemsPerUnit);
  cl::Buffer out(device.context(), CL_MEM_WRITE_ONLY, global * real_size(p));
  cl::Kernel k = device.kernel("peak.cl", "-D REAL=" + std::string(precision_name(p)), "fma_chains");
  with_real(p, [&](auto zero) {
    using T = decltype(zero);
    set_args(k, out, T(0.999), T(0.001));  // a = 0.999: |a| < 1 keeps the chains finite
  });
  return 2.0 * kWidth * kChains * kIterations * static_cast<double>(global) / best_seconds(device.queue(), k, global) *
         1e-9;
}

double copy_gbs(const Device& device) {
  const std::size_t cap = device.info().type == "gpu" ? kGpuCopyBytes : kCpuCopyBytes;
  const std::size_t bytes = std::min<std::size_t>(cap, device.info().max_allocation / 2) / kCopyElement * kCopyElement;
  cl::Buffer in(device.context(), CL_MEM_READ_WRITE, bytes), out(device.context(), CL_MEM_READ_WRITE, bytes);
  device.queue().enqueueFillBuffer(in, 0.0f, 0, bytes);
  cl::Kernel k = device.kernel("peak.cl", "-D REAL=float", "copy");
  set_args(k, in, out);
  return 2.0 * static_cast<double>(bytes) / best_seconds(device.queue(), k, bytes / kCopyElement) * 1e-9;
}

}  // namespace tuning

void to_json(nlohmann::json& j, const DevicePeaks& p) {
  j = {{"fp32_gflops", p.fp32_gflops}, {"fp64_gflops", p.fp64_gflops}, {"bandwidth_gbs", p.bandwidth_gbs}};
}

DevicePeaks measure_peaks(const Device& device) {
  try {
    DevicePeaks p;
    p.fp32_gflops = tuning::fma_gflops(device, Precision::f32);
    if (device.info().fp64) p.fp64_gflops = tuning::fma_gflops(device, Precision::f64);
    p.bandwidth_gbs = tuning::copy_gbs(device);
    return p;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

}  // namespace itercl
