// Program builds and the disk cache of their binaries.
#include "core/program_build.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/replace_file.hpp"
#include "itercl/error.hpp"
#include "itercl/version.hpp"

namespace itercl {
namespace core {

std::atomic<bool> disk_cache_enabled{true};

// A cache file: this magic, the binary's size and FNV-1a hash (8 bytes each), then the binary.
constexpr char kMagic[8] = {'I', 'T', 'C', 'L', 'B', 'I', 'N', '1'};

std::uint64_t fnv1a(const void* data, std::size_t size) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ static_cast<const unsigned char*>(data)[i]) * 0x100000001b3ull;
  return h;
}

std::filesystem::path entry_path(const DeviceInfo& info, const std::string& source, const std::string& options) {
  const std::string key = info.platform + '\n' + info.name + '\n' + info.version + '\n' + info.driver_version + '\n' +
                          ITERCL_VERSION + '\n' + options + '\n' + source;
  return program_cache_dir() / (fnv1a_hex(key) + ".bin");
}

std::string read_entry(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string file = std::move(bytes).str();
  if (file.size() < 24 || std::memcmp(file.data(), kMagic, 8) != 0) return {};
  std::uint64_t size, hash;
  std::memcpy(&size, file.data() + 8, 8);
  std::memcpy(&hash, file.data() + 16, 8);
  if (size != file.size() - 24 || fnv1a(file.data() + 24, size) != hash) return {};
  return file.substr(24);
}

void write_entry(const std::filesystem::path& path, const std::vector<unsigned char>& binary) {
  const std::uint64_t size = binary.size(), hash = fnv1a(binary.data(), binary.size());
  std::string file(kMagic, 8);
  file.append(reinterpret_cast<const char*>(&size), 8);
  file.append(reinterpret_cast<const char*>(&hash), 8);
  file.append(reinterpret_cast<const char*>(binary.data()), binary.size());
  try {
    replace_file(path, file);
  } catch (const std::exception&) {  // a read-only or full disk costs only the next run's compile
  }
}

cl::Program from_source(const cl::Context& context, const cl::Device& device, const std::string& name,
                        const std::string& source, const std::string& options) {
  cl::Program program(context, source);
  try {
    program.build({device}, options.c_str());
  } catch (const cl::Error&) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
      log = "(no build log)";
    }
    throw BuildError(name, options, log);
  }
  return program;
}

std::string fnv1a_hex(const std::string& bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a(bytes.data(), bytes.size())));
  return hex;
}

cl::Program build_program(const cl::Context& context, const cl::Device& device, const DeviceInfo& info,
                          const std::string& name, const std::string& source, const std::string& options,
                          bool* from_disk) {
  if (from_disk) *from_disk = false;
  if (!disk_cache_enabled) return from_source(context, device, name, source, options);

  const std::filesystem::path path = entry_path(info, source, options);
  if (const std::string binary = read_entry(path); !binary.empty()) {
    try {
      cl::Program program(context, {device},
                          cl::Program::Binaries{std::vector<unsigned char>(binary.begin(), binary.end())});
      program.build({device}, options.c_str());
      if (from_disk) *from_disk = true;
      return program;
    } catch (const cl::Error&) {  // a binary the driver no longer accepts: compile afresh below
    }
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  cl::Program program = from_source(context, device, name, source, options);
  try {
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    if (!binaries.empty() && !binaries.front().empty()) write_entry(path, binaries.front());
  } catch (const cl::Error&) {  // a driver that cannot return binaries: no caching, same result
  }
  return program;
}

}  // namespace core

void set_program_disk_cache(bool enabled) { core::disk_cache_enabled = enabled; }

std::filesystem::path program_cache_dir() {
  if (const char* dir = std::getenv("ITERCL_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "itercl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "itercl";
  return std::filesystem::temp_directory_path() / "itercl-cache";
}

}  // namespace itercl
