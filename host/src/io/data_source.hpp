// The "data" section of a config for algorithms whose input is a set of vectors (internal).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/host_rows.hpp"
#include "io/config.hpp"
#include "itercl/matrix.hpp"

namespace itercl {

// Either a file {"path", "format", "header"} or a generator {"generator": "blobs" | "uniform", ...}.
// `description` receives the shape and the source.
Matrix read_vectors(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description);

// Rank `rank` of `ranks`' rows of the same data: rows [first_row(n, rank, ranks), first_row(n, rank + 1,
// ranks)), generated (the values read_vectors gives those rows) or read from a .npy file (only those
// rows). A file that must be parsed whole (text, CSV, IDX, compressed) is read by rank 0 alone, whole
// (`whole`), to be scattered; the other ranks then get no rows and n = 0.
// The rows are held in the precision they come in, never widened whole: a generator draws them in
// `precision` (the run's: float rounds each drawn double once), an uncompressed .npy file is read in its
// own dtype (float32 as float, float64 as double: no value rounded on reading), a parsed format in double.
struct VectorRows {
  core::HostRows X;
  Eigen::Index first = 0, n = 0;
  bool whole = false;
};
VectorRows read_vector_rows(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description,
                            int rank, int ranks, Precision precision);

// A matrix given inline (an array of equal-length arrays of numbers) or as a file path, for values
// such as explicit initial centroids. `field` is the config key, for messages.
Matrix read_matrix_value(ConfigObject& section, const std::string& field, const std::filesystem::path& base);

// A vector given inline (an array of numbers) or as a file holding one row or one column.
std::vector<double> read_vector_value(ConfigObject& section, const std::string& field,
                                      const std::filesystem::path& base);

}  // namespace itercl
