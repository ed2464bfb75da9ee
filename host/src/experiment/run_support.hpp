// Pieces every config runner shares (internal): integer fields, the drawn-and-recorded seed, and
// matrices written inline or to files.
#pragma once

#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "core/phase_clock.hpp"
#include "experiment/algorithms.hpp"
#include "itercl/io.hpp"
#include "itercl/timing.hpp"

namespace itercl {

// Arrays larger than this go to a file instead of inline into the results JSON: 10^4 numbers are at
// most a few hundred KB of JSON text, still quick to open and read; beyond, a binary file is smaller.
constexpr Eigen::Index kInlineValues = 10000;

// An integer field that must fit an int; range checks are left to the parameters' validate(), which
// reports the value as written.
inline int int_field(ConfigObject& P, const std::string& key, long long value) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    P.fail(key, std::to_string(value) + " is out of range: expected an integer from " +
                    std::to_string(std::numeric_limits<int>::min()) + " to " +
                    std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(value);
}

// A drawn seed keeps 31 bits, so that the recorded random_state is a non-negative int that every consumer
// of the config accepts: this reader (an int64), JSON readers that use a 32-bit int, and numpy's
// RandomState (seeds below 2^32) when a peer or a notebook replays the run.
constexpr std::uint32_t kDrawnSeedMask = 0x7fffffff;

// params.random_state, or one drawn now and recorded, so that the recorded config reproduces the run.
inline std::uint64_t read_random_state(ExperimentContext& c) {
  const auto seed = c.params.integer("random_state");
  if (seed && *seed < 0) c.params.fail("random_state", "expected an integer >= 0, got " + std::to_string(*seed));
  const std::uint64_t value = seed ? static_cast<std::uint64_t>(*seed) : std::random_device{}() & kDrawnSeedMask;
  c.config_as_run["params"]["random_state"] = value;
  return value;
}

inline nlohmann::json matrix_json(const Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) rows.push_back(std::vector<double>(m.row(i).begin(), m.row(i).end()));
  return rows;
}

// .npy by extension, else CSV text.
inline void write_matrix(const std::filesystem::path& path, const Matrix& m) {
  if (path.extension() == ".npy") return save_npy(path, m);
  write_file_atomically(path, to_csv(m));
}

// A run's repeats, each one whole call timed by phase from the input in host memory to the result in host
// memory (core::PhaseClock): the time to solution, as a user with a stopwatch around the call sees it.
class Repeats {
 public:
  // fit() `repeat` times, each under a clock that starts in phase `first`; the last result.
  template <class Fit>
  auto run(int repeat, const char* first, Fit&& fit) -> decltype(fit()) {
    for (int i = 1; i < repeat; ++i) timed(first, fit);
    return timed(first, fit);
  }
  const Phases& last() const { return fits_.back(); }

  // Into the results' "timings": time_to_solution_ms and phases_ms of the last repeat (a warm program cache
  // when there are several), the first repeat's beside them as first_fit, and every repeat's wall time.
  void add_to(nlohmann::json& timings) const {
    timings["time_to_solution_ms"] = last().total_s() * 1e3;
    timings["phases_ms"] = last();
    if (fits_.size() > 1)
      timings["first_fit"] = {{"time_to_solution_ms", fits_.front().total_s() * 1e3}, {"phases_ms", fits_.front()}};
    std::vector<double> wall_ms;
    for (const Phases& f : fits_) wall_ms.push_back(f.total_s() * 1e3);
    timings["repeat_wall_ms"] = wall_ms;
  }

 private:
  template <class Fit>
  auto timed(const char* first, Fit& fit) -> decltype(fit()) {
    core::PhaseClock clock(first);
    auto result = fit();
    fits_.push_back(clock.phases());
    return result;
  }
  std::vector<Phases> fits_;
};

// The results' "timings": the one-time upload, the total, the median iteration, every iteration, and the
// time to solution of the repeats.
inline nlohmann::json timings_json(const Timings& upload, const Timings& total,
                                   const std::vector<Timings>& per_iteration, const Repeats& repeats) {
  nlohmann::json t = {{"upload", upload},
                      {"total", total},
                      {"median_iteration", median(per_iteration)},
                      {"per_iteration", per_iteration}};
  repeats.add_to(t);
  return t;
}

inline std::string ms(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  return buffer;
}

}  // namespace itercl
