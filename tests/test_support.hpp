// Helpers shared by the device tests.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/matrix.hpp"
#include "kmeans/kmeans_kernel.hpp"
#include "tuning/tolerances.hpp"

// The library's tolerances (host/src/tuning/tolerances.hpp), as the tests spell them.
namespace tolerance = itercl::tolerance;

namespace test {

// The device under test: $ITERCL_DEVICE, else "auto" (PoCL's CPU device in CI). Selected once.
inline const itercl::Device& device() {
  static const itercl::Device d = itercl::Device::select(itercl::device_spec("", ""));
  return d;
}

inline const itercl::Precision kPrecisions[] = {itercl::Precision::f32, itercl::Precision::f64};

// The test tier. The default tier builds each kernel variant once per precision and shares the programs
// among test cases (a program is a compile of seconds to minutes on PoCL with a cold cache); the full
// tier (ITERCL_TEST_TIER=full: `ctest -L full`, which CI runs too) sweeps every shape and option set.
inline bool full_tier() {
  static const bool full = [] {
    const std::string_view tier = std::getenv("ITERCL_TEST_TIER") ? std::getenv("ITERCL_TEST_TIER") : "";
    if (tier != "" && tier != "default" && tier != "full") {
      std::fprintf(stderr, "ITERCL_TEST_TIER=%s: expected default or full\n", std::string(tier).c_str());
      std::exit(2);
    }
    return tier == "full";
  }();
  return full;
}

// A sweep over shapes or option sets, each a build of its own: all of `values` in the full tier, the
// first alone (the representative: put the most awkward first) in the default tier. Variants and
// precisions are not swept through this: the default tier runs every one of them.
template <class T>
std::vector<T> sweep(std::initializer_list<T> values) {
  return full_tier() ? std::vector<T>(values) : std::vector<T>{*values.begin()};
}
template <class T, std::size_t N>
std::vector<T> sweep(const T (&values)[N]) {
  return full_tier() ? std::vector<T>(values, values + N) : std::vector<T>{values[0]};
}
// K-Means' variants: the library's table (kmeans_kernel.hpp), so that a variant added there is tested by
// every test that walks this list the day it is added.
// variants_where: those whose entry `has` (a shape, a field), for a test of what only they do.
template <class Has>
std::vector<std::string> variants_where(Has has) {
  std::vector<std::string> names;
  for (const itercl::kmeans::Variant& v : itercl::kmeans::kVariantTable)
    if (has(v)) names.emplace_back(v.name);
  return names;
}
inline const std::vector<std::string> kVariants = variants_where([](const itercl::kmeans::Variant&) { return true; });

// Whether the device under test runs K-Means `variant` in `p` (the table's Needs: mma only on NVIDIA's
// tensor cores, compute capability 8.0 and later, and in float). Where it does not, the test says why once
// per variant and precision and skips it; the library refuses it by name, which test_kmeans_assignment.cpp
// checks ("mma: refused ...").
inline bool runs(std::string_view variant, itercl::Precision p) {
  const std::string lacks = itercl::kmeans::device_lacks(itercl::kmeans::variant(variant), device().info(), p);
  if (lacks.empty()) return true;
  static std::set<std::string> said;
  if (said.insert(std::string(variant) + "/" + std::string(itercl::precision_name(p))).second)
    MESSAGE("skipped K-Means variant " << std::string(variant) << " in " << std::string(itercl::precision_name(p))
                                       << ": " << lacks);
  return false;
}

// Gaussian values around `offset`: data away from the origin, as real data is, so that rounding
// errors scale as they would there.
inline itercl::Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed, double scale = 1.0,
                                    double offset = 0.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(offset, scale);
  itercl::Matrix m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = normal(rng);
  return m;
}

// The source tree (for datasets/): $ITERCL_SOURCE_DIR, else where the tests were built from, so a test
// binary carried to another machine can still find its data.
inline std::filesystem::path source_dir() {
  const char* moved = std::getenv("ITERCL_SOURCE_DIR");
  return moved && *moved ? moved : ITERCL_SOURCE_DIR;
}

// A file of the shared datasets (../shared/datasets beside the checkout, as in CI), or nothing when it is
// absent: a visible skip on a developer's clone, a failure under CI (CI=true), where every test must run.
inline std::optional<std::filesystem::path> shared_dataset(const std::string& relative) {
  const auto path = source_dir() / "../shared/datasets" / relative;
  if (std::filesystem::is_regular_file(path)) return path;
  const char* ci = std::getenv("CI");
  if (ci && std::string(ci) == "true") {
    FAIL_CHECK("missing dataset under CI: " << path.string());
  } else {
    MESSAGE("skipped: " << path.string() << " is absent (../shared/datasets beside the checkout)");
  }
  return std::nullopt;
}

// A fresh folder under the system's temporary folder, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device random;
    do path = std::filesystem::temp_directory_path() / ("itercl-test-" + std::to_string(random()));
    while (!std::filesystem::create_directory(path));
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path operator/(const std::string& name) const { return path / name; }
};

// Sets (or, with nullptr, unsets) an environment variable for the scope, restoring it after.
struct EnvVar {
  std::string name;
  std::optional<std::string> before;
  EnvVar(const char* n, const char* value) : name(n) {
    if (const char* v = std::getenv(n)) before = v;
    value ? setenv(n, value, 1) : unsetenv(n);
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;
  ~EnvVar() { before ? setenv(name.c_str(), before->c_str(), 1) : unsetenv(name.c_str()); }
};

// Writes `bytes` to dir/name, byte for byte; returns the path.
inline std::filesystem::path write_file(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// A file's whole contents, byte for byte.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace test
