// libFuzzer target: tar archives holding one file (headers, size fields, padding).
#include "fuzz_support.hpp"
#include "io/io_tar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string file = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::untar_single_file(file, "fuzz.tar"); });
}
