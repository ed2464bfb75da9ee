// NumPy .npy parsing (internal; load_matrix dispatches here).
#pragma once

#include <filesystem>
#include <string>

#include "itercl/matrix.hpp"

namespace itercl::detail {

bool is_npy(const std::string& bytes);
Matrix parse_npy(const std::string& bytes, const std::filesystem::path& path);

}  // namespace itercl::detail
