// libFuzzer target: NumPy .npy files (the header parser, shapes, dtypes, sizes).
#include "fuzz_support.hpp"
#include "io/io_npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::parse_npy(file, "fuzz.npy"); });
}
