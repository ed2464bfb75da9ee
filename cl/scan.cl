// scan.cl: an exclusive prefix sum of uints over the whole device, in blocks: scan_blocks scans each block
// of SCAN_GROUP * SCAN_ITEMS values in place and writes its total; the host scans the totals the same way
// (recursively, down to one block) and scan_add adds each block's scanned total back.
//
// Layout
//   values   n uints, scanned in place. The sums fit 32 bits (the callers' counts are below 2^31).
//   totals   one uint per block.
//
// Kernels
//   scan_blocks  one work-group per block; each work-item sums SCAN_ITEMS consecutive values, the group
//                scans those sums (local_scan.clh), and each work-item writes its values' prefixes.
//   scan_add     adds totals[block] to every value of the block.
//
// Parameters
//   -D SCAN_GROUP=n   the work-group size (required, a power of two)
//   -D SCAN_ITEMS=k   values per work-item (required)
#include "local_scan.clh"

#define SCAN_BLOCK (SCAN_GROUP * SCAN_ITEMS)

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1))) void scan_blocks(__global uint* values, uint n,
                                                                                  __global uint* totals) {
  __local uint a[SCAN_GROUP];
  const size_t first = get_group_id(0) * (size_t)SCAN_BLOCK + get_local_id(0) * (size_t)SCAN_ITEMS;
  uint sum = 0;
  for (int k = 0; k < SCAN_ITEMS; ++k)
    if (first + k < n) sum += values[first + k];
  uint total;
  uint running = local_exclusive_scan(sum, a, &total);
  for (int k = 0; k < SCAN_ITEMS; ++k)
    if (first + k < n) {
      const uint v = values[first + k];
      values[first + k] = running;
      running += v;
    }
  if (get_local_id(0) == 0) totals[get_group_id(0)] = total;
}

__kernel void scan_add(__global uint* values, uint n, __global const uint* totals) {
  const size_t i = get_global_id(0);
  if (i < n) values[i] += totals[i / SCAN_BLOCK];
}
