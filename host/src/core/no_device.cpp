#include "core/no_device.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "itercl/device.hpp"

namespace itercl {
namespace core {

namespace fs = std::filesystem;

// PoCL's own rule (pocl_cache.c, pocl_cache_init_topdir): POCL_CACHE_DIR if set at all, XDG_CACHE_HOME
// if not empty, HOME if set.
fs::path pocl_cache_dir() {
  if (const char* dir = std::getenv("POCL_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/pocl/kcache";
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.cache/pocl/kcache";
  return "/tmp/POCL_CACHE";
}

std::string pocl_cache_problem() {
  const fs::path dir = pocl_cache_dir();
  // The folder itself if it exists, else the nearest folder above it that does: PoCL creates the rest.
  fs::path existing = dir;
  std::error_code ec;
  while (!existing.empty() && existing != existing.root_path() && !fs::exists(existing, ec))
    existing = existing.parent_path();
  if (existing.empty()) existing = ".";  // a relative POCL_CACHE_DIR, none of it there yet
  const std::string where =
      dir.string() + (existing == dir ? "" : " (the nearest existing part: " + existing.string() + ")");
  if (!fs::is_directory(existing, ec)) return where + ": " + existing.string() + " is not a folder";
  if (::access(existing.c_str(), W_OK | X_OK) != 0) return where + ": " + std::strerror(errno);
  return "";
}

bool pocl_registered() {
  const char* env = std::getenv("OCL_ICD_VENDORS");
  const fs::path vendors = env && *env ? fs::path(env) : fs::path("/etc/OpenCL/vendors");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(vendors, ec)) {
    std::ifstream in(entry.path());
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().find("pocl") != std::string::npos) return true;
  }
  return false;
}

}  // namespace core

std::string no_device_message() {
  if (core::pocl_registered())
    if (const std::string problem = core::pocl_cache_problem(); !problem.empty())
      return "no OpenCL device found: PoCL, the CPU driver registered here, cannot create its kernel cache folder " +
             problem +
             ".\n  Give it a writable one: export POCL_CACHE_DIR=/tmp/pocl-cache (or a writable HOME or "
             "XDG_CACHE_HOME)";
  return "no OpenCL device found: no ICD is registered with the OpenCL loader.\n"
         "  For the CPU: sudo apt-get install pocl-opencl-icd   (or run scripts/bootstrap.sh)\n"
         "  For a GPU: install its driver's OpenCL ICD, or register an installed one, e.g.\n"
         "    echo /usr/lib/libnvidia-opencl.so.1 | sudo tee /etc/OpenCL/vendors/nvidia.icd";
}

}  // namespace itercl
