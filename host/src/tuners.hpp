// One tuner per kernel family (internal). Adding one: write tune_<family>() and list it in tune.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "config.hpp"
#include "itercl/tune.hpp"

namespace itercl {

// Fills `report.problem` (from `problem`, which it reads and finishes) and `report.candidates`, the
// first being the database's current choice; tune() picks the best and writes the entry.
void tune_kmeans(const Device& device, ConfigObject& problem, const TuneOptions& options, TuneReport& report);

// Empty if `got` equals `reference` wherever the two labels' centroids are not equally near within the
// rounding of `p` (4 D ulps of sum_d (|x_d| + |c_d|)^2, as tests/tolerances.hpp); else the first
// offending point.
std::string kmeans_labels_mismatch(const Matrix& X, const Matrix& C, std::span<const std::int32_t> got,
                                   std::span<const std::int32_t> reference, Precision p);

}  // namespace itercl
