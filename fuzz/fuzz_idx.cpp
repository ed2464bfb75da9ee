// libFuzzer target: IDX files (MNIST's format: type byte, dimensions, sizes).
#include "fuzz_support.hpp"
#include "io/io_idx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::parse_idx(file, "fuzz.idx"); });
}
