// Program builds and the disk cache of their binaries.
#include "core/program_build.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "core/replace_file.hpp"
#include "itercl/error.hpp"
#include "itercl/version.hpp"

namespace itercl {
namespace core {

std::atomic<bool> disk_cache_enabled{true};

// A build that failed, with its log.
struct BuildFailure {
  std::string log;
};

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

// The build log a driver keeps for `device` (NVIDIA's warnings), or none.
std::string driver_log(const cl::Program& program, const cl::Device& device) {
  try {
    std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0' || log.back() == ' ')) log.pop_back();
    return log;
  } catch (const cl::Error&) {
    return {};
  }
}

std::mutex& log_handler_mutex() {
  static std::mutex m;
  return m;
}
BuildLogHandler& log_handler() {
  static BuildLogHandler handler;
  return handler;
}

// Who has stderr (file descriptor 2): the process, or a build catching it. `process` is a copy of the
// process's own stderr taken before the first capture (-1: none yet) and kept, so that release_stderr()
// can put it back from any thread without waiting for a build to end; once released, no build captures.
struct StderrOwner {
  std::mutex mutex;  // held only while file descriptor 2 changes hands, never during a build
  int process = -1;
  bool released = false;
};
StderrOwner& stderr_owner() {
  static StderrOwner owner;
  return owner;
}

// program.build with whatever the compiler writes to the process's stderr itself (PoCL's in-process clang
// prints "N warnings generated." there) caught in a temporary file and returned, with the driver's log:
// the terminal sees neither. stderr is the process's, so builds take turns here; anything another thread
// writes to stderr during a build joins that build's log, until release_stderr(). A failed build throws
// BuildFailure, stderr back.
std::string build_quietly(cl::Program& program, const cl::Device& device, const std::string& options) {
  static std::mutex one_build_at_a_time;
  std::lock_guard lock(one_build_at_a_time);
  StderrOwner& owner = stderr_owner();
  std::FILE* sink = nullptr;
  bool redirected = false;
  {
    std::lock_guard hand_over(owner.mutex);
    if (!owner.released) {
      std::fflush(stderr);
      if (owner.process < 0) owner.process = ::dup(STDERR_FILENO);
      sink = owner.process >= 0 ? std::tmpfile() : nullptr;
      redirected = sink && ::dup2(::fileno(sink), STDERR_FILENO) >= 0;
    }
  }
  bool failed = false;
  try {
    program.build({device}, options.c_str());
  } catch (const cl::Error&) {
    failed = true;
  }
  if (redirected) {
    std::lock_guard hand_over(owner.mutex);
    std::fflush(stderr);
    if (!owner.released) ::dup2(owner.process, STDERR_FILENO);  // released: the process has it already
  }
  std::string captured;
  if (sink) {
    std::rewind(sink);
    char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, sink)) > 0;) captured.append(chunk, n);
    std::fclose(sink);
  }
  std::string log = driver_log(program, device);
  if (!captured.empty()) log += (log.empty() ? "" : "\n") + captured;
  if (failed) throw BuildFailure{log.empty() ? "(no build log)" : std::move(log)};
  return log;
}

void report_log(const std::string& name, const std::string& options, const std::string& log) {
  if (log.empty()) return;
  BuildLogHandler handler;
  {
    std::lock_guard lock(log_handler_mutex());
    handler = log_handler();
  }
  if (handler) handler(name, options, log);
}

cl::Program from_source(const cl::Context& context, const cl::Device& device, const std::string& name,
                        const std::string& source, const std::string& options) {
  cl::Program program(context, source);
  try {
    report_log(name, options, build_quietly(program, device, options));
  } catch (const BuildFailure& failure) {
    throw BuildError(name, options, failure.log);
  }
  return program;
}

bool driver_caches_kernels(const DeviceInfo& info) {
  return info.platform.find("Portable Computing Language") != std::string::npos;
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
      report_log(name, options, build_quietly(program, device, options));
      if (from_disk) *from_disk = true;
      return program;
    } catch (const cl::Error&) {  // a binary the driver no longer accepts: compile afresh below
    } catch (const BuildFailure&) {
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

void release_stderr() {
  core::StderrOwner& owner = core::stderr_owner();
  std::lock_guard hand_over(owner.mutex);
  if (owner.released) return;
  owner.released = true;
  if (owner.process >= 0) ::dup2(owner.process, STDERR_FILENO);
}

void set_build_log_handler(BuildLogHandler handler) {
  std::lock_guard lock(core::log_handler_mutex());
  core::log_handler() = std::move(handler);
}

std::filesystem::path program_cache_dir() {
  if (const char* dir = std::getenv("ITERCL_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "itercl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "itercl";
  return std::filesystem::temp_directory_path() / "itercl-cache";
}

}  // namespace itercl
