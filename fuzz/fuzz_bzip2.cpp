// libFuzzer target: bzip2 streams (headers, corrupt and truncated data, concatenated streams, bombs).
#include "fuzz_support.hpp"
#include "io/io_bz2.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  itercl_fuzz::limit_decompression();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::bunzip2(file, "fuzz.bz2"); });
}
