#include "io/output_set.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <random>
#include <vector>

#include "core/replace_file.hpp"
#include "io/config.hpp"
#include "io/io_limits.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl::io {
namespace {

namespace fs = std::filesystem;

std::atomic<OutputSet*> g_active{nullptr};

// One spelling per file: absolute, with links of the existing part resolved, so that an output that is a
// link is written to the file it points at (the link stays).
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

}  // namespace

void check_free_space(const fs::path& path, std::uint64_t bytes, const std::string& what) {
  fs::path folder = fs::absolute(path).parent_path();
  std::error_code ec;
  while (!folder.empty() && !fs::exists(folder, ec) && folder != folder.root_path()) folder = folder.parent_path();
  struct statvfs vfs {};
  if (::statvfs(folder.c_str(), &vfs) != 0) return;  // unknown: the writes report a full disk
  const std::uint64_t available = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (bytes > available)
    throw InputError(what + ": " + path.string() + " needs " + std::to_string(bytes) + " bytes (" +
                     bytes_text(static_cast<double>(bytes)) + "); its file system has " + std::to_string(available) +
                     " bytes (" + bytes_text(static_cast<double>(available)) + ") free");
}

namespace {

// The longest suffix temporary_name adds: ".tmp-" + a pid (at most 10 digits) + "-" + 9 random digits.
constexpr std::size_t kTemporarySuffix = 5 + 10 + 1 + 9;

// /proc and /sys hold the kernel's files, which a rename cannot replace.
void check_file_system(const fs::path& folder, const std::string& named) {
  struct statfs fs_info {};
  if (::statfs(folder.c_str(), &fs_info) != 0) return;  // the folder's own check says what is wrong
  constexpr long kProc = 0x9fa0, kSys = 0x62656572;     // PROC_SUPER_MAGIC, SYSFS_MAGIC
  if (fs_info.f_type == kProc || fs_info.f_type == kSys)
    throw InputError(named + ": is on " + std::string(fs_info.f_type == kProc ? "/proc" : "/sys") +
                     "'s file system, the kernel's files; outputs go to regular files");
}

void check_name_length(const fs::path& target, const fs::path& folder, const std::string& named) {
  const long max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
  const std::size_t limit = max > 0 ? static_cast<std::size_t>(max) : 255;
  const std::size_t length = target.filename().native().size();
  if (length + kTemporarySuffix > limit)
    throw InputError(named + ": its name has " + std::to_string(length) + " bytes; with the temporary suffix (" +
                     std::to_string(kTemporarySuffix) + " more) it passes the folder's limit of " +
                     std::to_string(limit) + "; choose a shorter name");
}

// Opens and holds "<folder>/.<name>.itercl-lock", writing this pid in it; throws InputError naming the
// holder's pid when another process holds it.
int lock_output(const fs::path& target, const std::string& named) {
  const fs::path file = target.parent_path() / ("." + target.filename().string() + ".itercl-lock");
  for (;;) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError(named + ": cannot create its lock " + file.string() + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char text[32] = {};
      const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
      ::close(fd);
      const std::string holder = got > 0 ? std::string(text, static_cast<std::size_t>(got)) : "unknown";
      throw InputError(named + ": another itercl run (pid " + holder +
                       ") is writing it now; wait for it to end, or give this run another output");
    }
    struct stat held {};
    struct stat named_now {};
    if (::fstat(fd, &held) == 0 && ::stat(file.c_str(), &named_now) == 0 && held.st_dev == named_now.st_dev &&
        held.st_ino == named_now.st_ino) {
      const std::string pid = std::to_string(::getpid());
      if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
        // The pid is only for the other run's message: the lock holds without it.
      }
      core::remember_temporary(file);  // a signal removes it with the temporaries
      return fd;
    }
    ::close(fd);  // the holder removed it as it ended: lock the file now under that name
  }
}

}  // namespace

OutputSet::OutputSet() : previous_(g_active.exchange(this)) {}

OutputSet::~OutputSet() {
  for (const auto& [temporary, target] : staged_) {
    ::unlink(temporary.c_str());
    core::forget_temporary(temporary);
  }
  // Unlinked while still held: a run that opened it meanwhile finds, once it holds it, that the name is
  // no longer that file, and takes a new one (lock_output).
  for (const auto& [descriptor, file] : locks_) {
    core::forget_temporary(file);
    ::unlink(file.c_str());
    ::close(descriptor);
  }
  for (auto folder = created_.rbegin(); folder != created_.rend(); ++folder) ::rmdir(folder->c_str());  // if empty
  g_active.store(previous_);
}

OutputSet* OutputSet::active() { return g_active.load(); }

void OutputSet::claim(const fs::path& path, const std::string& what) {
  const fs::path target = resolved(path);
  const std::string named = what + ": " + path.string();
  const std::lock_guard lock(mutex_);
  for (const auto& [p, by] : claimed_)
    if (p == target) {
      if (by == what) return;  // claimed again by the same writer (a repeat)
      throw InputError(named + ": also " + by + "; give each output its own file");
    }
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(named + ": is a directory; expected a file to write");
    if (!S_ISREG(st.st_mode))
      throw InputError(named + ": " + describe_path_kind(target) + "; outputs replace regular files only");
    for (const Identity& input : inputs_)
      if (input.device == st.st_dev && input.inode == st.st_ino)
        throw InputError(named + ": is the run's own input " + input.path.string() + "; writing it would destroy it");
    outputs_.push_back({st.st_dev, st.st_ino, path});
  } else if (errno != ENOENT && errno != ENOTDIR) {  // ENOTDIR: the folder is to be created
    throw InputError(named + ": cannot be checked: " + std::strerror(errno));
  }
  // The folder is created when the first file is written (a config refused later leaves none behind):
  // here its nearest existing ancestor must be a folder this process may write in.
  fs::path folder = target.parent_path();
  while (::stat(folder.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR) && folder != folder.root_path())
    folder = folder.parent_path();
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(named + ": cannot create its folder: " + folder.string() + " is not a directory");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw InputError(named + ": its folder " + folder.string() + " is not writable: " + std::strerror(errno));
  check_file_system(folder, named);
  check_name_length(target, folder, named);
  // The lock sits in the target's folder: one that does not exist yet is made now, and removed again
  // (when still empty) by a run that ends without committing, so a refused run leaves no folder behind.
  for (fs::path missing = target.parent_path(); missing != folder; missing = missing.parent_path())
    created_.insert(created_.begin(), missing);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw InputError(named + ": cannot create its folder " + target.parent_path().string() + ": " + ec.message());
  const int held = lock_output(target, named);
  locks_.emplace_back(held, target.parent_path() / ("." + target.filename().string() + ".itercl-lock"));
  core::remove_stale_temporaries(target);
  claimed_.emplace_back(target, what);
}

void OutputSet::note_input(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // the reader says what is wrong with it
  const std::lock_guard lock(mutex_);
  for (const Identity& output : outputs_)
    if (output.device == st.st_dev && output.inode == st.st_ino)
      throw InputError(output.path.string() + ": an output of this run is its own input " + path.string() +
                       "; writing it would destroy it");
  inputs_.push_back({st.st_dev, st.st_ino, path});
}

bool OutputSet::claimed(const fs::path& path) const {
  const fs::path target = resolved(path);
  const std::lock_guard lock(mutex_);
  for (const auto& claim : claimed_)
    if (claim.first == target) return true;
  return false;
}

fs::path OutputSet::stage(const fs::path& path) {
  const fs::path target = resolved(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) throw RuntimeError(target.parent_path().string() + ": cannot create folder: " + ec.message());
  fs::path temporary = core::temporary_name(target);
  const std::lock_guard lock(mutex_);
  for (auto& [earlier, same] : staged_)
    if (same == target) {  // written again (a repeat): the newer contents replace the earlier ones
      ::unlink(earlier.c_str());
      core::forget_temporary(earlier);
      earlier = temporary;
      return temporary;
    }
  staged_.emplace_back(temporary, target);
  return temporary;
}

void OutputSet::commit() {
  const std::lock_guard lock(mutex_);
  // A signal's handler is removing the temporaries: nothing is renamed, the process is ending.
  if (!core::begin_commit()) throw RuntimeError("the run was interrupted before its outputs were written");
  // Renames cannot fail together: one that fails leaves the files before it renamed and those after it
  // removed (by the destructor), which the error names. The results file is staged last, so it is renamed
  // last: a new results file means every output beside it is new.
  std::string failed;
  while (!staged_.empty()) {
    const auto [temporary, target] = staged_.front();
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) {
      failed = target.string() + ": cannot replace: " + ec.message();
      break;
    }
    core::forget_temporary(temporary);
    written_.push_back(target);
    staged_.erase(staged_.begin());
  }
  core::end_commit();
  if (!failed.empty()) throw RuntimeError(failed);
}

std::vector<fs::path> OutputSet::written() const {
  const std::lock_guard lock(mutex_);
  return written_;
}

}  // namespace itercl::io

namespace itercl {

void remove_temporaries_on_signals() {
  // The signals found at their default by the first call: ours from then on. A later call puts ours back
  // in front of handlers installed since by a library for itself: PoCL's LLVM installs its own when the
  // OpenCL platform starts, swallows SIGQUIT, SIGXCPU and SIGXFSZ as crashes and keeps SIGUSR1 as its
  // "info" signal, so those never reached ours.
  static std::vector<int> ours;
  static bool first = true;
  if (first) {
    first = false;
    // Every signal whose default ends the process and that a user or a job system sends to stop one.
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGXCPU, SIGXFSZ}) {
      struct sigaction now {};
      // A handler someone else installed (an embedding program's) stays: the run's destructors still
      // remove the temporary files when that handler ends the run by an exception.
      if (::sigaction(signal_number, nullptr, &now) == 0 && now.sa_handler == SIG_DFL) ours.push_back(signal_number);
    }
  }
  for (const int signal_number : ours) {
    struct sigaction handler {};
    handler.sa_handler = core::remove_temporaries_and_reraise;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

}  // namespace itercl
