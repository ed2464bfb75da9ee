// load_particles: the format by name or extension, then the parser; and selecting particles by name.
#include "io/io_particles.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "itercl/error.hpp"
#include "itercl/io.hpp"

namespace itercl {
namespace io {

std::vector<std::string_view> text_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = text.find('\n', pos);
    std::string_view line = std::string_view(text).substr(pos, end == std::string::npos ? end : end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parse_field(std::string_view field, double& value) {
  while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) field.remove_prefix(1);
  while (!field.empty() && (field.back() == ' ' || field.back() == '\t')) field.remove_suffix(1);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size() && std::isfinite(value);
}

// The format a path names, a compression suffix aside; "" if none.
std::string format_of(std::filesystem::path path) {
  if (path.extension() == ".gz" || path.extension() == ".bz2") path.replace_extension();
  const std::string ext = path.extension().string();
  if (ext == ".gro") return "gro";
  if (ext == ".pdb" || ext == ".ent") return "pdb";
  if (ext == ".lammpstrj" || ext == ".dump" || ext == ".lammps") return "lammps";
  return "";
}

}  // namespace io

bool is_particle_format(const std::filesystem::path& path, const std::string& format) {
  if (format == "gro" || format == "pdb" || format == "lammps") return true;
  return format == "auto" && !io::format_of(path).empty();
}

Particles load_particles(const std::filesystem::path& path, const std::string& format, int frame) {
  const std::string kind = format == "auto" ? io::format_of(path) : format;
  if (kind != "gro" && kind != "pdb" && kind != "lammps")
    throw ParamError("format", format == "auto" ? path.string() +
                                                      ": cannot tell the particle format from the name; "
                                                      "give format gro, pdb or lammps"
                                                : "expected gro, pdb or lammps for particles, got '" + format + "'");
  if (frame != 0 && kind != "lammps")
    throw ParamError("frame", "only LAMMPS dumps hold several frames; " + path.string() + " is " + kind);
  const std::string text = read_file(path);
  Particles p = kind == "gro"   ? io::parse_gro(text, path)
                : kind == "pdb" ? io::parse_pdb(text, path)
                                : io::parse_lammps_dump(text, path, frame);
  if (p.positions.rows() == 0) throw InputError(path.string() + ": no particles");
  return p;
}

Particles select_particles(const Particles& all, const std::vector<std::string>& names) {
  if (names.empty()) return all;
  Particles out;
  out.box = all.box;
  std::vector<Eigen::Index> keep;
  for (std::size_t i = 0; i < all.names.size(); ++i)
    if (std::find(names.begin(), names.end(), all.names[i]) != names.end())
      keep.push_back(static_cast<Eigen::Index>(i));
  out.positions.resize(static_cast<Eigen::Index>(keep.size()), all.positions.cols());
  for (std::size_t k = 0; k < keep.size(); ++k) {
    out.positions.row(static_cast<Eigen::Index>(k)) = all.positions.row(keep[k]);
    out.names.push_back(all.names[static_cast<std::size_t>(keep[k])]);
  }
  return out;
}

}  // namespace itercl
