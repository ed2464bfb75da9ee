// Settings read from the environment (internal).
#pragma once

#include <cstdint>

namespace itercl::core {

// A byte count from the environment variable `name`, 0 where it is unset or empty. Anything but a
// positive decimal integer is an error naming the variable (InputError). Defined in device.cpp.
std::uint64_t bytes_from_environment(const char* name);

}  // namespace itercl::core
