// Parsers of the particle formats (internal; load_particles dispatches here). Each throws InputError
// naming `path` and the line.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "itercl/particles.hpp"

namespace itercl::io {

Particles parse_gro(const std::string& text, const std::filesystem::path& path);
Particles parse_pdb(const std::string& text, const std::filesystem::path& path);
Particles parse_lammps_dump(const std::string& text, const std::filesystem::path& path, int frame);

// Splits text into lines (without '\n' or '\r').
std::vector<std::string_view> text_lines(const std::string& text);
// The blank-separated words of a line.
std::vector<std::string_view> words(std::string_view line);
// A number filling the whole field (blanks around it allowed); false if it is not one or not finite.
bool parse_field(std::string_view field, double& value);

}  // namespace itercl::io
