// Pieces every config runner shares (internal): integer fields, the drawn-and-recorded seed, and
// matrices written inline or to files.
#pragma once

#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

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

// The results' "timings": the one-time upload, the total, the median iteration, every iteration, and the
// wall time of each repeat.
inline nlohmann::json timings_json(const Timings& upload, const Timings& total,
                                   const std::vector<Timings>& per_iteration,
                                   const std::vector<double>& repeat_wall_ms) {
  return {{"upload", upload},
          {"total", total},
          {"median_iteration", median(per_iteration)},
          {"per_iteration", per_iteration},
          {"repeat_wall_ms", repeat_wall_ms}};
}

inline std::string ms(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  return buffer;
}

}  // namespace itercl
