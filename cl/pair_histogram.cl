// pair_histogram.cl: hist_naive, seed 000's Algorithm 1: one anchor per work-item, the others read from
// global memory, every pair a global atomic increment; and hist_merge, which adds the private variants'
// per-group counts (and 32-bit global counters) into the 64-bit totals (section IV-C's reduction).
// pair_histogram.clh's banner describes the layout, the bucketing and the parameters.
#include "pair_histogram.clh"

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_naive(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  TABLE_LOCALS
  stage_table(table, staged_table);
  barrier(CLK_LOCAL_MEM_FENCE);
  const struct Frame f = frame(box, lo, hi, inv_width, table);
  const int r = get_global_id(0);
  if (r >= rows) return;
  real a[DIM], b[DIM];
  load_point(points, ld, row0 + r, a);
  for (int c = diagonal ? r + 1 : 0; c < cols; ++c) {
    load_point(points, ld, col0 + c, b);
    const int bin = BUCKET(&f, distance2(&f, a, b));
    if ((uint)bin < N_BINS) GLOBAL_INC(&counts[bin]);
  }
}

// One work-item per bin: adds the groups' counts into the 64-bit totals and clears them for the next
// launch (so 32-bit global counters can be merged through it too, as one group).
__kernel void hist_merge(__global uint* restrict partial, const int groups, __global ulong* restrict totals) {
  const int b = get_global_id(0);
  if (b >= N_BINS) return;
  ulong sum = 0;
  for (int g = 0; g < groups; ++g) {
    sum += partial[g * N_BINS + b];
    partial[g * N_BINS + b] = 0;
  }
  totals[b] += sum;
}
