#include "io/output_set.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

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

OutputSet::OutputSet() : previous_(g_active.exchange(this)) {}

OutputSet::~OutputSet() {
  for (const auto& [temporary, target] : staged_) {
    ::unlink(temporary.c_str());
    core::forget_temporary(temporary);
  }
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
  // Renames cannot fail together: one that fails leaves the files before it renamed and those after it
  // removed (by the destructor), which the error names.
  while (!staged_.empty()) {
    const auto [temporary, target] = staged_.front();
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) throw RuntimeError(target.string() + ": cannot replace: " + ec.message());
    core::forget_temporary(temporary);
    written_.push_back(target);
    staged_.erase(staged_.begin());
  }
}

std::vector<fs::path> OutputSet::written() const {
  const std::lock_guard lock(mutex_);
  return written_;
}

}  // namespace itercl::io

namespace itercl {

void remove_temporaries_on_signals() {
  for (int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction now {};
    // A handler someone else installed (an embedding program's) stays: the run's destructors still
    // remove the temporary files when that handler ends the run by an exception.
    if (::sigaction(signal_number, nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
    struct sigaction handler {};
    handler.sa_handler = core::remove_temporaries_and_reraise;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

}  // namespace itercl
