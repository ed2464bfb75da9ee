// Particle loaders: .gro, PDB and LAMMPS dumps by hand-made examples and the shared real files, with
// their boxes; malformed files name the file and line.
#include <doctest/doctest.h>

#include <fstream>

#include "itercl/error.hpp"
#include "itercl/particles.hpp"
#include "test_support.hpp"

using itercl::load_particles;

using test::write_file;

TEST_CASE("particles: a .gro file with its box, any coordinate precision") {
  test::TempDir tmp;
  const auto gro = write_file(tmp, "w.gro",
                              "two waters\n 4\n    1SOL     OW    1   3.113   0.894   0.392 -0.2209  0.4364 -0.6956\n"
                              "    1SOL    HW1    2   3.209   0.871   0.407\n"
                              "    2SOL     OW    3   0.069   1.445   1.232\n"
                              "    2SOL    HW2    4  10.000   0.000  -1.500\n   4.031   4.031   4.031\n");
  const auto p = load_particles(gro);
  REQUIRE(p.positions.rows() == 4);
  CHECK(p.positions(0, 0) == 3.113);
  CHECK(p.positions(3, 2) == -1.5);
  CHECK(p.names == std::vector<std::string>{"OW", "HW1", "OW", "HW2"});
  CHECK(p.box == std::vector<double>{4.031, 4.031, 4.031});
  const auto ow = itercl::select_particles(p, {"OW"});
  CHECK(ow.positions.rows() == 2);
  CHECK(ow.positions(1, 1) == 1.445);
  // %10.5f coordinates: the width comes from the decimal points.
  const auto wide = write_file(tmp, "wide.gro", "t\n1\n    1SOL     OW    1   1.23456  -2.00000   3.50000\n 1 2 3\n");
  CHECK(load_particles(wide).positions(0, 1) == -2.0);

  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "short.gro", "t\n3\n    1SOL     OW    1   1.0   2.0   3.0\n")),
                       doctest::Contains("promises 3 atoms"), itercl::InputError);
  CHECK_THROWS_WITH_AS(
      load_particles(write_file(tmp, "bad.gro", "t\n1\n    1SOL     OW    1   1.000   x.yyy   3.000\n 1 1 1\n")),
      doctest::Contains("bad.gro:3:"), itercl::InputError);
  CHECK_THROWS_WITH_AS(
      load_particles(
          write_file(tmp, "tric.gro", "t\n1\n    1SOL     OW    1   1.000   2.000   3.000\n 1 1 1 0 0 0.5 0 0 0\n")),
      doctest::Contains("triclinic"), itercl::InputError);
}

TEST_CASE("particles: PDB atoms and CRYST1, the first model only") {
  test::TempDir tmp;
  const auto pdb = write_file(tmp, "x.pdb",
                              "REMARK   1 test\n"
                              "CRYST1   63.701   66.874   73.136  90.00  90.00  90.00 P 1           1 \n"
                              "HETATM    1  N   POP A   1      46.070   6.130  51.310  1.00  0.00           N  \n"
                              "ATOM      2  C12 POP A   1      45.890   7.600 -51.630  1.00  0.00           C  \n"
                              "ENDMDL\n"
                              "ATOM      3  C12 POP A   1      99.000   7.600  51.630  1.00  0.00           C  \n");
  const auto p = load_particles(pdb);
  REQUIRE(p.positions.rows() == 2);
  CHECK(p.positions(1, 2) == -51.63);
  CHECK(p.names == std::vector<std::string>{"N", "C12"});
  CHECK(p.box == std::vector<double>{63.701, 66.874, 73.136});
  CHECK_THROWS_WITH_AS(
      load_particles(write_file(tmp, "mono.pdb", "CRYST1   10.000   10.000   10.000  90.00 100.00  90.00 P 1\n")),
      doctest::Contains("only orthorhombic"), itercl::InputError);
  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "cut.pdb", "ATOM      2  C12 POP A   1      45.890   7.600\n")),
                       doctest::Contains("cut.pdb:1:"), itercl::InputError);
}

TEST_CASE("particles: LAMMPS dump frames, ids in any order, scaled coordinates") {
  test::TempDir tmp;
  const std::string frame0 =
      "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 10\n-5 5\n0 20\n"
      "ITEM: ATOMS id type x y z\n2 1 1.0 2.0 3.0\n1 2 4.0 5.0 6.0\n";
  const std::string frame1 =
      "ITEM: TIMESTEP\n100\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 10\n-5 5\n0 20\n"
      "ITEM: ATOMS id type xs ys zs\n1 2 0.5 0.5 0.25\n2 1 0.1 0.0 1.0\n";
  const auto dump = write_file(tmp, "d.lammpstrj", frame0 + frame1);
  const auto first = load_particles(dump);
  CHECK(first.positions(0, 0) == 4.0);  // id 1 first
  CHECK(first.names == std::vector<std::string>{"2", "1"});
  CHECK(first.box == std::vector<double>{10, 10, 20});
  const auto last = load_particles(dump, "auto", -1);
  CHECK(last.positions(0, 1) == 0.0);  // -5 + 0.5 * 10
  CHECK(last.positions(1, 2) == 20.0);
  CHECK(load_particles(dump, "lammps", 1).positions == last.positions);
  CHECK_THROWS_WITH_AS(load_particles(dump, "auto", 2), doctest::Contains("holds 2 frames"), itercl::ParamError);
  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "t.dump",
                                                 "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1\n"
                                                 "ITEM: BOX BOUNDS xy xz yz pp pp pp\n0 10 1.5\n0 10 0\n0 10 0\n"
                                                 "ITEM: ATOMS id type x y z\n1 1 0 0 0\n")),
                       doctest::Contains("triclinic"), itercl::InputError);
  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "u.dump", frame0.substr(0, frame0.size() - 16))),
                       doctest::Contains("u.dump:9: the frame promises 2 atoms"), itercl::InputError);
  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "data.txt", "1 2 3\n")),
                       doctest::Contains("give format gro, pdb or lammps"), itercl::ParamError);
}

TEST_CASE("particles: the shared real files (.gro, PDB, bzip2-compressed LAMMPS dump)") {
  if (const auto gro = test::shared_dataset("particles/spce-water-conf.gro")) {
    const auto p = load_particles(*gro);
    CHECK(p.positions.rows() == 6540);
    CHECK(p.box == std::vector<double>{4.031, 4.031, 4.031});
    CHECK(itercl::select_particles(p, {"OW"}).positions.rows() == 2180);
  }
  if (const auto pdb = test::shared_dataset("particles/POPC.pdb")) {
    const auto p = load_particles(*pdb);
    CHECK(p.positions.rows() == 32512);
    CHECK(p.box == std::vector<double>{63.701, 66.874, 73.136});
  }
  if (const auto dump = test::shared_dataset("particles/spce_all_coords.lammpstrj.bz2")) {
    const auto p = load_particles(*dump, "auto", -1);
    CHECK(p.positions.rows() == 4500);
    REQUIRE(p.box.size() == 3);
    CHECK(p.box[0] == doctest::Approx(35.5063).epsilon(1e-4));
    CHECK_THROWS_WITH_AS(load_particles(*dump, "auto", 11), doctest::Contains("holds 11 frames"), itercl::ParamError);
  }
}

// Issue 14: atom counts beyond the file (and beyond any integer) are errors, before the cast or allocation.
TEST_CASE("particles: LAMMPS and .gro atom counts beyond the file are refused") {
  test::TempDir tmp;
  for (const char* count : {"1e30", "100000000"}) {
    CAPTURE(count);
    const auto dump =
        write_file(tmp, "big.lammpstrj",
                   std::string("ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n") + count +
                       "\nITEM: BOX BOUNDS pp pp pp\n0 1\n0 1\n0 1\nITEM: ATOMS id type x y z\n1 1 0 0 0\n");
    CHECK_THROWS_WITH_AS(load_particles(dump), doctest::Contains("atoms; the file has"), itercl::InputError);
  }
  CHECK_THROWS_WITH_AS(load_particles(write_file(tmp, "big.gro", "t\n1e30\n    1SOL     OW    1   1.0   2.0   3.0\n")),
                       doctest::Contains("expected the atom count"), itercl::InputError);
}
