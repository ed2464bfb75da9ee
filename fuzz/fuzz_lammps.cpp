// libFuzzer target: LAMMPS dump files (ITEM sections, atom counts, frames); the first byte picks the frame.
#include "fuzz_support.hpp"
#include "io/io_particles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int frame = data[0] % 4 - 1;  // -1 (an invalid frame) to 2
  const std::string text = itercl_fuzz::bytes(data + 1, size - 1);
  return itercl_fuzz::run([&] { itercl::io::parse_lammps_dump(text, "fuzz.lammpstrj", frame); });
}
