// Host memory the pairwise drivers allocate for their inputs and results (internal): running out of it
// is an error that says what was being allocated and how much.
#pragma once

#include <cstddef>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/error.hpp"

namespace itercl::pairwise {

// allocate()'s result; a std::bad_alloc becomes a RuntimeError naming `what` and its `bytes`.
template <class F>
decltype(auto) allocate_host(std::string_view what, std::size_t bytes, F&& allocate) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw RuntimeError("out of host memory allocating " + std::string(what) + " (" + std::to_string(bytes) + " bytes)");
  }
}

// `bytes` bytes for `what`.
inline std::vector<unsigned char> host_bytes(std::string_view what, std::size_t bytes) {
  return allocate_host(what, bytes, [&] { return std::vector<unsigned char>(bytes); });
}

}  // namespace itercl::pairwise
