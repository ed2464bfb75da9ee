// One self-overwriting line of progress on stderr, for terminals only.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "itercl/progress.hpp"

namespace itercl::cli {

// A ProgressCallback drawing "kmeans run 2/10  iteration 14/300  inertia 8.92e+12  1.3 s, at most 25 s
// to go" at most five times a second. The time to go is an upper bound: runs usually stop before
// max_iter.
class ProgressLine {
 public:
  // Reporting only makes sense where someone watches: a terminal, and not --quiet.
  static bool wanted(bool quiet) { return !quiet && isatty(fileno(stderr)); }

  void operator()(const ProgressEvent& e) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = e.run == e.runs && e.iteration == e.max_iterations;
    if (!last && now - shown_ < kInterval) return;
    shown_ = now;
    const double done = (e.run - 1) * double(e.max_iterations) + e.iteration;
    const double total = double(e.runs) * e.max_iterations;
    std::fprintf(stderr, "\r%*s", kClearWidth, "");
    std::fprintf(stderr, "\r%.*s run %d/%d  iteration %d/%d  %.*s %.6g  %.1f s, at most %.0f s to go",
                 int(e.algorithm.size()), e.algorithm.data(), e.run, e.runs, e.iteration, e.max_iterations,
                 int(e.objective_name.size()), e.objective_name.data(), e.objective, e.elapsed_s,
                 e.elapsed_s / done * (total - done));
    std::fflush(stderr);
    drawn_ = true;
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
  static constexpr std::chrono::milliseconds kInterval{200};
  std::chrono::steady_clock::time_point shown_{};
  bool drawn_ = false;
};

}  // namespace itercl::cli
