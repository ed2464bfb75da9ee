// SMACOF with delta cut into several device buffers (smacof_parts.hpp), forced on a small device by
// ITERCL_MAX_ALLOCATION: the one-buffer run's stress and embedding bit for bit, in both storages and
// precisions, read down the columns and along the rows, uploaded or built from vectors; and the refusal
// when not even the device's memory holds delta. (Weighted runs keep V+, as large as full delta, in one
// buffer, so their delta is never cut.)
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "itercl/error.hpp"
#include "itercl/smacof.hpp"
#include "smacof/smacof_device.hpp"
#include "smacof/smacof_steps.hpp"
#include "smacof/smacof_test_data.hpp"
#include "test_support.hpp"

namespace smacof_buffers_tests {

namespace smacof = itercl::smacof;
using itercl::Matrix;
using itercl::Precision;
using itercl::SmacofKernel;
using itercl::yes_no;
using itercl::YesNo;

// The test device, as if it allocated at most `bytes` in one buffer, or held `bytes` in all: the limits
// apply as a device is described, and Device::select describes each device once per process, so this is
// the test device's context and queue described again (its kernels stay built).
itercl::Device limited(const char* variable, std::uint64_t bytes) {
  const itercl::Device& d = test::device();
  setenv(variable, std::to_string(bytes).c_str(), 1);
  itercl::Device l = itercl::Device::from_opencl(d.context(), d.device(), d.queue());
  unsetenv(variable);
  return l;
}

// 50,001 bytes in one buffer: 41 float or 20 double columns of N = 301 values, no whole number of either.
constexpr std::uint64_t kCap = 50001;

struct Run {
  std::vector<smacof::StressSums> sums;
  Matrix embedding, delta;
  std::size_t buffers = 0;
  SmacofKernel kernel;
};

// 12 iterations from x0 on `device`, delta uploaded (or built from `vectors` when given), read back too.
Run run_on(const itercl::Device& device, const SmacofKernel& k, Precision p, const Matrix& delta, const Matrix& vectors,
           const Matrix& x0) {
  const Eigen::Index n = x0.rows();
  smacof::SmacofDevice s(device, k,
                         {.n = n, .dim = 2, .precision = p, .features = vectors.size() ? vectors.cols() : 0});
  if (vectors.size())
    s.build_dissimilarities(vectors);
  else
    s.upload_dissimilarities(delta);
  Run run;
  run.delta = s.read_dissimilarities();
  s.start(x0, nullptr);
  for (int it = 0; it < 12; ++it) run.sums.push_back(s.iterate(nullptr));
  run.embedding = s.embedding();
  run.buffers = s.delta_buffers();
  run.kernel = s.kernel();
  return run;
}

TEST_SUITE_BEGIN("smacof");

TEST_CASE("SMACOF: delta in several buffers gives the one-buffer run bit for bit") {
  const Eigen::Index n = 301;
  const Matrix delta = smacof_test_data::noisy_delta(n, 31);
  const Matrix vectors = test::random_matrix(n, 3, 32, 1.0, 2.0);
  const Matrix x0 = test::random_matrix(n, 2, 34, 1.0, 3.0);
  const itercl::Device capped = limited("ITERCL_MAX_ALLOCATION", kCap);
  struct Case {
    Precision p;
    std::string variant;
    bool packed, from_vectors;
    int slices;  // 0: resolved, which raises them until a slice fits one allocation
    bool symmetric = false;
  };
  const Case cases[] = {
      {Precision::f32, "fused", false, true, 16},       {Precision::f32, "fused", true, true, 16},
      {Precision::f32, "fused_rows", false, true, 16},  {Precision::f64, "fused", false, false, 16},
      {Precision::f64, "fused", true, false, 16},       {Precision::f64, "fused_rows", false, false, 16},
      {Precision::f32, "fused", false, false, 0},       {Precision::f32, "fused", true, true, 16, true},
      {Precision::f64, "fused", true, false, 16, true},
  };
  for (const Case& c : cases) {
    CAPTURE(itercl::precision_name(c.p));
    CAPTURE(c.variant);
    CAPTURE(c.packed);
    CAPTURE(c.from_vectors);
    CAPTURE(c.slices);
    CAPTURE(c.symmetric);
    const Matrix& v = c.from_vectors ? vectors : Matrix();
    const Run cut =
        run_on(capped,
               {.variant = c.variant, .packed = yes_no(c.packed), .symmetric = yes_no(c.symmetric), .slices = c.slices},
               c.p, delta, v, x0);
    CHECK(cut.buffers >= 3);
    // The same slices on one buffer: each slice is computed by the same operations in the same order.
    const Run one = run_on(test::device(), cut.kernel, c.p, delta, v, x0);
    CHECK(one.buffers == 1);
    CHECK(one.kernel.slices == cut.kernel.slices);
    CHECK(cut.delta == one.delta);
    for (std::size_t it = 0; it < one.sums.size(); ++it) {
      CAPTURE(it);
      CHECK(cut.sums[it].stress == one.sums[it].stress);
      CHECK(cut.sums[it].squared_distances == one.sums[it].squared_distances);
    }
    CHECK(cut.embedding == one.embedding);
  }
}

TEST_CASE("SMACOF: delta larger than the device's memory is refused with the ranks that would hold it") {
  // 301 x 301 floats are 362 kB: 150 kB of device memory holds less than half of it, a third.
  const itercl::Device small = limited("ITERCL_DEVICE_MEMORY", 150000);
  itercl::SmacofParams p;
  p.kernel.variant = "fused";
  p.kernel.packed = YesNo::no;
  p.max_iter = 1;
  CHECK_THROWS_WITH_AS(itercl::Smacof(small, p).fit(smacof_test_data::noisy_delta(301, 35)),
                       doctest::Contains("over MPI ranks, one device each like this one, it needs at least 3 ranks "
                                         "(101 rows each) with full storage, or 2 with packed storage"),
                       itercl::InputError);
}

TEST_SUITE_END();

}  // namespace smacof_buffers_tests
