// pair_histogram_private.cl: seed 000's Algorithm 3, the tiled pass (pair_histogram_tiled.clh) counting
// in a private histogram per work-group in local memory, written out per group and summed by hist_merge
// (pair_histogram.cl).
//   hist_private           The group's histogram has REPLICAS copies, interleaved (hist[bin * REPLICAS +
//                          copy]), work-item t counting in copy t % REPLICAS: a warp's increments then fall
//                          in distinct banks and never on one counter, where one copy serialises the many
//                          pairs that share a bucket. With REPLICAS = WG_SIZE each work-item owns its copy
//                          and increments without atomics; with one bucket each counts in a register. The
//                          copies are summed when written out. The histogram has two more buckets, -1 and
//                          N_BINS, where the pairs in no bucket are counted and left: every pair's increment
//                          is then unconditional, where a test before it compiled to a branch around each
//                          atomic that kept the pairs of the unrolled loop from overlapping (on the H200,
//                          42.7 against 33.8 ms).
//   hist_private_balanced  as hist_private, with section IV-E's load balancing of the intra-block pairs.
#include "pair_histogram_tiled.clh"

// Zeroes the work-group's copies of the histogram, runs the pass, writes their sums to the group's row of
// partial (copy (r + t) % REPLICAS at step r, so that a warp's reads fall in distinct banks).
inline void private_pass(PAIR_ARGS, __local real* staged_table, __local BLOCK_TYPE* block, __local uint* hist,
                         const bool balanced, __global uint* restrict partial) {
  const int t = get_local_id(0);
  uint mine = 0;  // one bucket: the work-item's count
  for (int b = t; b < (N_BINS + 2) * REPLICAS; b += WG_SIZE) hist[b] = 0;
  tiled_pass(points, ld, row0, rows, col0, cols, diagonal, box, lo, hi, inv_width, table, staged_table, block,
             COUNT_PRIVATE, balanced, 0, hist, &mine);
  if (N_BINS == 1) atomic_add(&HIST(0, t & (REPLICAS - 1)), mine);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = t; b < N_BINS; b += WG_SIZE) {
    uint sum = 0;
    for (int r = 0; r < REPLICAS; ++r) sum += HIST(b, (r + t) & (REPLICAS - 1));
    partial[(get_group_id(1) * get_num_groups(0) + get_group_id(0)) * N_BINS + b] = sum;
  }
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_private(PAIR_ARGS,
                                                                                __global uint* restrict partial) {
  TABLE_LOCALS
  __local BLOCK_TYPE block[BLOCK_SIZE];
  __local uint hist[(N_BINS + 2) * REPLICAS];
  private_pass(points, ld, row0, rows, col0, cols, diagonal, box, lo, hi, inv_width, table, staged_table, block, hist,
               false, partial);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_private_balanced(
    PAIR_ARGS, __global uint* restrict partial) {
  TABLE_LOCALS
  __local BLOCK_TYPE block[BLOCK_SIZE];
  __local uint hist[(N_BINS + 2) * REPLICAS];
  private_pass(points, ld, row0, rows, col0, cols, diagonal, box, lo, hi, inv_width, table, staged_table, block, hist,
               true, partial);
}
