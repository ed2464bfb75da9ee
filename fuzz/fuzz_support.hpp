// What every fuzz target shares: the input as a string, the exceptions that are a loader's proper
// answer to bad input, and bounds that keep one input within the fuzzer's memory limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "itercl/error.hpp"

namespace itercl_fuzz {

inline std::string bytes(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Decompression stops at 1 MiB (the default is the machine's free memory, beyond libFuzzer's 2 GB
// limit, and inflating that much would take seconds an input): a bomb is then the loader's error, found
// quickly, not the fuzzer's out-of-memory or timeout.
inline void limit_decompression() { setenv("ITERCL_DECOMPRESS_LIMIT", "1048576", 1); }

// Runs `load` on one input: an InputError (ParamError included) is the answer to bad input; anything
// else escapes, and libFuzzer reports it with the input (an uncaught exception aborts).
template <class F>
int run(F&& load) {
  try {
    load();
  } catch (const itercl::InputError&) {
  }
  return 0;
}

}  // namespace itercl_fuzz
