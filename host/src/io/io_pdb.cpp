// PDB: ATOM and HETATM records (atom name in columns 13-16, x y z in 31-38, 39-46, 47-54, in Å) and the
// CRYST1 record (a b c in 7-15, 16-24, 25-33; alpha beta gamma in 34-40, 41-47, 48-54). The first MODEL
// only. https://www.wwpdb.org/documentation/file-format-content/format33/sect9.html
#include <cmath>

#include "io/io_particles.hpp"
#include "itercl/error.hpp"

namespace itercl::io {

// How far from 90 degrees a CRYST1 angle may be and still count as right: the record prints angles with
// two decimals (%7.2f), so a right angle reads 90.00; 1e-3 only absorbs the parse's rounding.
constexpr double kRightAngleTolerance = 1e-3;

Particles parse_pdb(const std::string& text, const std::filesystem::path& path) {
  const auto lines = text_lines(text);
  std::vector<double> coords;
  Particles p;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string_view line = lines[k];
    const std::string where = path.string() + ":" + std::to_string(k + 1) + ": ";
    if (line.starts_with("ENDMDL")) break;
    if (line.starts_with("CRYST1")) {
      double v[6];
      for (int f = 0; f < 6; ++f) {
        const std::size_t start = f < 3 ? 6 + 9 * f : 33 + 7 * (f - 3), len = f < 3 ? 9 : 7;
        if (line.size() < start + len || !parse_field(line.substr(start, len), v[f]))
          throw InputError(where + "CRYST1 needs a, b, c and alpha, beta, gamma in columns 7-54");
      }
      for (int f = 3; f < 6; ++f)
        if (std::abs(v[f] - 90) > kRightAngleTolerance)
          throw InputError(where + "a cell with angles " + std::to_string(v[3]) + ", " + std::to_string(v[4]) + ", " +
                           std::to_string(v[5]) + "; only orthorhombic boxes (all 90) are supported");
      p.box = {v[0], v[1], v[2]};
      continue;
    }
    if (!line.starts_with("ATOM  ") && !line.starts_with("HETATM")) continue;
    if (line.size() < 54) throw InputError(where + "an atom record shorter than 54 columns (x, y, z end in 54)");
    for (int d = 0; d < 3; ++d) {
      double v;
      if (!parse_field(line.substr(30 + 8 * d, 8), v))
        throw InputError(where + "'" + std::string(line.substr(30 + 8 * d, 8)) + "' in columns " +
                         std::to_string(31 + 8 * d) + "-" + std::to_string(38 + 8 * d) + " is not a coordinate");
      coords.push_back(v);
    }
    std::string_view name = line.substr(12, 4);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    p.names.emplace_back(name);
  }
  p.positions = Eigen::Map<const Matrix>(coords.data(), static_cast<Eigen::Index>(coords.size() / 3), 3);
  return p;
}

}  // namespace itercl::io
