// pairwise_knn.cl: the k nearest neighbours of each row of a rectangle of the pair space, with the selection
// fused into the distance tiles (issue 13): the distances are never written to global memory.
//
// Layout
//   x, y    the inputs, column-major as in cl/pairwise.cl (feature k of vector i at x[k * ldx + i]).
//   xaux,   |v|^2 of every vector (the host's, in double, rounded): the expanded form
//   yaux    d^2 = |x|^2 + |y|^2 - 2 x.y, GEMM-like, one multiply-add per dimension (cl/pairwise.cl's
//           `expanded` variant, with the same cancellation error for near pairs).
//   rows, cols, row0, col0   the rectangle: rows row0 .. row0 + rows - 1 of D, their candidates the columns
//           col0 .. col0 + cols - 1.
//   skip_self = 1 (one input): the candidate whose index is the row's own is left out.
//   nearest, nearest_index   rows x K: each row's K smallest distances ascending and their columns;
//           fewer candidates than K leave INFINITY and -1 past them (cl/pairwise_reduce.cl's reduce_knn).
//
// Kernel knn_fused: a work-group of TILE_R x TILE_C work-items owns TILE_ROWS rows and streams every
// column tile of the rectangle past them. Each tile's TILE_ROWS x TILE_COLS inner products are accumulated
// in registers, ROWS_PER_ITEM x COLS_PER_ITEM a work-item, from slices of SLICE dimensions staged in local
// memory as real4: a work-item's rows and columns come in runs of 4 consecutive ones (run v of rows at
// v * 4 TILE_R + 4 ty), so each step reads them with ROWS_PER_ITEM / 4 + COLS_PER_ITEM / 4 vector loads
// (broadcast for the rows) for ROWS_PER_ITEM x COLS_PER_ITEM multiply-adds.
// Selection: each row's list of its K best (d^2, column) so far lives in the private memory of work-item
// lid = row (cached stack memory on GPUs, written rarely), its K-th best in local memory. A work-item compares its
// entries of the tile with their row's K-th best; the few that beat it (all of them while the list is
// not full) are queued in local memory, QUEUE per row, and work-item `row` merges its row's queue into the
// list. Entries that find their row's queue full wait for the next round, which compares them again with
// the new K-th best. After the first tiles almost every entry fails the one comparison: the selection
// costs about one comparison per distance.
// Ties: (d^2, column) in lexicographic order, so of equal squared distances the lower column wins, as in
// the host's merge. Ranking is done on d^2, before the root of `euclidean` (the root is taken on the way out).
//
// Parameters
//   -D REAL=float|double              (required, see common.clh)
//   -D K=1                            neighbours per row, 1 to 64
//   -D SQRT=0|1                       1: write d (euclidean), 0: d^2 (sqeuclidean)
//   -D TILE_R=16, TILE_C=16           work-items along rows and columns
//   -D ROWS_PER_ITEM=8, COLS_PER_ITEM=8   a work-item's accumulators; multiples of 4, at most 16 columns
//   -D SLICE=16                       dimensions staged at a time
//   -D QUEUE=16                       candidates queued per row and round
#include "common.clh"
#include "tile_stage.clh"

#ifndef K
#define K 1
#endif
#ifndef SQRT
#define SQRT 0
#endif
#ifndef TILE_R
#define TILE_R 16
#endif
#ifndef TILE_C
#define TILE_C 16
#endif
#ifndef ROWS_PER_ITEM
#define ROWS_PER_ITEM 8
#endif
#ifndef COLS_PER_ITEM
#define COLS_PER_ITEM 8
#endif
#ifndef SLICE
#define SLICE 16
#endif
#ifndef QUEUE
#define QUEUE 16
#endif
#if ROWS_PER_ITEM % 4 || COLS_PER_ITEM % 4 || COLS_PER_ITEM > 32
#error "ROWS_PER_ITEM and COLS_PER_ITEM must be multiples of 4, COLS_PER_ITEM at most 32"
#endif

#define TILE_ROWS (TILE_R * ROWS_PER_ITEM)
#define TILE_COLS (TILE_C * COLS_PER_ITEM)
#define ITEMS (TILE_R * TILE_C)

// The tile row (column) of a work-item's accumulator s (w): runs of 4 consecutive ones.
#define ROW_OF(s, ty) (((s) / 4) * 4 * TILE_R + 4 * (ty) + (s) % 4)
#define COL_OF(w, tx) (((w) / 4) * 4 * TILE_C + 4 * (tx) + (w) % 4)

// (d, j) before (e, k): the smaller distance, then the lower column.
inline bool before(const real d, const int j, const real e, const int k) { return d < e || (d == e && j < k); }

// Merges `count` queued candidates into a row's list (its `filled` best, ascending), keeping the best K.
inline int merge_queue(real* best, int* at, int filled, __local const real* restrict qd,
                       __local const int* restrict qj, const int count) {
  for (int t = 0; t < count; ++t) {
    const real d = qd[t];
    const int j = qj[t];
    if (filled == K && !before(d, j, best[K - 1], at[K - 1])) continue;
    int q = filled < K ? filled++ : K - 1;
    for (; q > 0 && before(d, j, best[q - 1], at[q - 1]); --q) best[q] = best[q - 1], at[q] = at[q - 1];
    best[q] = d, at[q] = j;
  }
  return filled;
}

__kernel __attribute__((reqd_work_group_size(TILE_C, TILE_R, 1))) void knn_fused(
    __global const real* restrict x, const int ldx, __global const real* restrict y, const int ldy, const int dim,
    const int row0, const int col0, const int rows, const int cols, __global const real* restrict xaux,
    __global const real* restrict yaux, const int skip_self, __global real* restrict nearest,
    __global int* restrict nearest_index) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * TILE_C + tx;
  const int tile_r = get_group_id(1) * TILE_ROWS;

  __local real4 xs4[SLICE * TILE_ROWS / 4];  // staged slice, dimension-major: xs[k * TILE_ROWS + row]
  __local real4 ys4[SLICE * TILE_COLS / 4];
  __local real* xs = (__local real*)xs4;
  __local real* ys = (__local real*)ys4;
  __local real worst[TILE_ROWS];  // each row's K-th best so far (INFINITY while its list is not full)
  __local int worst_at[TILE_ROWS];
  __local int queued[TILE_ROWS];  // candidates queued per row this round (past QUEUE: the ones that wait)
  __local real queue_d[TILE_ROWS * QUEUE];
  __local int queue_j[TILE_ROWS * QUEUE];
  __local int waiting[2];  // per round parity: whether some candidate waits for the next round

  // Work-item `lid` < TILE_ROWS keeps row lid's list in private memory (GPUs: cached stack memory).
  const bool keeper = lid < TILE_ROWS && tile_r + lid < rows;
  real best[K];
  int best_at[K];
  int filled = 0;
  if (lid < TILE_ROWS) worst[lid] = INFINITY, worst_at[lid] = INT_MAX, queued[lid] = 0;
  if (lid < 2) waiting[lid] = 0;

  real xa[ROWS_PER_ITEM];
#pragma unroll
  for (int s = 0; s < ROWS_PER_ITEM; ++s) {
    const int r = tile_r + ROW_OF(s, ty);
    xa[s] = r < rows ? xaux[row0 + r] : 0;
  }
  int round = 0;

  for (int tile_c = 0; tile_c < cols; tile_c += TILE_COLS) {
    real acc[ROWS_PER_ITEM][COLS_PER_ITEM];
#pragma unroll
    for (int s = 0; s < ROWS_PER_ITEM; ++s)
#pragma unroll
      for (int w = 0; w < COLS_PER_ITEM; ++w) acc[s][w] = 0;

    for (int k0 = 0; k0 < dim; k0 += SLICE) {
      barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done reading the previous slice
      stage_slice(xs, x, ldx, row0, tile_r, rows, TILE_ROWS, k0, dim, SLICE, lid, ITEMS);
      stage_slice(ys, y, ldy, col0, tile_c, cols, TILE_COLS, k0, dim, SLICE, lid, ITEMS);
      barrier(CLK_LOCAL_MEM_FENCE);  // the slice is staged
      for (int k = 0; k < SLICE; ++k) {
        real a[ROWS_PER_ITEM], b[COLS_PER_ITEM];
#pragma unroll
        for (int v = 0; v < ROWS_PER_ITEM / 4; ++v) {
          const real4 t = xs4[(k * TILE_ROWS) / 4 + v * TILE_R + ty];
          a[4 * v] = t.x, a[4 * v + 1] = t.y, a[4 * v + 2] = t.z, a[4 * v + 3] = t.w;
        }
#pragma unroll
        for (int v = 0; v < COLS_PER_ITEM / 4; ++v) {
          const real4 t = ys4[(k * TILE_COLS) / 4 + v * TILE_C + tx];
          b[4 * v] = t.x, b[4 * v + 1] = t.y, b[4 * v + 2] = t.z, b[4 * v + 3] = t.w;
        }
#pragma unroll
        for (int s = 0; s < ROWS_PER_ITEM; ++s)
#pragma unroll
          for (int w = 0; w < COLS_PER_ITEM; ++w) acc[s][w] += a[s] * b[w];
      }
    }

    // The tile's squared distances, and which of them beat their row's K-th best (a bit per column).
    real yb[COLS_PER_ITEM];
    int col[COLS_PER_ITEM];
#pragma unroll
    for (int w = 0; w < COLS_PER_ITEM; ++w) {
      const int c = tile_c + COL_OF(w, tx);
      yb[w] = c < cols ? yaux[col0 + c] : 0;
      col[w] = c < cols ? col0 + c : -1;
    }
    uint pending[ROWS_PER_ITEM];
#pragma unroll
    for (int s = 0; s < ROWS_PER_ITEM; ++s) {
      const int r = ROW_OF(s, ty);
      // Rows past the rectangle take no candidate; with skip_self a row does not take its own column.
      const int own = tile_r + r < rows ? (skip_self ? row0 + tile_r + r : -1) : INT_MAX;
      const real bound = worst[r];
      const int bound_at = worst_at[r];
      pending[s] = 0;
#pragma unroll
      for (int w = 0; w < COLS_PER_ITEM; ++w) {
        acc[s][w] = fmax(xa[s] + yb[w] - 2 * acc[s][w], (real)0);
        const bool valid = col[w] >= 0 && own != INT_MAX && col[w] != own;
        if (valid && before(acc[s][w], col[w], bound, bound_at)) pending[s] |= 1u << w;
      }
    }
    // Rounds until no candidate waits: queue, merge, compare the ones left with the new K-th best.
    for (;;) {
      int left = 0;
#pragma unroll
      for (int s = 0; s < ROWS_PER_ITEM; ++s) {
        if (!pending[s]) continue;
        const int r = ROW_OF(s, ty);
        const real bound = worst[r];
        const int bound_at = worst_at[r];
#pragma unroll
        for (int w = 0; w < COLS_PER_ITEM; ++w) {
          if (!(pending[s] & (1u << w))) continue;
          if (!before(acc[s][w], col[w], bound, bound_at)) {
            pending[s] &= ~(1u << w);
            continue;
          }
          const int slot = atomic_inc(&queued[r]);
          if (slot < QUEUE) {
            queue_d[r * QUEUE + slot] = acc[s][w], queue_j[r * QUEUE + slot] = col[w];
            pending[s] &= ~(1u << w);
          } else {
            left = 1;
          }
        }
      }
      if (left) waiting[round & 1] = 1;
      if (lid == 0) waiting[(round + 1) & 1] = 0;  // read last in the previous round, written in the next
      barrier(CLK_LOCAL_MEM_FENCE);                // every candidate of this round is queued
      if (keeper && queued[lid] > 0) {
        filled =
            merge_queue(best, best_at, filled, queue_d + lid * QUEUE, queue_j + lid * QUEUE, min(queued[lid], QUEUE));
        if (filled == K) worst[lid] = best[K - 1], worst_at[lid] = best_at[K - 1];
      }
      if (lid < TILE_ROWS) queued[lid] = 0;
      const int again = waiting[round & 1];
      ++round;
      barrier(CLK_LOCAL_MEM_FENCE);  // the lists and K-th bests are merged; the queues are empty
      if (!again) break;
    }
  }

  if (keeper) {
    __global real* restrict out = nearest + (size_t)(tile_r + lid) * K;
    __global int* restrict out_at = nearest_index + (size_t)(tile_r + lid) * K;
    for (int q = 0; q < K; ++q) {
      const bool found = q < filled;
#if SQRT
      out[q] = found ? sqrt(best[q]) : INFINITY;
#else
      out[q] = found ? best[q] : INFINITY;
#endif
      out_at[q] = found ? best_at[q] : -1;
    }
  }
}
