// LAMMPS dump text (dump style atom/custom): per frame "ITEM: TIMESTEP", "ITEM: NUMBER OF ATOMS",
// "ITEM: BOX BOUNDS ..." (three lines lo hi; triclinic boxes carry a tilt factor each) and
// "ITEM: ATOMS id type x y z ..." with one line per atom. Positions come from x y z, else the unwrapped
// xu yu zu, else the scaled xs ys zs; atoms are ordered by id. https://docs.lammps.org/dump.html
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "io/io_particles.hpp"
#include "itercl/error.hpp"

namespace itercl::io {
Particles parse_lammps_dump(const std::string& text, const std::filesystem::path& path, int frame) {
  const auto lines = text_lines(text);
  auto fail = [&](std::size_t k, const std::string& what) -> void {
    throw InputError(path.string() + ":" + std::to_string(k + 1) + ": " + what);
  };
  // Frame starts: the "ITEM: TIMESTEP" lines.
  std::vector<std::size_t> starts;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].starts_with("ITEM: TIMESTEP")) starts.push_back(k);
  if (starts.empty()) throw InputError(path.string() + ": no 'ITEM: TIMESTEP': not a LAMMPS dump file");
  const long long chosen = frame < 0 ? static_cast<long long>(starts.size()) + frame : frame;
  if (chosen < 0 || chosen >= static_cast<long long>(starts.size()))
    throw ParamError("frame", std::to_string(frame) + " is out of range: " + path.string() + " holds " +
                                  std::to_string(starts.size()) + " frames (0 to " + std::to_string(starts.size() - 1) +
                                  ", or -1 for the last)");
  std::size_t k = starts[static_cast<std::size_t>(chosen)] + 2;
  std::size_t n = 0;
  double lo[3] = {0, 0, 0}, side[3] = {0, 0, 0};
  bool have_box = false;
  Particles p;
  while (k < lines.size() && !lines[k].starts_with("ITEM: TIMESTEP")) {
    const std::string_view line = lines[k];
    if (line.starts_with("ITEM: NUMBER OF ATOMS")) {
      double v;
      if (k + 1 >= lines.size() || !parse_field(lines[k + 1], v) || !(v >= 0) || v != std::trunc(v))
        fail(k + 1, "expected the number of atoms");
      // Range-checked before the cast: each atom takes a line, so the file fixes the most.
      if (v > static_cast<double>(lines.size()))
        fail(k + 1, "the frame promises " + std::string(lines[k + 1]) + " atoms; the file has " +
                        std::to_string(lines.size()) + " lines");
      n = static_cast<std::size_t>(v);
      k += 2;
    } else if (line.starts_with("ITEM: BOX BOUNDS")) {
      for (int d = 0; d < 3; ++d) {
        const auto w = k + 1 + d < lines.size() ? words(lines[k + 1 + d]) : std::vector<std::string_view>{};
        double a, b, tilt = 0;
        if (w.size() < 2 || !parse_field(w[0], a) || !parse_field(w[1], b) || !(b > a))
          fail(k + 1 + d, "expected a box bound line 'lo hi' with lo < hi");
        if (w.size() > 2 && (!parse_field(w[2], tilt) || tilt != 0))
          fail(k + 1 + d,
               "a triclinic box (tilt factor " + std::string(w[2]) + "); only orthorhombic boxes are supported");
        lo[d] = a, side[d] = b - a;
      }
      have_box = true;
      k += 4;
    } else if (constexpr std::string_view atoms = "ITEM: ATOMS"; line.starts_with(atoms)) {
      const auto names = words(line.substr(atoms.size()));
      auto column = [&](std::initializer_list<const char*> options) -> std::ptrdiff_t {
        for (const char* o : options) {
          const auto it = std::find(names.begin(), names.end(), o);
          if (it != names.end()) return it - names.begin();
        }
        return -1;
      };
      const std::ptrdiff_t id = column({"id"}), type = column({"type"});
      std::ptrdiff_t x = column({"x"});
      bool scaled = false;
      if (x < 0) x = column({"xu"});
      if (x < 0) x = column({"xs"}), scaled = true;
      if (x < 0 || x + 2 >= static_cast<std::ptrdiff_t>(names.size()))
        fail(k, "expected x y z, xu yu zu or xs ys zs columns");
      if (k + n >= lines.size()) fail(k, "the frame promises " + std::to_string(n) + " atoms; the file ends before");
      if (scaled && !have_box) fail(k, "scaled coordinates need the box bounds before the atoms");
      std::vector<double> ids(n);
      Matrix pos(static_cast<Eigen::Index>(n), 3);
      std::vector<std::string> types(n);
      for (std::size_t i = 0; i < n; ++i) {
        const auto w = words(lines[k + 1 + i]);
        if (w.size() != names.size())
          fail(k + 1 + i, "expected " + std::to_string(names.size()) + " columns, found " + std::to_string(w.size()));
        for (int d = 0; d < 3; ++d) {
          double v;
          if (!parse_field(w[static_cast<std::size_t>(x + d)], v))
            fail(k + 1 + i, "'" + std::string(w[static_cast<std::size_t>(x + d)]) + "' is not a coordinate");
          pos(static_cast<Eigen::Index>(i), d) = scaled ? lo[d] + v * side[d] : v;
        }
        ids[i] = static_cast<double>(i);
        if (id >= 0 && !parse_field(w[static_cast<std::size_t>(id)], ids[i])) fail(k + 1 + i, "the id is not a number");
        types[i] = type >= 0 ? std::string(w[static_cast<std::size_t>(type)]) : "";
      }
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
      p.positions.resize(static_cast<Eigen::Index>(n), 3);
      for (std::size_t i = 0; i < n; ++i) {
        p.positions.row(static_cast<Eigen::Index>(i)) = pos.row(static_cast<Eigen::Index>(order[i]));
        p.names.push_back(types[order[i]]);
      }
      k += n + 1;
    } else {
      ++k;
    }
  }
  if (have_box) p.box = {side[0], side[1], side[2]};
  return p;
}

}  // namespace itercl::io
