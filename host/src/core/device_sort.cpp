#include "core/device_sort.hpp"

#include <string>
#include <utility>

#include "core/kernel_args.hpp"

namespace itercl::core {

namespace {

const std::string& sort_options() {
  static const std::string options = "-D SCAN_GROUP=" + std::to_string(kSortGroup) +
                                     " -D SCAN_ITEMS=" + std::to_string(kSortItems) +
                                     " -D SORT_ITEMS=" + std::to_string(kSortItems);
  return options;
}

constexpr std::size_t kBlock = static_cast<std::size_t>(kSortGroup) * kSortItems;  // keys a tile, values a block
constexpr int kDigitBits = 4;                                                      // radix_sort.cl's RADIX_BITS

}  // namespace

void exclusive_scan(const Device& device, const cl::Buffer& values, std::size_t n) {
  if (n == 0) return;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  cl::Buffer totals(device.context(), CL_MEM_READ_WRITE, blocks * sizeof(cl_uint));
  cl::Kernel scan = device.kernel("scan.cl", sort_options(), "scan_blocks");
  set_args(scan, values, static_cast<cl_uint>(n), totals);
  cl::CommandQueue& queue = device.queue();
  queue.enqueueNDRangeKernel(scan, cl::NullRange, cl::NDRange(blocks * kSortGroup), cl::NDRange(kSortGroup));
  if (blocks == 1) return;  // its one total is the sum of all: nothing to add back
  exclusive_scan(device, totals, blocks);
  cl::Kernel add = device.kernel("scan.cl", sort_options(), "scan_add");
  set_args(add, values, static_cast<cl_uint>(n), totals);
  queue.enqueueNDRangeKernel(add, cl::NullRange, cl::NDRange(groups_covering(n, kSortGroup)), cl::NDRange(kSortGroup));
}

void sort_keys(const Device& device, cl::Buffer& keys, cl::Buffer& scratch, std::size_t m, int bits) {
  if (m < 2) return;
  const std::size_t tiles = (m + kBlock - 1) / kBlock;
  const std::size_t digits = std::size_t{1} << kDigitBits;
  cl::Buffer counts(device.context(), CL_MEM_READ_WRITE, digits * tiles * sizeof(cl_uint));
  cl::Kernel count = device.kernel("radix_sort.cl", sort_options(), "radix_count");
  cl::Kernel scatter = device.kernel("radix_sort.cl", sort_options(), "radix_scatter");
  cl::CommandQueue& queue = device.queue();
  for (int shift = 0; shift < bits; shift += kDigitBits) {
    set_args(count, keys, static_cast<cl_ulong>(m), static_cast<cl_int>(shift), static_cast<cl_uint>(tiles), counts);
    queue.enqueueNDRangeKernel(count, cl::NullRange, cl::NDRange(tiles * kSortGroup), cl::NDRange(kSortGroup));
    exclusive_scan(device, counts, digits * tiles);
    set_args(scatter, keys, static_cast<cl_ulong>(m), static_cast<cl_int>(shift), static_cast<cl_uint>(tiles), counts,
             scratch);
    queue.enqueueNDRangeKernel(scatter, cl::NullRange, cl::NDRange(tiles * kSortGroup), cl::NDRange(kSortGroup));
    std::swap(keys, scratch);
  }
}

}  // namespace itercl::core
