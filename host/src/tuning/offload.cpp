#include "tuning/offload.hpp"

#include <algorithm>

#include "itercl/error.hpp"
#include "itercl/tuning.hpp"

namespace itercl {

std::optional<double> predicted_ms(const Workload& w, const DeviceInfo& device, nlohmann::json* entry) {
  const TunedParameters db = tuned_parameters("offload", device);
  const auto it = db.values.find(w.algorithm);
  if (it == db.values.end() || !it->is_object()) return std::nullopt;
  const nlohmann::json& e = *it;
  auto number = [&](const char* key) -> std::optional<double> {
    const auto v = e.find(key);
    if (v == e.end() || !v->is_number() || v->get<double>() < 0)
      throw RuntimeError("tuning database, offload entries " + nlohmann::json(db.sources).dump() + ": " + w.algorithm +
                         "." + key + " must be a number >= 0, got " +
                         (v == e.end() ? std::string("nothing") : v->dump()));
    return v->get<double>();
  };
  const double setup = *number("setup_ms"), per_iteration = *number("iteration_ms"), gflops = *number("gflops");
  if (gflops <= 0)
    throw RuntimeError("tuning database, offload entries " + nlohmann::json(db.sources).dump() + ": " + w.algorithm +
                       ".gflops must be positive");
  if (entry) *entry = {{"entry", e}, {"sources", db.sources}};
  return setup + w.iterations * (per_iteration + w.flops_per_iteration / (gflops * 1e6));
}

DeviceChoice choose_auto_device(const Workload& w, const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) throw RuntimeError("device auto: no OpenCL device present");
  auto first = [&](const char* type) {
    return std::find_if(devices.begin(), devices.end(), [&](const DeviceInfo& d) { return d.type == type; });
  };
  const auto gpu = first("gpu"), cpu = first("cpu");
  if (gpu == devices.end() || cpu == devices.end()) {
    const DeviceInfo& only = gpu != devices.end() ? *gpu : cpu != devices.end() ? *cpu : devices.front();
    return {only, {{"rule", "auto"}, {"verdict", "the only " + only.type + " present: nothing to compare"}}};
  }

  nlohmann::json why = {
      {"rule", "auto: the device the overhead model predicts faster (offload.hpp)"},
      {"workload",
       {{"algorithm", w.algorithm}, {"flops_per_iteration", w.flops_per_iteration}, {"iterations", w.iterations}}},
      {"candidates", nlohmann::json::array()}};
  std::optional<double> ms[2];
  const DeviceInfo* candidates[2] = {&*gpu, &*cpu};
  for (int i = 0; i < 2; ++i) {
    nlohmann::json entry;
    ms[i] = predicted_ms(w, *candidates[i], &entry);
    nlohmann::json c = {{"device", candidates[i]->name}, {"id", candidates[i]->id()}};
    if (ms[i]) c["predicted_ms"] = *ms[i], c["model"] = entry;
    why["candidates"].push_back(c);
  }
  if (!ms[0] || !ms[1]) {
    why["verdict"] = "no offload model for " + w.algorithm + " on both devices: the GPU, as without one";
    return {*gpu, why};
  }
  const bool cpu_faster = *ms[1] < *ms[0];
  why["verdict"] = cpu_faster ? "the CPU: the problem is too small for offloading to pay"
                              : "the GPU: the problem is large enough for offloading to pay";
  return {cpu_faster ? *cpu : *gpu, why};
}

}  // namespace itercl
