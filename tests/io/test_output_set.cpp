// A run's outputs, all or nothing (issue 14, "nothing lost"): checked before the computation, staged
// under temporary names, renamed together on commit, removed on failure, and stale temporaries of killed
// runs removed by the next run.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/io_limits.hpp"
#include "io/npy_stream.hpp"
#include "io/output_set.hpp"
#include "itercl/error.hpp"
#include "itercl/io.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace output_set_tests {

using itercl::InputError;
using itercl::io::OutputSet;
using test::slurp;
using test::TempDir;
using test::write_file;

// The files in `folder`, with (`locks`) or without a run's output locks (.<name>.itercl-lock).
std::vector<std::string> names_in(const fs::path& folder, bool locks = false) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (locks || name.find(".itercl-lock") == std::string::npos) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string contents(const fs::path& path) { return slurp(path); }

// A pid that no process has now: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST_CASE("output sets: a run that fails before commit leaves every earlier output as it was") {
  TempDir dir;
  const fs::path results = write_file(dir, "results.json", "old results");
  const fs::path labels = write_file(dir, "labels.txt", "old labels");
  const fs::path matrix = write_file(dir, "matrix.npy", "old matrix");
  {
    OutputSet run;
    run.claim(results, "results");
    run.claim(labels, "labels");
    run.claim(matrix, "matrix");
    itercl::write_file_atomically(labels, "new labels");  // staged, not renamed
    itercl::NpyStream stream(matrix, itercl::Precision::f32, {2, 2});
    const float values[4] = {1, 2, 3, 4};
    stream.write(0, values, 4);
    stream.commit();  // the stream is done; the set still holds it back
    CHECK(contents(labels) == "old labels");
    CHECK(contents(matrix) == "old matrix");
    CHECK(names_in(dir.path).size() == 5);  // two temporaries beside the three files
    // the run fails here, before writing its results: the set is destroyed uncommitted
  }
  CHECK(contents(results) == "old results");
  CHECK(contents(labels) == "old labels");
  CHECK(contents(matrix) == "old matrix");
  CHECK(names_in(dir.path) == std::vector<std::string>{"labels.txt", "matrix.npy", "results.json"});
  CHECK(OutputSet::active() == nullptr);
}

TEST_CASE("output sets: commit replaces every claimed file; unclaimed writes stay immediate") {
  TempDir dir;
  const fs::path results = write_file(dir, "results.json", "old results");
  const fs::path labels = dir.path / "sub" / "labels.txt";  // its folder is created by the claim
  const fs::path cache = dir.path / "cache.bin";
  OutputSet run;
  run.claim(results, "results");
  run.claim(labels, "labels");
  itercl::write_file_atomically(labels, "first");
  itercl::write_file_atomically(labels, "second");  // a repeat: the newer contents win
  itercl::write_file_atomically(cache, "cache");    // not the run's output: written at once
  CHECK(contents(cache) == "cache");
  CHECK(!fs::exists(labels));
  itercl::write_file_atomically(results, "new results");
  run.commit();
  CHECK(contents(results) == "new results");
  CHECK(contents(labels) == "second");
  CHECK(names_in(dir.path / "sub") == std::vector<std::string>{"labels.txt"});
}

TEST_CASE("output sets: paths refused before the computation") {
  TempDir dir;
  const fs::path data = write_file(dir, "data.csv", "1,2\n");
  const fs::path config = write_file(dir, "run.json", "{}");
  OutputSet run;
  run.note_input(config);
  run.note_input(data);
  auto refused = [&](const fs::path& path, const std::string& message) {
    CHECK_THROWS_WITH_AS(run.claim(path, "cfg.json: output.labels"),
                         doctest::Contains(("cfg.json: output.labels: " + path.string() + ": " + message).c_str()),
                         InputError);
  };
  SUBCASE("a device node: as root, /dev/full was replaced by a regular file") {
    refused("/dev/full", "is a character device; outputs replace regular files only");
    CHECK(fs::is_character_file("/dev/full"));
  }
  SUBCASE("a directory") { refused(dir.path, "is a directory"); }
  SUBCASE("a FIFO") {
    const fs::path fifo = dir.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    refused(fifo, "is a FIFO");
  }
  SUBCASE("the run's own data, by name, by a symbolic link and by a hard link") {
    refused(data, "is the run's own input");
    fs::create_symlink(data, dir.path / "link.csv");
    refused(dir.path / "link.csv", "is the run's own input");
    fs::create_hard_link(data, dir.path / "hard.csv");
    refused(dir.path / "hard.csv", "is the run's own input");
  }
  SUBCASE("the run's own config") { refused(config, "is the run's own input"); }
  SUBCASE("an input read after the output was claimed") {
    const fs::path later = write_file(dir, "later.csv", "3\n");
    run.claim(later, "labels");
    CHECK_THROWS_WITH_AS(run.note_input(later), doctest::Contains("is its own input"), InputError);
  }
  SUBCASE("one file for two outputs") {
    run.claim(dir.path / "out.json", "results");
    refused(dir.path / "out.json", "also results");
  }
  SUBCASE("a folder that cannot be created") { refused("/dev/null/x/results.json", "cannot create its folder"); }
  SUBCASE("the kernel's file systems, which a rename cannot replace") {
    if (::geteuid() == 0) {  // for others, the folders are not writable, which says so first
      refused("/proc/itercl-results.json", "is on /proc's file system");
      refused("/sys/itercl-results.json", "is on /sys's file system");
    } else {
      refused("/proc/itercl-results.json", "is not writable");
    }
  }
  SUBCASE("a name that the temporary suffix would push past NAME_MAX") {
    refused(dir.path / (std::string(240, 'r') + ".json"),
            "its name has 245 bytes; with the temporary suffix (25 more) it passes the folder's limit of 255");
    CHECK_NOTHROW(run.claim(dir.path / (std::string(225, 'r') + ".json"), "results"));
  }
}

TEST_CASE("output sets: a second run claiming an output another holds is refused, naming its pid") {
  TempDir dir;
  const fs::path results = dir.path / "results.json";
  {
    OutputSet first;
    first.claim(results, "results");
    OutputSet second;  // another open of the lock: flock excludes it as it would another process
    CHECK_THROWS_WITH_AS(
        second.claim(results, "cfg.json: output.path"),
        doctest::Contains(("cfg.json: output.path: " + results.string() + ": another itercl run (pid " +
                           std::to_string(::getpid()) + ") is writing it now")
                              .c_str()),
        InputError);
  }
  CHECK(names_in(dir.path, true).empty());  // the lock goes with its run
  OutputSet later;
  CHECK_NOTHROW(later.claim(results, "results"));
  SUBCASE("a folder made for the lock goes too when nothing was committed") {
    {
      OutputSet run;
      run.claim(dir.path / "new" / "deeper" / "labels.txt", "labels");
    }
    CHECK(!fs::exists(dir.path / "new"));
  }
}

// A child process writes `outputs` files over their old contents through one OutputSet and commits; the
// parent watches the folder (inotify) and sends `signal_number` the moment the `at`-th temporary file
// appears (at = 0: the moment the first output is renamed over its target, inside the commit). Returns
// how many targets hold new contents, after checking that no temporary file is left.
int new_after_signal(int outputs, int at, int signal_number) {
  TempDir dir;
  std::vector<fs::path> targets;
  for (int i = 0; i < outputs; ++i) targets.push_back(write_file(dir, "out" + std::to_string(i) + ".txt", "old"));
  const int watch = ::inotify_init1(IN_CLOEXEC);
  REQUIRE(watch >= 0);
  REQUIRE(::inotify_add_watch(watch, dir.path.c_str(), IN_CREATE | IN_MOVED_TO) >= 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const struct rlimit no_core {};
    ::setrlimit(RLIMIT_CORE, &no_core);                                                 // SIGQUIT's default dumps core
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1}) std::signal(s, SIG_DFL);  // not doctest's
    itercl::remove_temporaries_on_signals();
    {
      OutputSet run;
      for (const fs::path& t : targets) run.claim(t, t.filename().string());
      for (const fs::path& t : targets) itercl::write_file_atomically(t, "new");
      run.commit();
    }
    ::_exit(0);
  }
  int temporaries = 0;
  bool sent = false;
  alignas(inotify_event) char buffer[64 * 1024];
  while (!sent) {
    pollfd ready{watch, POLLIN, 0};
    if (::poll(&ready, 1, 20000) != 1) break;  // the child ended (or stalled) before the event: signal it now
    const ssize_t got = ::read(watch, buffer, sizeof buffer);
    if (got <= 0) break;
    for (char* p = buffer; p < buffer + got && !sent;) {
      const auto* event = reinterpret_cast<const inotify_event*>(p);
      const std::string name = event->len ? event->name : "";
      const bool temporary = name.find(".tmp-") != std::string::npos;
      if ((event->mask & IN_CREATE) && temporary && ++temporaries == at) sent = true;
      if ((event->mask & IN_MOVED_TO) && !temporary && at == 0) sent = true;
      p += sizeof(inotify_event) + event->len;
    }
  }
  ::kill(child, signal_number);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(watch);
  int fresh = 0;
  for (const std::string& name : names_in(dir.path, true)) {
    CHECK_MESSAGE(name.find(".tmp-") == std::string::npos, "left behind: " << name);
    // A signal removes the locks with the temporaries, as many as its fixed table holds (64).
    if (outputs <= 32) CHECK_MESSAGE(name.find("itercl-lock") == std::string::npos, "left behind: " << name);
  }
  for (const fs::path& t : targets) fresh += contents(t) == "new";
  return fresh;
}

TEST_CASE("output sets: a signal the moment each temporary appears, or inside the commit, leaves all old or all new") {
  constexpr int kOutputs = 6;
  for (int at = 1; at <= kOutputs; ++at) {
    CAPTURE(at);
    const int fresh = new_after_signal(kOutputs, at, SIGTERM);
    CHECK((fresh == 0 || fresh == kOutputs));
  }
  // Inside the commit: with many outputs the renames take long enough for the signal to land among them,
  // where it once removed the temporaries not yet renamed and left old files beside new ones.
  constexpr int kMany = 600;
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1}) {
    CAPTURE(signal_number);
    CHECK(new_after_signal(kMany, 0, signal_number) == kMany);
  }
}

TEST_CASE("output sets: stale temporaries of processes that no longer run are removed, others kept") {
  TempDir dir;
  const fs::path target = dir.path / "labels.txt";
  const std::string dead = "labels.txt.tmp-" + std::to_string(dead_pid()) + "-12345";
  const std::string live = "labels.txt.tmp-" + std::to_string(::getpid()) + "-12345";
  const std::string foreign = "labels.txt.tmp-notapid";  // not our pattern: not ours to remove
  const std::string other = "other.txt.tmp-" + std::to_string(dead_pid()) + "-1";
  for (const auto& name : {dead, live, foreign, other}) write_file(dir, name, "x");
  OutputSet run;
  run.claim(target, "labels");
  std::vector<std::string> expected = {".labels.txt.itercl-lock", foreign, live, other};
  std::sort(expected.begin(), expected.end());
  CHECK(names_in(dir.path, true) == expected);
}

TEST_CASE("output sets: a file larger than the free space is refused, naming both sizes") {
  TempDir dir;
  const std::uint64_t huge = std::uint64_t{1} << 62;
  CHECK_THROWS_WITH_AS(itercl::io::check_free_space(dir.path / "m.npy", huge, "cfg.json: output.matrix"),
                       doctest::Contains(("needs " + std::to_string(huge) + " bytes").c_str()), InputError);
  CHECK_NOTHROW(itercl::io::check_free_space(dir.path / "m.npy", 1, "cfg.json: output.matrix"));
}

TEST_CASE("sizes declared in files beyond memory: the message says the most that fits") {
  // The memory available moves between two reads: the count is checked to within a tenth.
  const double most = static_cast<double>(itercl::available_memory()) / 16.0;
  std::string message;
  try {
    itercl::io::check_declared_memory("f.mtx", "nodes:", std::uint64_t{1} << 60, 16.0);
  } catch (const InputError& e) {
    message = e.what();
  }
  const auto at = message.find("(at most ");
  REQUIRE(at != std::string::npos);
  const double said = std::stod(message.substr(at + 9));
  CHECK(said > 0.9 * most);
  CHECK(said < 1.1 * most);
  CHECK_NOTHROW(itercl::io::check_declared_memory("f.mtx", "nodes:", static_cast<std::uint64_t>(most / 2), 16.0));
}

}  // namespace output_set_tests
