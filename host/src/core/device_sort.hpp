// Sorting and scanning on the device (internal): the building blocks of a graph built where it is used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "itercl/device.hpp"

namespace itercl::core {

// The work-group of the sort and scan kernels, and the keys (values) each work-item takes: 2,048 keys a
// tile: 18 KB of local memory for the keys (padded) and 8 KB for the scan, within every OpenCL device's
// minimum of 32 KB.
constexpr int kSortGroup = 256;
constexpr int kSortItems = 8;

// `values`' first n uints replaced by their exclusive prefix sums (scan.cl), in place. The sum of all n
// must fit 32 bits. Enqueued on the device's queue; returns at once.
void exclusive_scan(const Device& device, const cl::Buffer& values, std::size_t n);

// `keys`' first m 64-bit keys sorted ascending by their low `bits` bits (the rest must be 0), with a
// least-significant-digit radix sort (radix_sort.cl); `scratch` holds m keys too. The sorted keys end in
// `keys` (the two are swapped after an odd number of passes). m < 2^31. Enqueued; returns at once.
void sort_keys(const Device& device, cl::Buffer& keys, cl::Buffer& scratch, std::size_t m, int bits);

// A whole number of work-groups of `group` covering `items` (at least one group).
inline std::size_t groups_covering(std::size_t items, std::size_t group) {
  return (items + group - 1) / group * group + (items == 0 ? group : 0);
}

}  // namespace itercl::core
