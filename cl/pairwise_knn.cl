// pairwise_knn.cl: the k nearest neighbours of each row of a rectangle of the pair space, with the selection
// fused into the distance computation (issue 13): the distances are never written to global memory.
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
// Selection, both kernels: every work-item keeps, for each of its rows, the K best (d^2, column) of the
// columns it has seen, in private memory (GPUs: cached stack memory), and their K-th best in a register.
// A step's candidates (a tile's, in knn_fused; CPS columns', in knn_rows) are first compared with their
// rows' K-th bests all at once, before the clamp at 0 (the clamp only raises d^2), and only a step where
// one wins goes on to OFFER them one by one: one branch a step, not one a candidate, which took knn_rows
// at 200,000 points from 160.2 to 148.6 ms on the H200 (benchmarks/results/nvidia-h200/knn-offer).
// Ties: (d^2, column) in lexicographic order, so of equal squared distances the lower column wins, as in
// the host's merge. A work-item meets its columns in increasing order, so within its own lists a later
// entry loses every tie. Ranking is done on d^2, before the root of `euclidean` (the root is taken on the
// way out). Inner products are summed in dimension order in both kernels, so they give the same d^2 bit
// for bit.
//
// Kernel knn_fused (DIM undefined): a work-group of TILE_R x TILE_C work-items owns TILE_ROWS rows and
// streams every column tile of the rectangle past them. Each tile's TILE_ROWS x TILE_COLS inner products are
// accumulated in registers, ROWS_PER_ITEM x COLS_PER_ITEM a work-item, from slices of SLICE dimensions
// staged in local memory as real4: a work-item's rows and columns come in runs of 4 consecutive ones (run v
// of rows at v * 4 TILE_R + 4 ty), so each step reads them with ROWS_PER_ITEM / 4 + COLS_PER_ITEM / 4
// vector loads (broadcast for the rows) for ROWS_PER_ITEM x COLS_PER_ITEM multiply-adds. After the last
// tile the TILE_C lists of each row are merged through local memory. Any number of dimensions.
//   -D TILE_R=16, TILE_C=16           work-items along rows and columns
//   -D ROWS_PER_ITEM=8, COLS_PER_ITEM=8   a work-item's accumulators; multiples of 4, at most 32 columns
//   -D SLICE=16                       dimensions staged at a time (two buffers of them: one is read while the
//                                     next slice is on its way from global memory)
//
// Kernel knn_rows (DIM defined): each work-item holds its RPI rows' DIM values in registers, so a row's
// list is one work-item's and nothing is merged. The work-group stages COLS columns at a time in local
// memory, each column's values contiguous (YSTRIDE apart: aligned real4 reads, broadcast to every
// work-item), and every work-item takes CPS columns a step against its rows: DIM / 4 vector loads per
// column for RPI x DIM multiply-adds, each load a broadcast. Few dimensions only (the rows take registers).
//   -D DIM=<int>                      the dimensions rounded up to a multiple of 4 (past `dim`: zeros)
//   -D WG=128                         work-items per work-group
//   -D RPI=2                          rows per work-item
//   -D COLS=64, CPS=4                 columns staged at a time; taken CPS at a time (CPS divides COLS)
//   -D SPLITS=1                       the rectangle's columns cut into SPLITS ranges, one per work-group
//                                     along dimension 1, for rectangles whose rows alone leave the device
//                                     short of work-groups; each split writes its rows' lists of d^2 to
//                                     nearest + split * rows * K, and knn_merge merges them into the rows'
//                                     K best (the order of (d^2, column) is total: the same lists)
//
// Parameters, both
//   -D REAL=float|double              (required, see common.clh)
//   -D K=1                            neighbours per row, 1 to 64
//   -D SQRT=0|1                       1: write d (euclidean), 0: d^2 (sqeuclidean)
#include "common.clh"
#include "tile_stage.clh"

#ifndef K
#define K 1
#endif
#ifndef SQRT
#define SQRT 0
#endif

// (d, j) before (e, k): the smaller distance, then the lower column.
inline bool before(const real d, const int j, const real e, const int k) { return d < e || (d == e && j < k); }

// Inserts (d, j) into the ascending list best / at of K entries, dropping its last; (d, j) beats that last.
// `later` (j is above every column of the list): an equal distance goes after the entries it ties.
#define INSERT(best, at, d, j, later)                                                             \
  do {                                                                                            \
    int q_ = K - 1;                                                                               \
    for (; q_ > 0 && ((later) ? (d) < best[q_ - 1] : before(d, j, best[q_ - 1], at[q_ - 1])); --q_) \
      best[q_] = best[q_ - 1], at[q_] = at[q_ - 1];                                               \
    best[q_] = (d), at[q_] = (j);                                                                 \
  } while (0)

// Offers column j, at raw = |x|^2 + |y|^2 - 2 x.y, to a work-item's list of one row (K-th best `worst`;
// the row's own column `own` is never taken).
#define OFFER(best, at, worst, raw, j, own)                \
  do {                                                     \
    if ((raw) < (worst)) {                                 \
      const real d_ = fmax((raw), (real)0);                \
      if (d_ < (worst) && (j) != (own)) {                  \
        INSERT(best, at, d_, j, true);                     \
        (worst) = best[K - 1];                             \
      }                                                    \
    }                                                      \
  } while (0)

// The K best of one row out, the root taken where `root` (euclidean, and not a split's partial list).
#define WRITE_ROW(best, at, r, root)                                            \
  do {                                                                          \
    __global real* restrict out_ = nearest + (size_t)(r) * K;                   \
    __global int* restrict out_at_ = nearest_index + (size_t)(r) * K;          \
    for (int q_ = 0; q_ < K; ++q_) {                                            \
      out_[q_] = (root) && at[q_] >= 0 ? sqrt(best[q_]) : best[q_];             \
      out_at_[q_] = at[q_];                                                     \
    }                                                                           \
  } while (0)

#ifndef DIM

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
#if ROWS_PER_ITEM % 4 || COLS_PER_ITEM % 4 || COLS_PER_ITEM > 32
#error "ROWS_PER_ITEM and COLS_PER_ITEM must be multiples of 4, COLS_PER_ITEM at most 32"
#endif

#define TILE_ROWS (TILE_R * ROWS_PER_ITEM)
#define TILE_COLS (TILE_C * COLS_PER_ITEM)
#define ITEMS (TILE_R * TILE_C)
#define X_PER_ITEM ((SLICE * TILE_ROWS + ITEMS - 1) / ITEMS)  // staged values a work-item loads per slice
#define Y_PER_ITEM ((SLICE * TILE_COLS + ITEMS - 1) / ITEMS)
#define STAGE4 (SLICE * (TILE_ROWS + TILE_COLS) / 4)  // one buffer of staged slices, in real4
#define MERGE4 ((TILE_R * K * ((int)sizeof(real) + (int)sizeof(int)) + 15) / 16)
#define POOL4 (2 * STAGE4 > MERGE4 ? 2 * STAGE4 : MERGE4)

// The tile row (column) of a work-item's accumulator s (w): runs of 4 consecutive ones.
#define ROW_OF(s, ty) (((s) / 4) * 4 * TILE_R + 4 * (ty) + (s) % 4)
#define COL_OF(w, tx) (((w) / 4) * 4 * TILE_C + 4 * (tx) + (w) % 4)

__kernel __attribute__((reqd_work_group_size(TILE_C, TILE_R, 1))) void knn_fused(
    __global const real* restrict x, const int ldx, __global const real* restrict y, const int ldy, const int dim,
    const int row0, const int col0, const int rows, const int cols, __global const real* restrict xaux,
    __global const real* restrict yaux, const int skip_self, __global real* restrict nearest,
    __global int* restrict nearest_index) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * TILE_C + tx;
  const int tile_r = get_group_id(1) * TILE_ROWS;

  // Two buffers of staged slices, dimension-major (xs[k * TILE_ROWS + row]), one filled while the other is
  // read; the last merge reuses the same memory.
  __local real4 pool[POOL4];
  __local real* merge_d = (__local real*)pool;  // one work-item column's lists of TILE_R rows at a time
  __local int* merge_j = (__local int*)(merge_d + TILE_R * K);
  real xr[X_PER_ITEM], yr[Y_PER_ITEM];  // the next slice, on its way from global memory

  // This work-item's K best (INFINITY, -1 while fewer) of each of its rows, and the K-th best's distance.
  real best[ROWS_PER_ITEM][K], worst[ROWS_PER_ITEM];
  int best_at[ROWS_PER_ITEM][K];
  real xa[ROWS_PER_ITEM];
  int own[ROWS_PER_ITEM];
#pragma unroll
  for (int s = 0; s < ROWS_PER_ITEM; ++s) {
    for (int q = 0; q < K; ++q) best[s][q] = INFINITY, best_at[s][q] = -1;
    const int r = tile_r + ROW_OF(s, ty);
    xa[s] = r < rows ? xaux[row0 + r] : 0;
    // Rows past the rectangle take no candidate (a K-th best nothing beats); with skip_self a row does
    // not take its own column.
    worst[s] = r < rows ? INFINITY : -INFINITY;
    own[s] = skip_self ? row0 + r : -1;
  }

  fetch_slice(xr, X_PER_ITEM, x, ldx, row0, tile_r, rows, TILE_ROWS, 0, dim, SLICE, lid, ITEMS);
  fetch_slice(yr, Y_PER_ITEM, y, ldy, col0, 0, cols, TILE_COLS, 0, dim, SLICE, lid, ITEMS);
  int staged = 0;  // slices staged so far: the parity picks the buffer
  for (int tile_c = 0; tile_c < cols; tile_c += TILE_COLS) {
    real acc[ROWS_PER_ITEM][COLS_PER_ITEM];
#pragma unroll
    for (int s = 0; s < ROWS_PER_ITEM; ++s)
#pragma unroll
      for (int w = 0; w < COLS_PER_ITEM; ++w) acc[s][w] = 0;

    for (int k0 = 0; k0 < dim; k0 += SLICE, ++staged) {
      __local real4* xs4 = pool + (staged & 1) * STAGE4;
      __local real4* ys4 = xs4 + SLICE * TILE_ROWS / 4;
      // Writing this buffer is safe: its last readers, two slices ago, have all passed the barrier below
      // since.
      put_slice((__local real*)xs4, xr, X_PER_ITEM, TILE_ROWS, SLICE, lid, ITEMS);
      put_slice((__local real*)ys4, yr, Y_PER_ITEM, TILE_COLS, SLICE, lid, ITEMS);
      barrier(CLK_LOCAL_MEM_FENCE);  // the slice is staged
      // The next slice: this tile's next dimensions, or the next column tile's first.
      const bool same_tile = k0 + SLICE < dim;
      const int next_k0 = same_tile ? k0 + SLICE : 0, next_c = same_tile ? tile_c : tile_c + TILE_COLS;
      if (same_tile || next_c < cols) {
        fetch_slice(xr, X_PER_ITEM, x, ldx, row0, tile_r, rows, TILE_ROWS, next_k0, dim, SLICE, lid, ITEMS);
        fetch_slice(yr, Y_PER_ITEM, y, ldy, col0, next_c, cols, TILE_COLS, next_k0, dim, SLICE, lid, ITEMS);
      }
#pragma unroll
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

    // The tile's squared distances in place of the inner products, offered to their rows' lists only where
    // one beats its row's K-th best (Selection, above); columns past the rectangle take +INFINITY,
    // which beats nothing.
    bool beats = false;
#pragma unroll
    for (int w = 0; w < COLS_PER_ITEM; ++w) {
      const int c = tile_c + COL_OF(w, tx);
      const real yb = c < cols ? yaux[col0 + c] : INFINITY;
#pragma unroll
      for (int s = 0; s < ROWS_PER_ITEM; ++s) acc[s][w] = xa[s] + yb - 2 * acc[s][w], beats |= acc[s][w] < worst[s];
    }
    if (beats)
#pragma unroll
      for (int w = 0; w < COLS_PER_ITEM; ++w)
#pragma unroll
        for (int s = 0; s < ROWS_PER_ITEM; ++s)
          OFFER(best[s], best_at[s], worst[s], acc[s][w], col0 + tile_c + COL_OF(w, tx), own[s]);
  }

  // Each row's TILE_C lists into work-item tx = 0's, one work-item column at a time; a list is ascending,
  // so its first entry that loses ends it.
#pragma unroll
  for (int s = 0; s < ROWS_PER_ITEM; ++s) {
    for (int from = 1; from < TILE_C; ++from) {
      barrier(CLK_LOCAL_MEM_FENCE);  // the previous lists are merged
      if (tx == from)
        for (int q = 0; q < K; ++q) merge_d[ty * K + q] = best[s][q], merge_j[ty * K + q] = best_at[s][q];
      barrier(CLK_LOCAL_MEM_FENCE);  // work-item column `from`'s lists are in place
      if (tx == 0)
        for (int q = 0; q < K; ++q) {
          const real d = merge_d[ty * K + q];
          const int j = merge_j[ty * K + q];
          if (j < 0 || !before(d, j, best[s][K - 1], best_at[s][K - 1] < 0 ? INT_MAX : best_at[s][K - 1])) break;
          INSERT(best[s], best_at[s], d, j, false);
        }
    }
    const int r = tile_r + ROW_OF(s, ty);
    if (tx == 0 && r < rows) WRITE_ROW(best[s], best_at[s], r, SQRT);
  }
}

#else  // knn_rows

#ifndef WG
#define WG 128
#endif
#ifndef RPI
#define RPI 2
#endif
#ifndef COLS
#define COLS 64
#endif
#ifndef CPS
#define CPS 4
#endif
#ifndef SPLITS
#define SPLITS 1
#endif
#if DIM % 4 || COLS % CPS
#error "DIM must be a multiple of 4 and CPS divide COLS"
#endif
#define YSTRIDE (DIM + 4)  // a staged column's values; the 4 of padding spread the transposing stores' banks

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void knn_rows(
    __global const real* restrict x, const int ldx, __global const real* restrict y, const int ldy, const int dim,
    const int row0, const int col0, const int rows, const int cols, __global const real* restrict xaux,
    __global const real* restrict yaux, const int skip_self, __global real* restrict nearest,
    __global int* restrict nearest_index) {
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * WG * RPI + lid;
  // This work-group's split of the columns [c_begin, c_end), and where its lists go.
  const int split = get_group_id(1), split_cols = (cols + SPLITS - 1) / SPLITS;
  const int c_begin = min(cols, split * split_cols), c_end = min(cols, c_begin + split_cols);
  nearest += (size_t)split * rows * K;
  nearest_index += (size_t)split * rows * K;
  __local real4 ys4[COLS * YSTRIDE / 4];
  __local real* ys = (__local real*)ys4;
  __local real yn[COLS];

  // This work-item's rows (first, first + WG, ...: each load coalesces across the group), their lists as
  // in knn_fused.
  real xr[RPI][DIM], xa[RPI], worst[RPI], best[RPI][K];
  int own[RPI], best_at[RPI][K];
#pragma unroll
  for (int t = 0; t < RPI; ++t) {
    const int r = first + t * WG;
#pragma unroll
    for (int k = 0; k < DIM; ++k) xr[t][k] = r < rows && k < dim ? x[k * ldx + row0 + r] : 0;
    for (int q = 0; q < K; ++q) best[t][q] = INFINITY, best_at[t][q] = -1;
    xa[t] = r < rows ? xaux[row0 + r] : 0;
    worst[t] = r < rows ? INFINITY : -INFINITY;
    own[t] = skip_self ? row0 + r : -1;
  }

  for (int tile_c = c_begin; tile_c < c_end; tile_c += COLS) {
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done with the previous columns
    // Consecutive work-items read consecutive columns of one dimension (coalesced) and transpose them.
    for (int u = lid; u < COLS * DIM; u += WG) {
      const int c = u % COLS, k = u / COLS;
      ys[c * YSTRIDE + k] = k < dim && tile_c + c < c_end ? y[k * ldy + col0 + tile_c + c] : 0;
    }
    for (int c = lid; c < COLS; c += WG) yn[c] = tile_c + c < c_end ? yaux[col0 + tile_c + c] : INFINITY;
    barrier(CLK_LOCAL_MEM_FENCE);  // the columns are staged
    for (int c0 = 0; c0 < COLS; c0 += CPS) {
      real acc[RPI][CPS];
#pragma unroll
      for (int t = 0; t < RPI; ++t)
#pragma unroll
        for (int e = 0; e < CPS; ++e) acc[t][e] = 0;
#pragma unroll
      for (int v = 0; v < DIM / 4; ++v) {
#pragma unroll
        for (int e = 0; e < CPS; ++e) {
          const real4 b = ys4[((c0 + e) * YSTRIDE) / 4 + v];
#pragma unroll
          for (int t = 0; t < RPI; ++t) {
            acc[t][e] += xr[t][4 * v] * b.x;
            acc[t][e] += xr[t][4 * v + 1] * b.y;
            acc[t][e] += xr[t][4 * v + 2] * b.z;
            acc[t][e] += xr[t][4 * v + 3] * b.w;
          }
        }
      }
      // The step's squared distances in place of the inner products, offered as in knn_fused.
      bool beats = false;
#pragma unroll
      for (int e = 0; e < CPS; ++e) {
        const real yb = yn[c0 + e];
#pragma unroll
        for (int t = 0; t < RPI; ++t) acc[t][e] = xa[t] + yb - 2 * acc[t][e], beats |= acc[t][e] < worst[t];
      }
      if (beats)
#pragma unroll
        for (int e = 0; e < CPS; ++e)
#pragma unroll
          for (int t = 0; t < RPI; ++t)
            OFFER(best[t], best_at[t], worst[t], acc[t][e], col0 + tile_c + c0 + e, own[t]);
    }
  }
#pragma unroll
  for (int t = 0; t < RPI; ++t) {
    const int r = first + t * WG;
    if (r < rows) WRITE_ROW(best[t], best_at[t], r, SQRT && SPLITS == 1);
  }
}

// Row r's K best of the SPLITS lists knn_rows wrote for it (each ascending, (d^2, column) ordered; an
// empty place is INFINITY, -1), with the root for euclidean. One work-item a row.
__kernel void knn_merge(__global const real* restrict partial, __global const int* restrict partial_index,
                        const int rows, __global real* restrict nearest, __global int* restrict nearest_index) {
  const int r = get_global_id(0);
  if (r >= rows) return;
  int head[SPLITS];
  for (int s = 0; s < SPLITS; ++s) head[s] = 0;
  real best[K];
  int best_at[K];
  for (int q = 0; q < K; ++q) {
    int from = -1;
    real d = INFINITY;
    int j = -1;
    for (int s = 0; s < SPLITS; ++s) {
      if (head[s] == K) continue;
      const size_t at = ((size_t)s * rows + r) * K + head[s];
      const int c = partial_index[at];
      if (c >= 0 && (from < 0 || before(partial[at], c, d, j))) from = s, d = partial[at], j = c;
    }
    if (from >= 0) ++head[from];
    best[q] = d, best_at[q] = j;
  }
  WRITE_ROW(best, best_at, r, SQRT);
}

#endif  // DIM
