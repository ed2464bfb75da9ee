// Where time goes, measured the same way by every algorithm: kernel and transfer time from OpenCL
// profiling events, host compute time and wall time from the host's steady clock.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "itercl/opencl.hpp"

namespace itercl {

struct Timings {
  double kernel_s = 0;    // device kernels (event start to end)
  double transfer_s = 0;  // host <-> device copies (event start to end)
  double host_s = 0;      // host computation (e.g. K-Means centroid update)
  double wall_s = 0;      // elapsed, including waits and launch overheads
  double comm_s = 0;      // in collectives among MPI ranks (0 on one rank)

  Timings& operator+=(const Timings& o) {
    kernel_s += o.kernel_s, transfer_s += o.transfer_s, host_s += o.host_s, wall_s += o.wall_s;
    comm_s += o.comm_s;
    return *this;
  }
};
void to_json(nlohmann::json& j, const Timings& t);  // in milliseconds: kernel_ms, transfer_ms, ..., comm_ms

// A whole call's wall time cut into named phases ("checks", "centring", "program_build", "upload",
// "graph_build", "reorder", "format", "init", "iterations", "readback") that partition it: at every
// switch of phase the time since the last switch goes to the phase left, so the phases add up to the
// call's time to solution by construction. Where two overlap, the time goes to the one the call waited on.
struct Phases {
  std::vector<std::pair<std::string, double>> seconds;  // in the order first entered; a phase re-entered adds up

  void add(const std::string& phase, double s);
  double total_s() const;  // the time to solution
  double of(const std::string& phase) const;
};
void to_json(nlohmann::json& j, const Phases& p);  // {"checks": ms, ...}: each phase in milliseconds

// Each field's median over `samples` (zeros for none): what reports quote for repeated steps.
Timings median(std::span<const Timings> samples);

// The current UTC time, as strftime formats it (default ISO 8601: 2026-11-21T23:17:25Z).
std::string utc_timestamp(const char* format = "%Y-%m-%dT%H:%M:%SZ");

// Seconds between a completed event's start and end (its queue must profile).
double event_seconds(const cl::Event& e);

// Seconds in which at least one of the completed events ran (their queues must profile, on one device):
// commands of two queues that overlap count once.
double busy_seconds(const std::vector<cl::Event>& events);

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace itercl
