// Files replaced whole through a temporary name beside them (internal): a reader never sees a
// half-written file, and a process killed mid-write leaves only a temporary that the next writer of the
// same path removes. io's write_file_atomically and OutputSet (a run's outputs) and the program cache's
// entries (core) all write this way.
#pragma once

#include <filesystem>
#include <string_view>

namespace itercl::core {

// "<path>.tmp-<pid>-<random>", in path's folder, registered for removal on SIGINT / SIGTERM; the pid lets a
// later run tell a file of a killed process from one being written now.
std::filesystem::path temporary_name(const std::filesystem::path& path);
// `file` (a temporary, or an output's lock) is removed by the signals that remove the temporaries, until
// forgotten (forget_temporary).
void remember_temporary(const std::filesystem::path& file);
// The temporary file is gone (renamed or removed): no signal handler may unlink its name any more.
void forget_temporary(const std::filesystem::path& temporary);
// Removes "<path>.tmp-<pid>-*" files whose process is no longer running.
void remove_stale_temporaries(const std::filesystem::path& path);
// A signal handler: unlinks every registered temporary and the work folder (async-signal-safe), then ends
// the process as the signal would have. During a commit it only notes the signal: end_commit acts on it.
void remove_temporaries_and_reraise(int signal_number);
// A commit's renames, between these two, are never cut by a signal: begin_commit is false when a signal's
// handler is already ending the process (nothing may be renamed then); end_commit ends the process as a
// signal that came during the renames would have.
bool begin_commit();
void end_commit();
// `folder` (bench's /tmp/itercl-bench-*) is removed whole by the signals that remove the temporaries,
// until forgotten (one folder at a time).
void remove_folder_on_signals(const std::filesystem::path& folder);
void forget_folder_on_signals();

// Writes `contents` to `temporary`, the new contents of `path`; on a failed write removes it and throws a
// RuntimeError naming `path`.
void write_temporary(const std::filesystem::path& temporary, const std::filesystem::path& path,
                     std::string_view contents);
// Creates `path`'s missing folders, writes `contents` under a temporary name and renames it over `path`.
// Throws a RuntimeError naming the folder or the file that cannot be written.
void replace_file(const std::filesystem::path& path, std::string_view contents);

}  // namespace itercl::core
