// The outputs of one run, all or nothing (internal): every file is written under a temporary name in its
// target's folder and renamed only when the whole run has succeeded, so that a failed run leaves every
// earlier output as it was (not new labels beside old results). Output paths are checked before the
// computation starts, and temporary files are removed on failure, on SIGINT / SIGTERM, and, when a run
// was killed outright, by the next run that writes to the same path.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace itercl::io {

class OutputSet {
 public:
  OutputSet();   // becomes the process's active set until destroyed (the one before it comes back)
  ~OutputSet();  // removes every temporary file not committed
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // The active set (the innermost run's), or nullptr outside a run.
  static OutputSet* active();

  // `path` will be written by this run: checked now, before any computation, and from now on written
  // through the set (write_file_atomically and NpyStream stage it;
  // core/replace_file.hpp names the temporaries). Throws an InputError starting with
  // `what` (the config file and field) when the path is a directory, a device or any other non-regular
  // file, one of the run's own inputs, or in a folder that cannot be created or written (created now for
  // the lock, and removed by the destructor while empty, so that a run refused later leaves none), on /proc or /sys, or
  // with a name that its temporary's suffix would push past the folder's NAME_MAX. The path is then locked
  // (".<name>.itercl-lock" beside it, flock) until the set ends: a second run claiming it is refused,
  // naming the first's pid, so that two runs never interleave their outputs. Temporary files of this path
  // left by processes that no longer run are removed.
  void claim(const std::filesystem::path& path, const std::string& what);
  // The run reads `path` (data, config): no output may be the same file, whatever the name or link.
  void note_input(const std::filesystem::path& path);
  bool claimed(const std::filesystem::path& path) const;

  // A temporary name for `path`'s new contents, renamed to `path` by commit() (or removed by the
  // destructor): only for claimed paths.
  std::filesystem::path stage(const std::filesystem::path& path);
  // Every staged file to its target, in the order staged. Throws on a failed rename.
  void commit();
  // The targets commit() has replaced so far, in the order staged: what the run's summary names.
  std::vector<std::filesystem::path> written() const;

 private:
  struct Identity {
    dev_t device;
    ino_t inode;
    std::filesystem::path path;
  };
  mutable std::mutex mutex_;
  std::vector<std::pair<std::filesystem::path, std::string>> claimed_;  // target, claimed by (`what`)
  std::vector<Identity> inputs_, outputs_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;  // temporary, target
  std::vector<std::filesystem::path> written_;                                   // committed targets
  std::vector<std::pair<int, std::filesystem::path>> locks_;  // each claimed output's lock: descriptor, file
  std::vector<std::filesystem::path> created_;                // folders claim() made, outermost first
  OutputSet* previous_;
};

// Throws an InputError naming the bytes needed and available when `path`'s file system has less free
// space than `bytes` (a dense matrix of n = 10^6 is 4 TB).
void check_free_space(const std::filesystem::path& path, std::uint64_t bytes, const std::string& what);

}  // namespace itercl::io
