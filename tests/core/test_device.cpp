// Device discovery and selection, the program cache, build errors, busy time over events.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/kernel_source.hpp"
#include "core/program_build.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans_assignment.hpp"
#include "itercl/timing.hpp"
#include "test_support.hpp"

using itercl::Device;

TEST_CASE("devices are listed with their properties") {
  const auto devices = itercl::list_devices();
  REQUIRE_FALSE(devices.empty());
  for (const auto& d : devices) {
    CAPTURE(d.name);
    CHECK_FALSE(d.name.empty());
    CHECK_FALSE(d.platform.empty());
    CHECK(d.compute_units >= 1);
    CHECK(d.global_memory >= d.max_allocation);
    CHECK(d.local_memory > 0);
    CHECK(d.max_work_group_size >= 1);
    CHECK(d.version.rfind("OpenCL ", 0) == 0);
  }
}

TEST_CASE("the environment lowers the memory a device reports, never raises it, and refuses a bad value") {
  const auto reported = itercl::list_devices().at(0);
  setenv("ITERCL_DEVICE_MEMORY", "3000000", 1);
  setenv("ITERCL_MAX_ALLOCATION", "1000000", 1);
  const auto limited = itercl::list_devices().at(0);
  CHECK(limited.global_memory == std::min<std::uint64_t>(reported.global_memory, 3000000));
  CHECK(limited.max_allocation == std::min<std::uint64_t>(reported.max_allocation, 1000000));
  setenv("ITERCL_MAX_ALLOCATION", "1e6", 1);
  CHECK_THROWS_WITH_AS(itercl::list_devices(), doctest::Contains("ITERCL_MAX_ALLOCATION: '1e6'"), itercl::InputError);
  unsetenv("ITERCL_DEVICE_MEMORY");
  unsetenv("ITERCL_MAX_ALLOCATION");
  CHECK(itercl::list_devices().at(0).max_allocation == reported.max_allocation);
}

TEST_CASE("selection by auto, type, index and name substring") {
  const auto devices = itercl::list_devices();
  const bool has_gpu = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.type == "gpu"; });
  CHECK(Device::select("auto").info().type == (has_gpu ? "gpu" : "cpu"));
  CHECK(Device::select("AUTO").info().name == Device::select("auto").info().name);

  for (const auto& d : devices) {
    CAPTURE(d.name);
    CHECK(Device::select(d.id()).info().name == d.name);
    CHECK(Device::select(d.type).info().type == d.type);
    std::string part = d.name.substr(0, std::min<std::size_t>(6, d.name.size()));
    std::transform(part.begin(), part.end(), part.begin(), [](unsigned char c) { return std::toupper(c); });
    CHECK(Device::select(part).info().name.find(d.name.substr(0, 6)) == 0);
  }
  CHECK_THROWS_WITH_AS(Device::select("no-such-device"), doctest::Contains(devices.front().name.c_str()),
                       itercl::InputError);
  CHECK_THROWS_WITH_AS(Device::select("7:7"), doctest::Contains("'7:7': no such device"), itercl::InputError);
}

TEST_CASE("one context per device and process, one build per file and options") {
  const Device a = Device::select(test::device().info().id());
  const Device b = Device::select(test::device().info().id());
  CHECK(a.context()() == b.context()());
  const std::string options = "-D REAL=float -D DIM=3";
  const cl::Program& first = a.program("kmeans.cl", options);
  CHECK(&first == &b.program("kmeans.cl", options));
  CHECK(&first != &a.program("kmeans.cl", options + " -D WG_SIZE=64"));
  CHECK_NOTHROW(a.kernel("kmeans.cl", options, "assign_naive"));
}

TEST_CASE("a failed build reports the log and the options") {
  CHECK_THROWS_WITH_AS(test::device().program("kmeans.cl", "-D REAL=float"),
                       doctest::Contains("DIM (features per point) must be defined"), itercl::BuildError);
  CHECK_THROWS_WITH_AS(test::device().program("kmeans.cl", "-D DIM=2"), doctest::Contains("REAL must be defined"),
                       itercl::BuildError);
  CHECK_THROWS_WITH_AS(test::device().program("kmeans.cl", "-D DIM=2"), doctest::Contains("-D DIM=2"),
                       itercl::BuildError);
  CHECK_THROWS_AS(test::device().program("no_such_kernel.cl", ""), itercl::RuntimeError);
}

TEST_CASE("embedded sources have their includes expanded") {
  const std::string source = itercl::core::kernel_source("kmeans.cl");
  CHECK(source.find("typedef REAL real;") != std::string::npos);
  CHECK(source.find("#include") == std::string::npos);
  CHECK(source.find("#line 1 \"common.clh\"") != std::string::npos);
}

TEST_CASE("double precision on a device without fp64 is a clear error") {
  itercl::DeviceInfo info;
  info.name = "Imaginary GPU";
  info.fp64 = false;
  CHECK_THROWS_WITH_AS(itercl::require_precision(info, itercl::Precision::f64),
                       doctest::Contains("'Imaginary GPU' has no double-precision support"), itercl::InputError);
  CHECK_NOTHROW(itercl::require_precision(info, itercl::Precision::f32));
}

TEST_CASE("compiled programs are cached on disk; a corrupt entry is rebuilt, never fatal") {
  test::TempDir dir;
  const char* before = std::getenv("ITERCL_CACHE_DIR");
  const std::string previous = before ? before : "";
  setenv("ITERCL_CACHE_DIR", dir.path.c_str(), 1);
  const itercl::Device& d = test::device();
  const std::string source = itercl::core::kernel_source("kmeans.cl"), options = "-cl-std=CL1.2 -D REAL=float -D DIM=5";
  auto build = [&] {
    bool from_disk = true;
    const cl::Program p =
        itercl::core::build_program(d.context(), d.device(), d.info(), "kmeans.cl", source, options, &from_disk);
    CHECK_NOTHROW(cl::Kernel(p, "assign_naive"));  // a usable program either way
    return from_disk;
  };
  auto entries = [&] {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir.path)) files.push_back(e.path());
    return files;
  };

  CHECK_FALSE(build());  // compiled, then stored
  REQUIRE(entries().size() == 1);
  CHECK(build());  // loaded

  {  // flip a byte of the stored binary: its checksum no longer matches
    std::fstream f(entries().front(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x5a');
  }
  CHECK_FALSE(build());
  CHECK(build());  // the rebuilt entry was stored again

  std::ofstream(entries().front(), std::ios::trunc) << "not a binary";
  CHECK_FALSE(build());

  itercl::set_program_disk_cache(false);
  CHECK_FALSE(build());
  CHECK_FALSE(build());
  itercl::set_program_disk_cache(true);
  if (before)
    setenv("ITERCL_CACHE_DIR", previous.c_str(), 1);
  else
    unsetenv("ITERCL_CACHE_DIR");
}

TEST_CASE("a device over the caller's context and queue runs itercl's kernels on the caller's objects") {
  const Device own = test::device();
  const cl::Device dev = own.device();
  const cl::Context context(dev);
  const cl::CommandQueue queue(context, dev, CL_QUEUE_PROFILING_ENABLE);
  const Device theirs = Device::from_opencl(context, dev, queue);
  CHECK(theirs.context()() == context());
  CHECK(theirs.queue()() == queue());
  CHECK(theirs.info().id() == own.info().id());  // found in the listing, as `itercl devices` names it

  // The same assignment through both devices: itercl's program is built in the caller's context.
  const itercl::Matrix X = test::random_matrix(300, 3, 7), C = test::random_matrix(5, 3, 8);
  itercl::KMeansAssignment mine(own, X, itercl::Precision::f64), yours(theirs, X, itercl::Precision::f64);
  const auto a = mine.assign(C);
  const std::vector<std::int32_t> expected(a.begin(), a.end());
  const auto b = yours.assign(C);
  CHECK(std::vector<std::int32_t>(b.begin(), b.end()) == expected);

  // A buffer the caller made in that context holds what itercl's kernels can read, and the reverse.
  const std::vector<float> values = {1, 2, 3};
  cl::Buffer shared(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * 3,
                    const_cast<float*>(values.data()));
  std::vector<float> back(3);
  theirs.queue().enqueueReadBuffer(shared, CL_TRUE, 0, sizeof(float) * 3, back.data());
  CHECK(back == values);
}

TEST_CASE("a caller's queue that itercl cannot time, or of another context, is refused with the reason") {
  const cl::Device dev = test::device().device();
  const cl::Context context(dev), other(dev);
  const cl::CommandQueue untimed(context, dev, 0);
  CHECK_THROWS_WITH_AS(Device::from_opencl(context, dev, untimed), doctest::Contains("CL_QUEUE_PROFILING_ENABLE"),
                       itercl::InputError);
  const cl::CommandQueue elsewhere(other, dev, CL_QUEUE_PROFILING_ENABLE);
  CHECK_THROWS_WITH_AS(Device::from_opencl(context, dev, elsewhere), doctest::Contains("another device or context"),
                       itercl::InputError);
}

TEST_CASE("busy time counts overlapping commands once and adds those that follow one another") {
  const Device d = test::device();
  cl::CommandQueue q(d.context(), d.device(), CL_QUEUE_PROFILING_ENABLE);
  std::vector<float> host(1 << 20, 1.0f);
  cl::Buffer buffer(d.context(), CL_MEM_READ_WRITE, host.size() * sizeof(float));
  cl::Event a, b;
  q.enqueueWriteBuffer(buffer, CL_FALSE, 0, host.size() * sizeof(float), host.data(), nullptr, &a);
  q.enqueueReadBuffer(buffer, CL_TRUE, 0, host.size() * sizeof(float), host.data(), nullptr, &b);
  const double ta = itercl::event_seconds(a), tb = itercl::event_seconds(b);
  REQUIRE(ta > 0);
  REQUIRE(tb > 0);
  CHECK(itercl::busy_seconds({}) == 0);
  CHECK(itercl::busy_seconds({a}) == doctest::Approx(ta).epsilon(1e-9));
  CHECK(itercl::busy_seconds({a, a, a}) == doctest::Approx(ta).epsilon(1e-9));  // the same span thrice: once
  // One in-order queue: b starts when a has ended, so their busy time is their sum, in either order.
  CHECK(itercl::busy_seconds({b, a}) == doctest::Approx(ta + tb).epsilon(1e-9));
}

TEST_CASE("the compiler's messages go to the build log, never to the terminal") {
  const itercl::Device& d = test::device();
  std::vector<std::string> logs;
  itercl::set_build_log_handler(
      [&](const std::string& file, const std::string&, const std::string& log) { logs.push_back(file + ": " + log); });
  // Warnings clang gives by default (a literal's value changed, an assignment as a condition), in a source
  // no cache has seen (the clock in a comment), so that the compiler really runs. stderr (fd 2) goes to a
  // file of the test's around the build: what the build writes there, the terminal would have shown.
  const std::string source = "// " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                             "\n__kernel void noisy(__global int* out) { int x = 1.5; if (x = out[0]) out[1] = x; }\n";
  test::TempDir dir;
  const std::filesystem::path caught = dir.path / "stderr.txt";
  std::fflush(stderr);
  const int terminal = ::dup(STDERR_FILENO);
  const int file = ::open(caught.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(terminal >= 0);
  REQUIRE(file >= 0);
  ::dup2(file, STDERR_FILENO);
  ::close(file);
  itercl::set_program_disk_cache(false);  // no entry of this one-off source in the user's cache
  const cl::Program p =
      itercl::core::build_program(d.context(), d.device(), d.info(), "noisy.cl", source, "-cl-std=CL1.2");
  itercl::set_program_disk_cache(true);
  std::fflush(stderr);
  ::dup2(terminal, STDERR_FILENO);
  ::close(terminal);
  itercl::set_build_log_handler({});
  CHECK_NOTHROW(cl::Kernel(p, "noisy"));
  CHECK(std::filesystem::file_size(caught) == 0);
  REQUIRE(logs.size() == 1);  // PoCL's clang says "2 warnings generated." on stderr, NVIDIA's driver in its log
  CHECK(logs[0].rfind("noisy.cl: ", 0) == 0);
  CHECK(logs[0].find("warning") != std::string::npos);
}
