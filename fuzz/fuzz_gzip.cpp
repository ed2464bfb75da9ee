// libFuzzer target: gzip streams (headers, corrupt and truncated data, concatenated members, bombs).
#include "fuzz_support.hpp"
#include "io/io_gzip.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  itercl_fuzz::limit_decompression();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The gzip magic first, as read_file checks before calling gunzip.
  const std::string file = "\x1f\x8b" + itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::gunzip(file, "fuzz.gz"); });
}
