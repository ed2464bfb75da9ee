// pairwise_reduce.cl: one computed rectangle of D (cl/pairwise.cl's `out`) reduced on the device, so that
// only the reduced values cross to the host (issue 5).
//
// Layout
//   tile    rows x cols, row-major with leading dimension ld: tile[r * ld + c] = D[row0 + r, col0 + c].
//   lines   what is reduced: line l < rows is row row0 + l of D, its candidates the tile's columns
//           (global indices col0 + c). With one input, a rectangle off the diagonal stands for its mirror
//           too, whose rows are the tile's columns: then lines rows .. rows + cols - 1 are rows col0 + c of
//           D, their candidates the tile's rows (global indices row0 + r), read down a column.
//   skip_self = 1 (one input): the candidate whose global index is the line's own is left out (pdist's
//           pairs i != j). Only rectangles on the diagonal hold such a candidate; they hold both triangles
//           already (cl/pairwise.cl mirrors inside them), so their rows alone see every candidate once.
//   Candidates are scanned in increasing global index and replace a kept one only when strictly smaller
//   (larger for the maximum): of equal distances, the lower index wins, as in the host's merge.
//   One work-item per line: a row's reads stride through memory, which is cheap next to the distances.
//
// Kernels
//   reduce_stats      per line: min and its index, max and its index, the sum. A line with no candidate
//                     gets index -1.
//   reduce_knn        per line: the K smallest distances, ascending, and their indices; fewer candidates
//                     than K leave INFINITY and index -1 in the places past them.
//   reduce_threshold  every pair with D <= threshold, appended as (i, j, d) through an atomic counter;
//                     upper_only = 1 (one input) keeps pairs i < j. Pairs past `capacity` are counted, not
//                     written: the host grows the buffers and runs this kernel on the same tile again.
//
// Parameters
//   -D REAL=float|double   (required, see common.clh)
//   -D K=1                 neighbours kept per line by reduce_knn, 1 to 64 (private arrays of K values)
#include "common.clh"

#ifndef K
#define K 1
#endif

// Where line `line` reads its candidates from, and which global indices they have.
typedef struct {
  int offset, step, count;  // candidate t is tile[offset + t * step]
  int first;                // its global index is first + t
  int own;                  // the line's global row, left out of its candidates where skip_self is set
} Line;

inline Line line_of(const int line, const int rows, const int cols, const int ld, const int row0, const int col0,
                    const int skip_self) {
  Line l;
  if (line < rows) {
    l.offset = line * ld, l.step = 1, l.count = cols, l.first = col0, l.own = row0 + line;
  } else {
    const int c = line - rows;
    l.offset = c, l.step = ld, l.count = rows, l.first = row0, l.own = col0 + c;
  }
  if (!skip_self) l.own = -1;
  return l;
}

__kernel void reduce_stats(__global const real* restrict tile, const int ld, const int rows, const int cols,
                           const int row0, const int col0, const int lines, const int skip_self,
                           __global real* restrict min_value, __global int* restrict min_index,
                           __global real* restrict max_value, __global int* restrict max_index,
                           __global real* restrict sum) {
  const int line = get_global_id(0);
  if (line >= lines) return;
  const Line l = line_of(line, rows, cols, ld, row0, col0, skip_self);
  real lo = INFINITY, hi = -INFINITY, total = 0;
  int at_lo = -1, at_hi = -1;
  for (int t = 0; t < l.count; ++t) {
    const int j = l.first + t;
    if (j == l.own) continue;
    const real d = tile[l.offset + t * l.step];
    if (d < lo || at_lo < 0) lo = d, at_lo = j;
    if (d > hi || at_hi < 0) hi = d, at_hi = j;
    total += d;
  }
  min_value[line] = lo, min_index[line] = at_lo;
  max_value[line] = hi, max_index[line] = at_hi;
  sum[line] = total;
}

__kernel void reduce_knn(__global const real* restrict tile, const int ld, const int rows, const int cols,
                         const int row0, const int col0, const int lines, const int skip_self,
                         __global real* restrict nearest, __global int* restrict nearest_index) {
  const int line = get_global_id(0);
  if (line >= lines) return;
  const Line l = line_of(line, rows, cols, ld, row0, col0, skip_self);
  real best[K];
  int at[K];
  int found = 0;
  for (int t = 0; t < l.count; ++t) {
    const int j = l.first + t;
    if (j == l.own) continue;
    const real d = tile[l.offset + t * l.step];
    if (found == K && !(d < best[K - 1])) continue;
    // Insertion from the back: equal distances stay behind, so the lower index keeps its place.
    int q = found < K ? found++ : K - 1;
    for (; q > 0 && d < best[q - 1]; --q) best[q] = best[q - 1], at[q] = at[q - 1];
    best[q] = d, at[q] = j;
  }
  for (int q = 0; q < K; ++q) {
    nearest[line * K + q] = q < found ? best[q] : INFINITY;
    nearest_index[line * K + q] = q < found ? at[q] : -1;
  }
}

__kernel void reduce_threshold(__global const real* restrict tile, const int ld, const int rows, const int cols,
                               const int row0, const int col0, const int upper_only, const real threshold,
                               __global int* restrict count, const int capacity, __global int* restrict pair_i,
                               __global int* restrict pair_j, __global real* restrict pair_d) {
  const int r = get_global_id(0);
  if (r >= rows) return;
  const int i = row0 + r;
  for (int c = 0; c < cols; ++c) {
    const int j = col0 + c;
    if (upper_only && j <= i) continue;
    const real d = tile[r * ld + c];
    if (!(d <= threshold)) continue;
    const int slot = atomic_inc(count);
    if (slot < capacity) pair_i[slot] = i, pair_j[slot] = j, pair_d[slot] = d;
  }
}
