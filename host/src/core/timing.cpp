#include "itercl/timing.hpp"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace itercl {

void to_json(nlohmann::json& j, const Timings& t) {
  j = {{"kernel_ms", t.kernel_s * 1e3},
       {"transfer_ms", t.transfer_s * 1e3},
       {"host_ms", t.host_s * 1e3},
       {"wall_ms", t.wall_s * 1e3},
       {"comm_ms", t.comm_s * 1e3}};
}

Timings median(std::span<const Timings> samples) {
  auto field = [&](double Timings::*member) {
    std::vector<double> v;
    for (const Timings& t : samples) v.push_back(t.*member);
    if (v.empty()) return 0.0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    if (v.size() % 2) return *mid;
    return (*mid + *std::max_element(v.begin(), mid)) / 2;
  };
  return {field(&Timings::kernel_s), field(&Timings::transfer_s), field(&Timings::host_s), field(&Timings::wall_s),
          field(&Timings::comm_s)};
}

std::string utc_timestamp(const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, format, &tm);
  return buffer;
}

double event_seconds(const cl::Event& e) {
  const auto start = e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
}

double busy_seconds(const std::vector<cl::Event>& events) {
  std::vector<std::pair<cl_ulong, cl_ulong>> spans;
  for (const cl::Event& e : events)
    spans.emplace_back(e.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                       e.getProfilingInfo<CL_PROFILING_COMMAND_END>());
  std::sort(spans.begin(), spans.end());
  cl_ulong busy = 0, covered = 0;  // covered: the end of the spans counted so far
  for (const auto& [start, end] : spans) {
    const cl_ulong from = std::max(start, covered);
    if (end > from) busy += end - from;
    covered = std::max(covered, end);
  }
  return static_cast<double>(busy) * 1e-9;
}

}  // namespace itercl
