// GROMACS .gro: a title line, the atom count, one fixed-width line per atom (residue number and name,
// atom name, atom number, then x y z in nm, optionally velocities), and the box line: v1(x) v2(y) v3(z)
// [v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)]. https://manual.gromacs.org/current/reference-manual/file-formats.html
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "io/io_particles.hpp"
#include "itercl/error.hpp"

namespace itercl::io {

Particles parse_gro(const std::string& text, const std::filesystem::path& path) {
  const auto lines = text_lines(text);
  auto where = [&](std::size_t line) { return path.string() + ":" + std::to_string(line + 1) + ": "; };
  double count_value = 0;
  // Range-checked before the cast (a count of 1e30 made the cast undefined).
  if (lines.size() < 2 || !parse_field(lines[1], count_value) || !(count_value >= 0) ||
      count_value > static_cast<double>(std::numeric_limits<std::int32_t>::max()) ||
      count_value != std::trunc(count_value))
    throw InputError(where(1) + "expected the atom count on the second line of a .gro file");
  const auto n = static_cast<std::size_t>(count_value);
  if (lines.size() < n + 3)
    throw InputError(path.string() + ": the header promises " + std::to_string(n) +
                     " atoms and a box line; the file has " + std::to_string(lines.size() < 2 ? 0 : lines.size() - 2) +
                     " lines after it");
  Particles p;
  p.positions.resize(static_cast<Eigen::Index>(n), 3);
  // Coordinates start at column 21 (1-based); their width is the distance between the first two decimal
  // points (8 for the usual %8.3f), as GROMACS itself reads them.
  std::size_t width = 8;
  if (n > 0) {
    const std::string_view first = lines[2];
    const auto a = first.find('.', 20), b = a == std::string_view::npos ? a : first.find('.', a + 1);
    if (a == std::string_view::npos || b == std::string_view::npos)
      throw InputError(where(2) + "expected x, y and z with decimal points from column 21");
    width = b - a;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view line = lines[i + 2];
    if (line.size() < 20 + 3 * width) throw InputError(where(i + 2) + "too short for an atom line (name and x, y, z)");
    std::string_view name = line.substr(10, 5);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    p.names.emplace_back(name);
    for (int d = 0; d < 3; ++d) {
      double v;
      if (!parse_field(line.substr(20 + d * width, width), v))
        throw InputError(where(i + 2) + "'" + std::string(line.substr(20 + d * width, width)) +
                         "' is not a coordinate");
      p.positions(static_cast<Eigen::Index>(i), d) = v;
    }
  }
  std::vector<double> box;
  for (std::string_view word : words(lines[n + 2])) {
    double v;
    if (!parse_field(word, v)) throw InputError(where(n + 2) + "the box line holds a non-number");
    box.push_back(v);
  }
  if (box.size() != 3 && box.size() != 9)
    throw InputError(where(n + 2) + "expected 3 or 9 box values, got " + std::to_string(box.size()));
  for (std::size_t k = 3; k < box.size(); ++k)
    if (box[k] != 0) throw InputError(where(n + 2) + "a triclinic box; only orthorhombic boxes are supported");
  box.resize(3);
  p.box = box;
  return p;
}

}  // namespace itercl::io
