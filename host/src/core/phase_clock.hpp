// The clock of the call under way on this thread, cut into phases (itercl::Phases) (internal).
//
// A call (a fit, a run's whole time to solution) starts a PhaseClock; code below it names the phase it
// is in with a scoped Phase, without being handed the clock: a program build deep in Device::program,
// an upload in a family's buffers. Clocks nest: a fit's clock inside a runner's records to both, so the
// runner's phases hold the graph build before the fit and the fit's phases after it. Without a clock on
// the thread a Phase costs one thread-local read.
#pragma once

#include <chrono>
#include <string>

#include "itercl/timing.hpp"

namespace itercl::core {

class PhaseClock {
 public:
  explicit PhaseClock(std::string first);  // becomes this thread's current clock, in phase `first`
  ~PhaseClock();                           // the clock it replaced is current again
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

  // The time since the last switch goes to the phase left; this clock's outer clocks switch too.
  void enter(const std::string& phase);
  const std::string& phase() const { return phase_; }
  // The phases so far, the current one closed up to now (the clock runs on).
  Phases phases();

  static PhaseClock* current();  // this thread's innermost clock, or null

 private:
  using Clock = std::chrono::steady_clock;
  void switch_to(const std::string& phase, Clock::time_point now);
  PhaseClock* outer_;
  std::string phase_;
  Clock::time_point since_;
  Phases done_;
};

// While in scope, the current clock's time goes to `name`; at its end the phase it interrupted resumes.
class Phase {
 public:
  explicit Phase(const char* name);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  PhaseClock* clock_;
  std::string resume_;
};

// Switches the current clock, if any, to `name` for the rest of the call (no scope to return from).
void enter_phase(const char* name);

}  // namespace itercl::core
