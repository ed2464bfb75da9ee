// The "data" section of a config for algorithms whose input is a set of vectors (internal).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "itercl/matrix.hpp"

namespace itercl {

// Either a file {"path", "format", "header"} or a generator {"generator": "blobs" | "uniform", ...}.
// `description` receives the shape and the source.
Matrix read_vectors(ConfigObject& data, const std::filesystem::path& base, nlohmann::json& description);

// A matrix given inline (an array of equal-length arrays of numbers) or as a file path, for values
// such as explicit initial centroids. `field` is the config key, for messages.
Matrix read_matrix_value(ConfigObject& section, const std::string& field, const std::filesystem::path& base);

// A vector given inline (an array of numbers) or as a file holding one row or one column.
std::vector<double> read_vector_value(ConfigObject& section, const std::string& field,
                                      const std::filesystem::path& base);

}  // namespace itercl
