// CSV and whitespace-separated text matrices (internal; load_matrix dispatches here).
#pragma once

#include <filesystem>
#include <string>

#include "itercl/io.hpp"

namespace itercl::io {

// The matrix `text` holds; throws InputError naming `path`, the line and the column.
Matrix parse_text(const std::string& text, const std::filesystem::path& path, const LoadOptions& options);

}  // namespace itercl::io
