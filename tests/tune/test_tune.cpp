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
