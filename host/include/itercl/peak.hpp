// A device's measured peaks: the ceilings benchmark reports compare achieved rates against.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "itercl/device.hpp"

namespace itercl {

struct DevicePeaks {
  double fp32_gflops = 0;
  double fp64_gflops = 0;    // 0 without fp64
  double bandwidth_gbs = 0;  // device memory, bytes read plus bytes written
};
void to_json(nlohmann::json& j, const DevicePeaks& p);

// The best of several runs of cl/peak.cl's FMA chains (per precision) and 4-wide copy, timed by
// OpenCL events. Takes a fraction of a second.
DevicePeaks measure_peaks(const Device& device);

}  // namespace itercl
