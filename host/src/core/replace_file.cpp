#include "core/replace_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>

#include "itercl/error.hpp"

namespace itercl::core {

namespace fs = std::filesystem;  // as no_device.cpp has it: one alias in the namespace, whatever the batching

namespace {

// The temporary names a signal handler may unlink: fixed storage, since the handler may neither allocate
// nor lock. A name that does not fit (more than kSlots files at once) is still removed on failure and by
// the next run, only not on a signal.
constexpr int kSlots = 64;
constexpr std::size_t kNameBytes = 4096;
char g_names[kSlots][kNameBytes];
std::atomic<bool> g_in_use[kSlots];
std::mutex g_registry;

void remember_temporary(const fs::path& temporary) {
  const std::string& name = temporary.native();
  if (name.size() >= kNameBytes) return;
  const std::lock_guard lock(g_registry);
  for (int i = 0; i < kSlots; ++i)
    if (!g_in_use[i].load(std::memory_order_acquire)) {
      std::memcpy(g_names[i], name.c_str(), name.size() + 1);
      g_in_use[i].store(true, std::memory_order_release);
      return;
    }
}

bool process_running(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

}  // namespace

void remove_temporaries_and_reraise(int signal_number) {
  for (int i = 0; i < kSlots; ++i)
    if (g_in_use[i].load(std::memory_order_acquire)) ::unlink(g_names[i]);  // async-signal-safe
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);  // the default action: the process ends as signalled
}

fs::path temporary_name(const fs::path& path) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  fs::path temporary = path;
  temporary += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(random() % 1000000000);
  remember_temporary(temporary);
  return temporary;
}

void forget_temporary(const fs::path& temporary) {
  const std::lock_guard lock(g_registry);
  for (int i = 0; i < kSlots; ++i)
    if (g_in_use[i].load(std::memory_order_acquire) && temporary.native() == g_names[i])
      g_in_use[i].store(false, std::memory_order_release);
}

void remove_stale_temporaries(const fs::path& path) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string prefix = path.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>-<random>": a name of another form is not ours to remove.
    std::size_t k = prefix.size();
    long long pid = 0;
    while (k < name.size() && name[k] >= '0' && name[k] <= '9' && pid < 1'000'000'000)
      pid = pid * 10 + (name[k++] - '0');
    if (k == prefix.size() || k >= name.size() || name[k] != '-' || pid <= 0) continue;
    if (!process_running(static_cast<pid_t>(pid))) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

void write_temporary(const fs::path& temporary, const fs::path& path, std::string_view contents) {
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.flush();
  if (!out) {
    out.close();
    std::error_code ignored;
    fs::remove(temporary, ignored);
    forget_temporary(temporary);
    throw RuntimeError(path.string() + ": cannot write (disk full or no permission?)");
  }
}

void replace_file(const fs::path& path, std::string_view contents) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw RuntimeError(path.parent_path().string() + ": cannot create folder: " + ec.message());
  remove_stale_temporaries(path);
  const fs::path temporary = temporary_name(path);
  write_temporary(temporary, path, contents);
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
  }
  forget_temporary(temporary);
  if (ec) throw RuntimeError(path.string() + ": cannot replace: " + ec.message());
}

}  // namespace itercl::core
