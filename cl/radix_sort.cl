// radix_sort.cl: one pass of a least-significant-digit radix sort of 64-bit keys, RADIX_BITS bits at a
// time (Satish, Harris and Garland's scheme with a stable scatter: each pass keeps the order of equal
// digits, so passes from the low digit up sort by all of them).
//
// A pass is three steps: radix_count counts each tile's digits; the host scans the counts, digit-major
// (scan.cl), so that counts[d * tiles + t] becomes where tile t's keys of digit d go; radix_scatter writes
// them there, each tile's keys of one digit in their order in the tile.
//
// Layout
//   keys, sorted   m ulongs: a pass reads `keys` and writes `sorted`.
//   counts         RADIX * tiles uints, digit-major; tile t holds keys [t * TILE, (t + 1) * TILE).
//
// Kernels (one work-group per tile)
//   radix_count    the tile's count of each digit.
//   radix_scatter  the tile's keys to their places. Work-item w takes the SORT_ITEMS consecutive keys at
//                  w * SORT_ITEMS of the tile; a scan over (digit, work-item), digit-major, gives each
//                  work-item the place of its first key of each digit among the tile's keys of that digit.
//                  Counts per work-item fit 4 bits (SORT_ITEMS < 16), so its 16 counts are one ulong and
//                  never an indexed private array (which GPUs keep in memory).
//
// Parameters
//   -D SCAN_GROUP=n   the work-group size (required, a power of two; local_scan.clh)
//   -D SORT_ITEMS=k   keys per work-item (required, below 16; SCAN_GROUP * SORT_ITEMS below 65536)
#include "local_scan.clh"

#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
#define TILE (SCAN_GROUP * SORT_ITEMS)

#if SORT_ITEMS >= 16 || TILE >= 65536
#error "SORT_ITEMS must be below 16 (a work-item's count of a digit is 4 bits) and a tile below 65536 keys"
#endif

// The 16 counts of digits in this work-item's keys of the tile, 4 bits each, in `tile` (local, TILE keys).
inline ulong digit_counts(__local const ulong* tile, uint in_tile, int shift) {
  ulong counts = 0;
  const uint first = get_local_id(0) * SORT_ITEMS;
  for (int k = 0; k < SORT_ITEMS; ++k)
    if (first + k < in_tile) counts += 1UL << (4 * ((tile[first + k] >> shift) & (RADIX - 1)));
  return counts;
}

// Digits d and d + 1's counts as one uint of two 16-bit halves: a tile's sums (at most TILE, 2048 or
// fewer keys) fit a half, so one scan serves two digits.
inline uint pair_of_counts(ulong counts, int d) {
  return (uint)((counts >> (4 * d)) & 15u) | (uint)((counts >> (4 * d + 4)) & 15u) << 16;
}

// The tile's keys into local memory, read coalesced.
inline uint load_tile(__global const ulong* keys, ulong m, __local ulong* tile) {
  const ulong base = get_group_id(0) * (ulong)TILE;
  const uint in_tile = (uint)min((ulong)TILE, m - base);
  for (uint i = get_local_id(0); i < in_tile; i += SCAN_GROUP) tile[i] = keys[base + i];
  barrier(CLK_LOCAL_MEM_FENCE);
  return in_tile;
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1))) void radix_count(__global const ulong* keys, ulong m,
                                                                                  int shift, uint tiles,
                                                                                  __global uint* counts) {
  __local ulong tile[TILE];
  __local uint a[SCAN_GROUP];
  const uint in_tile = load_tile(keys, m, tile);
  const ulong mine = digit_counts(tile, in_tile, shift);
  for (int d = 0; d < RADIX; d += 2) {
    uint total;
    local_exclusive_scan(pair_of_counts(mine, d), a, &total);
    if (get_local_id(0) == 0) {
      counts[d * tiles + get_group_id(0)] = total & 0xffffu;
      counts[(d + 1) * tiles + get_group_id(0)] = total >> 16;
    }
  }
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1))) void radix_scatter(
    __global const ulong* keys, ulong m, int shift, uint tiles, __global const uint* counts, __global ulong* sorted) {
  __local ulong tile[TILE];
  __local uint a[SCAN_GROUP];
  const uint in_tile = load_tile(keys, m, tile);
  const ulong mine = digit_counts(tile, in_tile, shift);
  // place[d]: where this work-item's next key of digit d goes.
  uint place[RADIX];
  for (int d = 0; d < RADIX; d += 2) {
    uint total;
    const uint before = local_exclusive_scan(pair_of_counts(mine, d), a, &total);
    place[d] = counts[d * tiles + get_group_id(0)] + (before & 0xffffu);
    place[d + 1] = counts[(d + 1) * tiles + get_group_id(0)] + (before >> 16);
  }
  const uint first = get_local_id(0) * SORT_ITEMS;
  for (int k = 0; k < SORT_ITEMS; ++k)
    if (first + k < in_tile) {
      const ulong key = tile[first + k];
      const int d = (int)((key >> shift) & (RADIX - 1));
      // The indexed place[] stays in registers only if the compiler unrolls this; otherwise it is 16 uints
      // of private memory per work-item, still cached.
      sorted[place[d]++] = key;
    }
}
