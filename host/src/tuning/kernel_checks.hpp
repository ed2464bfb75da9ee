// The checks and -D options every kernel parameter struct shares (internal; the 32-bit indexing bound
// and the -D builder, which core uses too, are core/int_indexing.hpp and core/defines.hpp): each family's
// <family>_kernel.cpp validates, resolves and renders its struct with these, so a message reads the same
// for every kernel and a list of choices is typed once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>

#include "core/defines.hpp"
#include "core/int_indexing.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"

namespace itercl {

// "a, b, c": a list of choices as the messages quote it. `choices`: a braced list, or a family's array
// of them (typed once, where its tuner also iterates them).
template <class Choices = std::initializer_list<std::string_view>>
std::string choice_list(const Choices& choices) {
  std::string out;
  for (const std::string_view c : choices) out += (out.empty() ? "" : ", ") + std::string(c);
  return out;
}

// `value` must be one of `choices` (or "auto" when `allow_auto`): ParamError(field) listing them.
template <class Choices = std::initializer_list<std::string_view>>
void check_choice(std::string_view field, const std::string& value, const Choices& choices, bool allow_auto = true) {
  if (allow_auto && value == "auto") return;
  if (std::find(std::begin(choices), std::end(choices), value) != std::end(choices)) return;
  throw ParamError(std::string(field), "expected one of " + std::string(allow_auto ? "auto, " : "") +
                                           choice_list(choices) + "; got \"" + value + "\"");
}

// A tuning field where 0 means "the tuned default": otherwise from 1 to `high`.
inline void check_tuning_value(std::string_view field, long long value, long long high) {
  if (value < 0 || value > high)
    throw ParamError(std::string(field), "expected an integer from 1 to " + std::to_string(high) +
                                             " (or 0 for the default), got " + std::to_string(value));
}

// A work-group size the device accepts at all (CL_DEVICE_MAX_WORK_GROUP_SIZE).
inline void check_device_work_group(std::string_view field, long long value, const DeviceInfo& info) {
  if (value > 0 && static_cast<std::uint64_t>(value) > info.max_work_group_size)
    throw ParamError(std::string(field), std::to_string(value) + " exceeds the device's maximum of " +
                                             std::to_string(info.max_work_group_size));
}

// A work-group size this compiled kernel can launch (CL_KERNEL_WORK_GROUP_SIZE: registers and local
// memory can make it smaller than the device's maximum).
inline void check_kernel_work_group(std::string_view field, long long value, std::size_t kernel_limit) {
  if (static_cast<std::uint64_t>(value) > kernel_limit)
    throw ParamError(std::string(field), std::to_string(value) +
                                             " exceeds what this kernel can launch on the device (" +
                                             std::to_string(kernel_limit) + ")");
}

}  // namespace itercl
