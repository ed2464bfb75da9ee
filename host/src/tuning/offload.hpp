// Device "auto" as a rule (internal): seed 004's section 6.3 finding, that offloading pays only once the
// data is large enough, decided by the overhead model of its section 4.2 with measured parameters.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "itercl/device.hpp"

namespace itercl {

// What a run will cost, known before any device work: the algorithm (its key in tuning/offload.json),
// the flops of one iteration (the count its results report) and the most iterations it may run.
struct Workload {
  std::string algorithm;
  double flops_per_iteration = 0;
  double iterations = 0;
};

// The model's time for the workload on `device`, in ms:
//   setup_ms + iterations * (iteration_ms + flops_per_iteration / gflops)
// setup_ms: the one-time cost (buffers, the upload); iteration_ms: each iteration's fixed cost (launches,
// synchronisation, the loop-variant transfers); gflops: the rate the kernels reach. All three come from
// tuning/offload.json, measured by the suites' overhead groups (T = c + o). The host's share of an
// iteration is the same whichever device runs the kernels, so it is left out. Empty when the database
// has no complete entry for the algorithm on the device; `entry` receives the entry used.
std::optional<double> predicted_ms(const Workload& w, const DeviceInfo& device, nlohmann::json* entry = nullptr);

struct DeviceChoice {
  DeviceInfo device;
  nlohmann::json why;  // the rule, each candidate's prediction and the verdict: the results' "device_choice"
};

// Device "auto" among `devices` (list_devices()): with a GPU and a CPU present, the first of each is
// predicted and the faster chosen (the GPU on a tie, or when either has no prediction); otherwise the
// GPU, else the CPU, else the first device, as Device::select("auto") picks. Throws RuntimeError if
// `devices` is empty.
DeviceChoice choose_auto_device(const Workload& w, const std::vector<DeviceInfo>& devices);

}  // namespace itercl
