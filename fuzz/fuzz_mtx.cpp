// libFuzzer target: Matrix Market coordinate files (banner, size line, entries).
#include "fuzz_support.hpp"
#include "io/io_graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = itercl_fuzz::bytes(data, size);
  return itercl_fuzz::run([&] {
    itercl::GraphLoadReport report;
    itercl::io::parse_matrix_market(text, "fuzz.mtx", {}, report);
  });
}
