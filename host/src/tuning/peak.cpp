#include "itercl/peak.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/device_data.hpp"
#include "itercl/error.hpp"
#include "itercl/timing.hpp"

namespace itercl {
namespace {

constexpr int kRuns = 5, kChains = 2, kWidth = 8, kIterations = 1024;  // as cl/peak.cl

// Work-groups of 64: large enough for PoCL to vectorise across work-items, a multiple of any GPU's warp.
double best_seconds(cl::CommandQueue& queue, cl::Kernel& kernel, std::size_t global) {
  double best = 1e30;
  for (int r = 0; r < kRuns; ++r) {
    cl::Event e;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(64), nullptr, &e);
    e.wait();
    best = std::min(best, event_seconds(e));
  }
  return best;
}

double fma_gflops(const Device& device, Precision p) {
  const std::size_t global = device.info().compute_units * (device.info().type == "gpu" ? 8192u : 1024u);
  cl::Buffer out(device.context(), CL_MEM_WRITE_ONLY, global * real_size(p));
  cl::Kernel k = device.kernel("peak.cl", "-D REAL=" + std::string(precision_name(p)), "fma_chains");
  k.setArg(0, out);
  with_real(p, [&](auto zero) {
    using T = decltype(zero);
    k.setArg(1, T(0.999));  // |a| < 1 keeps the chains finite
    k.setArg(2, T(0.001));
  });
  return 2.0 * kWidth * kChains * kIterations * static_cast<double>(global) / best_seconds(device.queue(), k, global) *
         1e-9;
}

double copy_gbs(const Device& device) {
  const std::size_t cap = device.info().type == "gpu" ? std::size_t{256} << 20 : std::size_t{64} << 20;
  const std::size_t bytes = std::min<std::size_t>(cap, device.info().max_allocation / 2) / 16 * 16;
  cl::Buffer in(device.context(), CL_MEM_READ_WRITE, bytes), out(device.context(), CL_MEM_READ_WRITE, bytes);
  device.queue().enqueueFillBuffer(in, 0.0f, 0, bytes);
  cl::Kernel k = device.kernel("peak.cl", "-D REAL=float", "copy");
  k.setArg(0, in);
  k.setArg(1, out);
  return 2.0 * static_cast<double>(bytes) / best_seconds(device.queue(), k, bytes / 16) * 1e-9;
}

}  // namespace

void to_json(nlohmann::json& j, const DevicePeaks& p) {
  j = {{"fp32_gflops", p.fp32_gflops}, {"fp64_gflops", p.fp64_gflops}, {"bandwidth_gbs", p.bandwidth_gbs}};
}

DevicePeaks measure_peaks(const Device& device) {
  try {
    DevicePeaks p;
    p.fp32_gflops = fma_gflops(device, Precision::f32);
    if (device.info().fp64) p.fp64_gflops = fma_gflops(device, Precision::f64);
    p.bandwidth_gbs = copy_gbs(device);
    return p;
  } catch (...) {
    rethrow_as_itercl_error();
  }
}

}  // namespace itercl
