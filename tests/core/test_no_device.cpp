// Why no OpenCL device was found: PoCL's kernel cache folder, which it must be able to create, else it
// shows no device and the advice used to be "install pocl" (issue 34). No device needed.
#include <doctest/doctest.h>

#include "core/no_device.hpp"
#include "test_support.hpp"

namespace core_tests {

using test::EnvVar;

TEST_CASE("PoCL's cache folder: where PoCL puts it, and why it cannot be created") {
  test::TempDir dir;
  EnvVar pocl("POCL_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr), home("HOME", "/dev/null");
  CHECK(itercl::core::pocl_cache_problem() ==
        "/dev/null/.cache/pocl/kcache (the nearest existing part: /dev/null): /dev/null is not a folder");
  // XDG_CACHE_HOME comes before HOME (an empty one counts as unset), POCL_CACHE_DIR before both.
  {
    EnvVar empty("XDG_CACHE_HOME", "");
    CHECK_FALSE(itercl::core::pocl_cache_problem().empty());
    EnvVar cache("XDG_CACHE_HOME", dir.path.c_str());
    CHECK(itercl::core::pocl_cache_problem().empty());
    EnvVar file("POCL_CACHE_DIR", "/dev/null/pocl");
    CHECK(itercl::core::pocl_cache_problem() ==
          "/dev/null/pocl (the nearest existing part: /dev/null): /dev/null is not a folder");
  }
  EnvVar writable("HOME", dir.path.c_str());
  CHECK(itercl::core::pocl_cache_problem().empty());
}

}  // namespace core_tests
