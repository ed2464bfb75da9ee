// libFuzzer target: GROMACS .gro files (fixed columns, atom count, box line).
#include "fuzz_support.hpp"
#include "io/io_particles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::parse_gro(text, "fuzz.gro"); });
}
