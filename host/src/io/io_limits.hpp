// Sizes declared inside files, checked before anything is allocated (internal): the memory they imply
// against what the machine has, and the bound on decompressed data.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/host_memory.hpp"
#include "itercl/error.hpp"

namespace itercl::io {

// Throws an InputError when `count` items of `bytes_each` bytes, declared by `path`'s `what` ("the size
// line's nodes"), need more memory than the machine has available now.
inline void check_declared_memory(const std::filesystem::path& path, const std::string& what, std::uint64_t count,
                                  double bytes_each) {
  const double needed = static_cast<double>(count) * bytes_each;
  const auto available = static_cast<double>(available_memory());
  if (needed > available)
    throw InputError(path.string() + ": " + what + " " + std::to_string(count) + " would need about " +
                     bytes_text(needed) + " of memory; " + bytes_text(available) + " is available (at most " +
                     std::to_string(static_cast<std::uint64_t>(available / bytes_each)) + " fit)");
}

// The most bytes that decompressing a file may produce: the memory available now, or the environment
// variable ITERCL_DECOMPRESS_LIMIT (bytes) where set.
inline std::uint64_t decompress_limit() {
  if (const char* v = std::getenv("ITERCL_DECOMPRESS_LIMIT"); v && *v) {
    char* end = nullptr;
    const unsigned long long limit = std::strtoull(v, &end, 10);
    if (end && *end == '\0' && limit > 0) return limit;
  }
  return available_memory();
}

[[noreturn]] inline void decompress_overflow(const std::filesystem::path& path, const char* format,
                                             std::uint64_t limit) {
  throw InputError(path.string() + ": the " + format + " data expands beyond " +
                   bytes_text(static_cast<double>(limit)) +
                   ", the memory available (ITERCL_DECOMPRESS_LIMIT, in bytes, sets another bound); stopped");
}

}  // namespace itercl::io
