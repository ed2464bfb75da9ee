// Large host allocations (internal): running out of host memory is an error that says what was being
// allocated and how much, not a bare std::bad_alloc.
#pragma once

#include <cstddef>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/error.hpp"

namespace itercl {

// allocate()'s result; a std::bad_alloc becomes a RuntimeError naming `what` and its `bytes`.
template <class F>
decltype(auto) allocate_host(std::string_view what, std::size_t bytes, F&& allocate) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw RuntimeError("out of host memory for " + std::string(what) + ": " + std::to_string(bytes) + " bytes");
  }
}

// `count` copies of `value` for `what`.
template <class T>
std::vector<T> host_array(std::size_t count, T value, std::string_view what) {
  return allocate_host(what, count * sizeof(T), [&] { return std::vector<T>(count, value); });
}

// `bytes` bytes for `what`.
inline std::vector<unsigned char> host_bytes(std::string_view what, std::size_t bytes) {
  return allocate_host(what, bytes, [&] { return std::vector<unsigned char>(bytes); });
}

}  // namespace itercl
