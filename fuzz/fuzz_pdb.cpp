// libFuzzer target: PDB files (ATOM/HETATM columns, CRYST1, MODEL/ENDMDL).
#include "fuzz_support.hpp"
#include "io/io_particles.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::parse_pdb(text, "fuzz.pdb"); });
}
