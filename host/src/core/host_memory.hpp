// Large host allocations (internal): running out of host memory is an error that says what was being
// allocated, how much, and how much there is, not a bare std::bad_alloc.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/parallel.hpp"
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

// Maps the pages of [data, data + bytes) ahead with madvise (MADV_POPULATE_WRITE, Linux 5.14), a piece on
// each core, rather than a page fault every 4 KB at the first write on one thread, which costs about 1 ns a
// byte on the project's machines (0.26 s for 256 MB). A hint: where the kernel lacks it, the faults come
// later, as before.
inline void map_ahead(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kPage = 4096;
  constexpr int kPopulateWrite = 23;  // MADV_POPULATE_WRITE, absent from older headers
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end <= begin) return;
  const std::size_t pages = (end - begin) / kPage;
  parallel_blocks(pages, worker_count(pages * 64), [&](std::size_t first, std::size_t last, int) {
    ::madvise(reinterpret_cast<void*>(begin + first * kPage), (last - first) * kPage, kPopulateWrite);
  });
}

// `count` values for `what`, zero, their pages mapped ahead (map_ahead): a large array a call hands back
// (labels, ranks, in-links) or fills on all cores.
template <class T>
std::vector<T> host_vector(std::size_t count, std::string_view what) {
  return allocate_host(what, count * sizeof(T), [&] {
    std::vector<T> v;
    v.reserve(count);
    map_ahead(v.data(), count * sizeof(T));
    v.resize(count);
    return v;
  });
}

// A new vector holding `from`, its pages mapped ahead.
template <class T>
std::vector<T> host_copy(std::span<const T> from, std::string_view what) {
  return allocate_host(what, from.size_bytes(), [&] {
    std::vector<T> v;
    v.reserve(from.size());
    map_ahead(v.data(), from.size_bytes());
    v.assign(from.begin(), from.end());
    return v;
  });
}

// `count` values for `what`, not initialised: scratch space that the caller fills on all cores, so that its
// pages are mapped by the threads that first write them, in parallel.
template <class T>
std::unique_ptr<T[]> host_scratch(std::size_t count, std::string_view what) {
  return allocate_host(what, count * sizeof(T), [&] { return std::unique_ptr<T[]>(new T[count]); });
}

// `bytes` bytes for `what`.
inline std::vector<unsigned char> host_bytes(std::string_view what, std::size_t bytes) {
  return allocate_host(what, bytes, [&] { return std::vector<unsigned char>(bytes); });
}

}  // namespace itercl
