// pair_histogram_tiled.cl: hist_tiled, seed 000's Algorithm 2 with section IV-A's Register-SHM
// (pair_histogram_tiled.clh's pass), every pair a global atomic increment.
#include "pair_histogram_tiled.clh"

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_tiled(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  TABLE_LOCALS
  __local BLOCK_TYPE block[BLOCK_SIZE];
  tiled_pass(points, ld, row0, rows, col0, cols, diagonal, box, lo, hi, inv_width, table, staged_table, block,
             COUNT_GLOBAL, false, counts, 0, 0);
}
