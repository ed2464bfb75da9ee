// The tuners' shared sweep loop: a candidate that cannot run is recorded as rejected, not fatal.
#include <doctest/doctest.h>

#include <new>
#include <vector>

#include "itercl/error.hpp"
#include "test_support.hpp"
#include "tune/tuners.hpp"

TEST_CASE("a candidate that fails to build or launch is rejected with its error, and the sweep goes on") {
  itercl::TuneReport report;
  report.kernel = "kmeans";
  itercl::TuneOptions options;
  std::vector<int> started;  // the candidates' progress events: one as each starts, numbered 1..total
  options.progress = [&](const itercl::ProgressEvent& e) {
    CHECK(e.algorithm == "kmeans");
    CHECK(e.step == "candidate");
    CHECK(e.max_iterations == 4);
    started.push_back(e.iteration);
  };
  const itercl::Device& d = test::device();
  // Enqueued with no arguments set on one work-item: the OpenCL call fails (CL_INVALID_KERNEL_ARGS, or
  // CL_INVALID_WORK_GROUP_SIZE where the driver checks the launch first, as PoCL does).
  cl::Kernel unset = d.kernel("kmeans.cl", "-D REAL=float -D DIM=2", "assign_naive");
  itercl::add_candidate(report, options, 4, {{"name", "enqueue"}}, [&](itercl::TuneCandidate&) {
    d.queue().enqueueNDRangeKernel(unset, cl::NullRange, cl::NDRange(1));
  });
  itercl::add_candidate(report, options, 4, {{"name", "build"}},
                        [&](itercl::TuneCandidate&) { d.program("kmeans.cl", "-D DIM=2"); });
  itercl::add_candidate(report, options, 4, {{"name", "memory"}},
                        [](itercl::TuneCandidate&) { throw std::bad_alloc(); });
  itercl::add_candidate(report, options, 4, {{"name", "fine"}}, [](itercl::TuneCandidate& c) {
    c.parameters = {{"name", "fine"}};
    c.median_ms = 1;
  });

  REQUIRE(report.candidates.size() == 4);
  CHECK(report.candidates[0].parameters == nlohmann::json{{"name", "enqueue"}});
  CHECK(report.candidates[0].rejected.find("OpenCL call clEnqueueNDRangeKernel failed: CL_INVALID_") == 0);
  CHECK(report.candidates[1].rejected.find("REAL must be defined") != std::string::npos);
  CHECK(report.candidates[2].rejected == "out of host memory");
  CHECK(report.candidates[3].rejected.empty());
  CHECK(report.candidates[3].median_ms == 1);
  CHECK(started == std::vector<int>{1, 2, 3, 4});

  // A problem the user must fix is not a candidate's failure: it ends the sweep.
  CHECK_THROWS_AS(
      itercl::add_candidate(report, options, 4, {}, [](itercl::TuneCandidate&) { throw itercl::InputError("bad"); }),
      itercl::InputError);
}

TEST_CASE("a budget ends the sweep between candidates, the first always measured") {
  itercl::TuneOptions options;
  options.budget_s = 0.25;
  std::vector<double> best_shown;  // the progress events' best so far
  options.progress = [&](const itercl::ProgressEvent& e) {
    if (!e.objective_name.empty()) best_shown.push_back(e.objective);
  };
  itercl::TuneReport report;
  report.kernel = "kmeans";
  auto slow = [](double ms) {  // a candidate that takes `ms` and measures ms
    return [ms](itercl::TuneCandidate& c) {
      const itercl::Stopwatch clock;
      while (clock.seconds() < ms * 1e-3) {
      }
      c.median_ms = c.min_ms = c.max_ms = ms;
    };
  };
  // 100 ms each: the second starts at 100 ms (100 + 100 fits in 250), the third would end past 250 ms, so it
  // and the rest are not started (on a busy machine the first may take long enough to leave only itself).
  for (int i = 0; i < 5; ++i) itercl::add_candidate(report, options, 5, {{"i", i}}, slow(100));
  CHECK(report.candidates.size() >= 1);
  CHECK(report.candidates.size() <= 2);
  CHECK(report.not_tried == 5 - report.candidates.size());
  CHECK(report.ended_early == "budget");
  CHECK(best_shown == std::vector<double>(report.candidates.size() - 1, 100.0));  // the first's time, once known

  // The first candidate runs whatever the budget; the caller sees the report after every candidate and can
  // conclude it (the CLI does so at its deadline, mid-candidate), keeping the best measured.
  itercl::TuneReport first;
  first.kernel = "kmeans";
  options = {};
  options.budget_s = 1e-9;
  std::vector<itercl::TuneReport> seen;
  options.measured = [&](const itercl::TuneReport& r) { seen.push_back(r); };
  for (int i = 0; i < 3; ++i) itercl::add_candidate(first, options, 3, {{"i", i}}, slow(1));
  CHECK(first.candidates.size() == 1);
  CHECK(first.not_tried == 2);
  CHECK(first.declared == 3);
  REQUIRE(seen.size() == 1);
  itercl::conclude_tuning(seen[0], test::device().info(), itercl::Precision::f32);
  CHECK(seen[0].best == 0);
  CHECK(seen[0].entry["tuned"]["median_ms"] == 1);
  CHECK(seen[0].entry["tuned"]["candidates"] == 1);
}

TEST_CASE("a gain counts only beyond the timed runs' spread") {
  auto timed = [](double median, double fastest, double slowest) {
    itercl::TuneCandidate c;
    c.median_ms = median, c.min_ms = fastest, c.max_ms = slowest;
    return c;
  };
  const itercl::TuneCandidate before = timed(8.0, 7.6, 8.5);
  // The case: 1.05x by the medians, but the runs overlap (the tuned run was the slower one).
  CHECK_FALSE(itercl::gain_beyond_noise(before, timed(7.6, 7.4, 8.3)));
  CHECK_FALSE(itercl::gain_beyond_noise(before, timed(7.0, 6.9, 7.6)));  // touching
  CHECK(itercl::gain_beyond_noise(before, timed(6.0, 5.8, 7.5)));
}
