// The phase clock: phases partition a call's wall time, nested clocks record to the outer ones, and a
// scoped phase resumes the one it interrupted.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "core/phase_clock.hpp"
#include "itercl/timing.hpp"

namespace core_tests {

using itercl::Phases;
using itercl::Stopwatch;
using itercl::core::Phase;
using itercl::core::PhaseClock;

void busy(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

TEST_CASE("phase clock: the phases add up to the call's wall time, each where the call was") {
  const Stopwatch wall;
  PhaseClock clock("checks");
  busy(0.002);
  itercl::core::enter_phase("upload");
  busy(0.004);
  {
    const Phase building("program_build");
    busy(0.003);
  }
  busy(0.001);  // upload resumed
  const Phases p = clock.phases();
  const double elapsed = wall.seconds();
  REQUIRE(p.seconds.size() == 3);
  CHECK(p.seconds[0].first == "checks");
  CHECK(p.seconds[1].first == "upload");
  CHECK(p.seconds[2].first == "program_build");
  CHECK(p.of("checks") >= 0.002);
  CHECK(p.of("upload") >= 0.005);
  CHECK(p.of("program_build") >= 0.003);
  CHECK(p.of("program_build") < p.of("upload"));
  CHECK(p.total_s() <= elapsed);
  CHECK(p.total_s() > elapsed - 0.001);  // nothing outside a phase but the clock's own start
}

TEST_CASE("phase clock: an inner clock's phases are its own, and the outer one holds them too") {
  PhaseClock outer("graph_build");
  busy(0.003);
  Phases inner;
  {
    PhaseClock fit("checks");
    busy(0.001);
    itercl::core::enter_phase("iterations");
    busy(0.002);
    inner = fit.phases();
  }
  const Phases all = outer.phases();
  CHECK(inner.of("graph_build") == 0);
  CHECK(inner.of("iterations") >= 0.002);
  CHECK(all.of("graph_build") >= 0.003);
  CHECK(all.of("graph_build") < 0.003 + inner.total_s());  // the fit's time went to the fit's phases
  CHECK(all.of("iterations") >= inner.of("iterations"));
  CHECK(all.total_s() >= all.of("graph_build") + inner.total_s() - 1e-9);
}

TEST_CASE("phase clock: without a clock a phase is nothing, and a clock ends with its scope") {
  CHECK(PhaseClock::current() == nullptr);
  { const Phase nothing("upload"); }
  {
    PhaseClock c("checks");
    CHECK(PhaseClock::current() == &c);
  }
  CHECK(PhaseClock::current() == nullptr);
}

}  // namespace core_tests
