#include "itercl/timing.hpp"

#include <algorithm>
#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "core/phase_clock.hpp"

namespace itercl {

void to_json(nlohmann::json& j, const Timings& t) {
  j = {{"kernel_ms", t.kernel_s * 1e3},
       {"transfer_ms", t.transfer_s * 1e3},
       {"host_ms", t.host_s * 1e3},
       {"wall_ms", t.wall_s * 1e3},
       {"comm_ms", t.comm_s * 1e3}};
}

void Phases::add(const std::string& phase, double s) {
  for (auto& [name, total] : seconds)
    if (name == phase) {
      total += s;
      return;
    }
  seconds.emplace_back(phase, s);
}

double Phases::total_s() const {
  double sum = 0;
  for (const auto& [name, s] : seconds) sum += s;
  return sum;
}

double Phases::of(const std::string& phase) const {
  for (const auto& [name, s] : seconds)
    if (name == phase) return s;
  return 0;
}

void to_json(nlohmann::json& j, const Phases& p) {
  j = nlohmann::json::object();
  for (const auto& [name, s] : p.seconds) j[name] = s * 1e3;
}

namespace core {

namespace {
thread_local PhaseClock* innermost = nullptr;
}

PhaseClock::PhaseClock(std::string first) : outer_(innermost), phase_(std::move(first)), since_(Clock::now()) {
  for (PhaseClock* c = outer_; c; c = c->outer_) c->switch_to(phase_, since_);
  innermost = this;
}

PhaseClock::~PhaseClock() { innermost = outer_; }

PhaseClock* PhaseClock::current() { return innermost; }

void PhaseClock::switch_to(const std::string& phase, Clock::time_point now) {
  done_.add(phase_, std::chrono::duration<double>(now - since_).count());
  phase_ = phase;
  since_ = now;
}

void PhaseClock::enter(const std::string& phase) {
  const Clock::time_point now = Clock::now();  // one reading for every nested clock: they stay partitions
  for (PhaseClock* c = this; c; c = c->outer_) c->switch_to(phase, now);
}

Phases PhaseClock::phases() {
  switch_to(phase_, Clock::now());
  return done_;
}

Phase::Phase(const char* name) : clock_(PhaseClock::current()) {
  if (!clock_) return;
  resume_ = clock_->phase();
  clock_->enter(name);
}

Phase::~Phase() {
  if (clock_) clock_->enter(resume_);
}

void enter_phase(const char* name) {
  if (PhaseClock* c = PhaseClock::current()) c->enter(name);
}

}  // namespace core

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
