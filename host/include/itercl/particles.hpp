// Particles from molecular-dynamics files, for distance histograms and radial distribution functions:
// GROMACS .gro, PDB and LAMMPS dump text (each optionally gzip- or bzip2-compressed), with the periodic
// box the file gives. Coordinates stay in the file's units (nm for .gro, Å for PDB, LAMMPS' own).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "itercl/matrix.hpp"

namespace itercl {

struct Particles {
  Matrix positions;                // n x 3
  std::vector<std::string> names;  // per particle: the atom name (.gro, PDB) or the type (LAMMPS)
  std::vector<double> box;         // orthorhombic side lengths; empty when the file gives none
};

// format: "gro", "pdb", "lammps", or "auto" (by the name, a .gz or .bz2 suffix aside: .gro, .pdb,
// .lammpstrj / .dump / .lammps). frame: the LAMMPS snapshot, 0-based; -1 the last (other formats hold
// one). Throws InputError naming the file and line for anything malformed, and for boxes that are not
// orthorhombic (the minimum image here needs right angles).
Particles load_particles(const std::filesystem::path& path, const std::string& format = "auto", int frame = 0);

// The particles whose name (or LAMMPS type) is one of `names`, in file order; empty `names`: all.
Particles select_particles(const Particles& all, const std::vector<std::string>& names);

// Whether load_particles reads this format name or, for "auto", this path.
bool is_particle_format(const std::filesystem::path& path, const std::string& format);

}  // namespace itercl
