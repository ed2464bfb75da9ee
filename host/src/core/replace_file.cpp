#include "core/replace_file.hpp"

#include <signal.h>
#include <sys/wait.h>
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

bool process_running(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// A work folder a signal removes whole (bench's), by "rm -rf" in a child: fork, exec and waitpid are
// async-signal-safe where a walk of the folder is not.
char g_folder[kNameBytes];
std::atomic<bool> g_folder_set{false};

// A commit's renames and a signal's removals exclude each other, so that a signal during a commit
// leaves every output new (the commit finishes, then the process ends as signalled) and one before it
// every output old: idle, committing, or ending (a handler removes the temporaries).
enum CommitState : int { kIdle, kCommitting, kEnding };
std::atomic<int> g_commit_state{kIdle};
std::atomic<int> g_pending_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler needs a lock-free atomic");

void end_as_signalled(int signal_number) {
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);  // the default action: the process ends as signalled
}

}  // namespace

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

void remove_temporaries_and_reraise(int signal_number) {
  int idle = kIdle;
  if (!g_commit_state.compare_exchange_strong(idle, kEnding)) {
    if (idle == kCommitting) {  // the renames finish first; end_commit() then ends the process
      g_pending_signal.store(signal_number);
      return;
    }
    end_as_signalled(signal_number);  // another thread's handler is removing them already
  }
  for (int i = 0; i < kSlots; ++i)
    if (g_in_use[i].load(std::memory_order_acquire)) ::unlink(g_names[i]);  // async-signal-safe
  if (g_folder_set.load(std::memory_order_acquire)) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::execl("/bin/rm", "rm", "-rf", "--", g_folder, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    if (child > 0) ::waitpid(child, &status, 0);
  }
  end_as_signalled(signal_number);
}

bool begin_commit() {
  int idle = kIdle;
  return g_commit_state.compare_exchange_strong(idle, kCommitting);
}

void end_commit() {
  g_commit_state.store(kIdle);
  if (const int signal_number = g_pending_signal.exchange(0)) remove_temporaries_and_reraise(signal_number);
}

void remove_folder_on_signals(const fs::path& folder) {
  const std::string& name = folder.native();
  if (name.size() >= kNameBytes) return;
  std::memcpy(g_folder, name.c_str(), name.size() + 1);
  g_folder_set.store(true, std::memory_order_release);
}

void forget_folder_on_signals() { g_folder_set.store(false, std::memory_order_release); }

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
