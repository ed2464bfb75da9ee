// libFuzzer target: CSV and whitespace text matrices (header detection, numbers, ragged rows).
#include "fuzz_support.hpp"
#include "io/io_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] { itercl::io::parse_text(text, "fuzz.csv", {}); });
}
