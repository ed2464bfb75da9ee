// The bound of the kernels' 32-bit indexing (internal): checked by every family's kernel checks
// (tuning/kernel_checks.hpp) and by core's repacking of a caller's rows on the device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "itercl/error.hpp"

namespace itercl {

// The kernels index with 32-bit ints (faster on GPUs than 64-bit arithmetic): `count` `what`s must stay
// below 2^31. `field` names the input that is too large.
inline void check_int_indexing(std::string_view field, std::uint64_t count, std::string_view what) {
  constexpr std::uint64_t kLimit = (std::uint64_t{1} << 31) - 1;
  if (count > kLimit)
    throw InputError(std::string(field) + ": " + std::to_string(count) + " " + std::string(what) +
                     " exceed the kernels' 32-bit indexing (2^31 - 1)");
}

}  // namespace itercl
