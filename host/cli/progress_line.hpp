// The progress line on stderr: self-overwriting on a terminal, or one line per update for logs.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "itercl/progress.hpp"

namespace itercl::cli {

// --progress: auto (bar on a terminal, else none), bar, plain, none. --quiet means none.
enum class ProgressMode { bar, plain, none };

// The mode `--progress=<name>` asks for, resolved against whether stderr is a terminal. Returns false
// for an unknown name.
inline bool parse_progress_mode(const std::string& name, bool quiet, ProgressMode& mode) {
  if (name == "auto")
    mode = isatty(fileno(stderr)) ? ProgressMode::bar : ProgressMode::none;
  else if (name == "bar")
    mode = ProgressMode::bar;
  else if (name == "plain")
    mode = ProgressMode::plain;
  else if (name == "none")
    mode = ProgressMode::none;
  else
    return false;
  if (quiet) mode = ProgressMode::none;
  return true;
}

// A ProgressCallback drawing "kmeans run 2/10  iteration 14/300  inertia 8.92e+12  1.3 s, at most 25 s
// to go" (bar: at most five times a second, overwriting itself; plain: at most once a second, one line
// each, for logs). The time to go is an upper bound: runs usually stop before max_iter.
class ProgressLine {
 public:
  explicit ProgressLine(ProgressMode mode = ProgressMode::bar) : mode_(mode) {}

  bool active() const { return mode_ != ProgressMode::none; }

  void operator()(const ProgressEvent& e) {
    if (!active()) return;
    const auto now = std::chrono::steady_clock::now();
    const bool last = e.run == e.runs && e.iteration == e.max_iterations;
    if (!last && now - shown_ < (mode_ == ProgressMode::bar ? kBarInterval : kPlainInterval)) return;
    shown_ = now;
    const double done = (e.run - 1) * double(e.max_iterations) + e.iteration;
    const double total = double(e.runs) * e.max_iterations;
    std::string text(e.algorithm);
    char part[160];
    if (e.runs > 1) {
      std::snprintf(part, sizeof part, " run %d/%d", e.run, e.runs);
      text += part;
    }
    std::snprintf(part, sizeof part, "  %.*s %d/%d", int(e.step.size()), e.step.data(), e.iteration, e.max_iterations);
    text += part;
    if (!e.objective_name.empty()) {
      std::snprintf(part, sizeof part, "  %.*s %.6g", int(e.objective_name.size()), e.objective_name.data(),
                    e.objective);
      text += part;
    }
    std::snprintf(part, sizeof part, "  %.1f s, at most %.0f s to go", e.elapsed_s,
                  done > 0 ? e.elapsed_s / done * (total - done) : 0.0);
    text += part;
    if (mode_ == ProgressMode::bar) {
      std::fprintf(stderr, "\r%*s\r%s", kClearWidth, "", text.c_str());
      drawn_ = true;
    } else {
      std::fprintf(stderr, "progress: %s\n", text.c_str());
    }
    std::fflush(stderr);
  }

  // Ends the line, so what follows (the summary, an error) starts on a fresh one.
  void finish() {
    if (drawn_) std::fputc('\n', stderr);
    drawn_ = false;
  }
  ~ProgressLine() { finish(); }

 private:
  // Spaces that blank the previous line before the next is drawn: wider than any line drawn here.
  static constexpr int kClearWidth = 120;
  // At most five lines a second: readable, and cheap for a loop of short iterations.
  static constexpr std::chrono::milliseconds kBarInterval{200};
  // A log gets at most one line a second: enough to see a run move, few enough to read.
  static constexpr std::chrono::milliseconds kPlainInterval{1000};
  ProgressMode mode_;
  std::chrono::steady_clock::time_point shown_{};
  bool drawn_ = false;
};

}  // namespace itercl::cli
