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
//   radix_scatter  the tile's keys to their places, in digit order through local memory first so that the
//                  writes are coalesced. Work-item w takes the SORT_ITEMS consecutive keys at
//                  w * SORT_ITEMS of the tile; one scan over the work-items of all 16 digits' counts at once
//                  (16 bits each, four to a ulong: a ulong4) gives each work-item the place of its first key
//                  of each digit among the tile's keys of that digit. A work-item's counts fit 4 bits
//                  (SORT_ITEMS < 16), so they are gathered in one ulong, never an indexed private array
//                  (which GPUs keep in memory).
//
// Parameters
//   -D SCAN_GROUP=n   the work-group size (required, a power of two; local_scan.clh)
//   -D SORT_ITEMS=k   keys per work-item (required, below 16; SCAN_GROUP * SORT_ITEMS below 65536)
#include "local_scan.clh"

#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
#define TILE (SCAN_GROUP * SORT_ITEMS)
// Key i of the tile sits at local index PADDED(i): one spare ulong after every SORT_ITEMS keys, so that the
// work-items reading their SORT_ITEMS consecutive keys at once hit different banks (unpadded, a stride of
// 8 ulongs puts every other work-item on the same bank: an 8-way conflict on NVIDIA's 32 banks).
#define PADDED(i) ((i) + (i) / SORT_ITEMS)
#define PADDED_TILE PADDED(TILE)

#if SORT_ITEMS >= 16 || TILE >= 65536
#error "SORT_ITEMS must be below 16 (a work-item's count of a digit is 4 bits) and a tile below 65536 keys"
#endif

// The 16 counts of digits in `valid` of this work-item's keys, 4 bits each.
inline ulong digit_counts(const ulong* mine, uint valid, int shift) {
  ulong counts = 0;
  for (int k = 0; k < SORT_ITEMS; ++k)
    if (k < valid) counts += 1UL << (4 * ((mine[k] >> shift) & (RADIX - 1)));
  return counts;
}

// This work-item's SORT_ITEMS consecutive keys of the tile, into private memory; returns how many exist.
inline uint my_keys(__local const ulong* tile, uint in_tile, ulong* mine) {
  const uint first = get_local_id(0) * SORT_ITEMS;
  for (int k = 0; k < SORT_ITEMS; ++k) mine[k] = first + k < in_tile ? tile[PADDED(first + k)] : 0;
  return first >= in_tile ? 0 : min((uint)SORT_ITEMS, in_tile - first);
}

// The 16 counts, widened to 16 bits each, four to a ulong: a tile's sums (at most TILE, 2,048 or fewer
// keys) fit 16 bits, so one scan of the four ulongs serves all 16 digits.
inline ulong4 widened(ulong counts) {
  ulong w[4] = {0, 0, 0, 0};
  for (int d = 0; d < RADIX; ++d) w[d / 4] |= ((counts >> (4 * d)) & 15) << (16 * (d % 4));
  return (ulong4)(w[0], w[1], w[2], w[3]);
}

// Digit d's 16-bit field of widened counts.
inline uint field(ulong4 v, int d) {
  const ulong w = d < 4 ? v.s0 : d < 8 ? v.s1 : d < 12 ? v.s2 : v.s3;
  return (uint)((w >> (16 * (d % 4))) & 0xffff);
}

// The tile's keys into local memory (padded), read coalesced.
inline uint load_tile(__global const ulong* keys, ulong m, __local ulong* tile) {
  const ulong base = get_group_id(0) * (ulong)TILE;
  const uint in_tile = (uint)min((ulong)TILE, m - base);
  for (uint i = get_local_id(0); i < in_tile; i += SCAN_GROUP) tile[PADDED(i)] = keys[base + i];
  barrier(CLK_LOCAL_MEM_FENCE);
  return in_tile;
}

__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1))) void radix_count(__global const ulong* keys, ulong m,
                                                                                  int shift, uint tiles,
                                                                                  __global uint* counts) {
  __local ulong tile[PADDED_TILE];
  __local ulong4 a[SCAN_GROUP];
  const uint in_tile = load_tile(keys, m, tile);
  ulong mine[SORT_ITEMS];
  const uint valid = my_keys(tile, in_tile, mine);
  ulong4 total;
  local_exclusive_scan4(widened(digit_counts(mine, valid, shift)), a, &total);
  if (get_local_id(0) < RADIX) counts[get_local_id(0) * tiles + get_group_id(0)] = field(total, get_local_id(0));
}

// The tile's keys are first put in digit order in local memory, then written out by consecutive work-items
// to consecutive places: each digit's run of the tile lands in one coalesced stretch.
__kernel __attribute__((reqd_work_group_size(SCAN_GROUP, 1, 1))) void radix_scatter(
    __global const ulong* keys, ulong m, int shift, uint tiles, __global const uint* counts, __global ulong* sorted) {
  __local ulong tile[PADDED_TILE];
  __local ulong4 a[SCAN_GROUP];
  __local uint shift_to_global[RADIX];  // a key's global place less its place in the tile, by digit
  const uint in_tile = load_tile(keys, m, tile);
  ulong mine[SORT_ITEMS];
  const uint valid = my_keys(tile, in_tile, mine);
  ulong4 total;
  const ulong4 before = local_exclusive_scan4(widened(digit_counts(mine, valid, shift)), a, &total);
  // place[d]: where this work-item's next key of digit d goes in the tile sorted by digit.
  uint place[RADIX];
  uint start = 0;
  for (int d = 0; d < RADIX; ++d) {
    place[d] = start + field(before, d);
    if (get_local_id(0) == d) shift_to_global[d] = counts[d * tiles + get_group_id(0)] - start;
    start += field(total, d);
  }
  // Every work-item holds its keys in private memory (my_keys; the scan's barriers passed since).
  for (int k = 0; k < SORT_ITEMS; ++k)
    if (k < valid) {
      const uint at = place[(mine[k] >> shift) & (RADIX - 1)]++;
      tile[PADDED(at)] = mine[k];
    }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = get_local_id(0); i < in_tile; i += SCAN_GROUP) {
    const ulong key = tile[PADDED(i)];
    sorted[shift_to_global[(key >> shift) & (RADIX - 1)] + i] = key;
  }
}
