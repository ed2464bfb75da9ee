// Large host allocations (internal): running out of host memory is an error that says what was being
// allocated, how much, and how much there is, not a bare std::bad_alloc.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "itercl/error.hpp"

namespace itercl {

// Bytes of memory available now (MemAvailable in /proc/meminfo), else the physical memory.
inline std::uint64_t available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : std::uint64_t{1} << 32;
}

// "6.4 GB" for messages.
inline std::string bytes_text(double bytes) {
  std::ostringstream out;
  out.precision(3);
  if (bytes >= 1e9)
    out << bytes / 1e9 << " GB";
  else if (bytes >= 1e6)
    out << bytes / 1e6 << " MB";
  else
    out << bytes << " bytes";
  return out.str();
}

// allocate()'s result; a std::bad_alloc becomes a RuntimeError naming `what`, its `bytes` and the
// memory available now: the largest allocation that could have fitted.
template <class F>
decltype(auto) allocate_host(std::string_view what, std::size_t bytes, F&& allocate) {
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw RuntimeError("out of host memory for " + std::string(what) + ": " + std::to_string(bytes) + " bytes (" +
                       bytes_text(static_cast<double>(bytes)) + ") asked for, " +
                       bytes_text(static_cast<double>(available_memory())) + " available");
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
