// pairwise.cl: all-pairs D[i, j] = F(M1[i], M2[j]) over one rectangle of the pair space (seed 001).
//
// Layout
//   x, y    the inputs, column-major: feature k of vector i is x[k * ldx + i]. Resident on the device,
//           uploaded once; consecutive work-items read consecutive addresses, so loads coalesce.
//   out     one rectangle of D, rows x cols, row-major with leading dimension ldo: out[r * ldo + c] =
//           D[row0 + r, col0 + c]. The host streams rectangles out while the next one computes.
//   xaux,   per-vector values the metric's last step needs: 1 / |v| (cosine) or |v|^2 (expanded),
//   yaux    computed by the host in double; unused (any 1-element buffer) for the other metrics.
//   symmetric = 1: x and y are one input and the rectangle sits on the diagonal (row0 == col0, rows ==
//           cols). Only pairs i < j are computed; each is written to both (i, j) and (j, i), and the
//           diagonal gets F's value on identical vectors (0 for every distance).
//
// Kernels
//   pairs_naive  one entry per work-item, both vectors read from global memory: the reference.
//   pairs_tiled  seed 001, section 3: a work-group of TILE_R x TILE_C work-items computes a tile of
//                (TILE_R * SUBTILES) x (TILE_C * COLS_PER_ITEM) entries. Its row and column vectors are
//                staged in local memory SLICE dimensions (the seed's d') at a time and the partial
//                results accumulate across slices. The seed computes its s subtiles one after another,
//                keeping partial results in global memory; here a work-item holds the accumulators of
//                all SUBTILES subtiles (and COLS_PER_ITEM columns) in registers, so every staged value
//                is reused from a register SUBTILES or COLS_PER_ITEM times. COLS_PER_ITEM = 1 is the
//                seed's tile shape. Tiles wholly below the diagonal of a symmetric rectangle exit at once.
//
// Parameters
//   -D REAL=float|double        (required, see common.clh)
//   -D ACCUMULATE=<ACC_*>       (required) the per-dimension step (metric.clh)
//   -D FINISH=<FINISH_*>        (required) the last step on the accumulated value (metric.clh)
//   -D TILE_R=8, TILE_C=16      work-items per work-group along rows and columns (the seed's r and c)
//   -D SUBTILES=4               subtiles per tile, each TILE_R rows (the seed's s)
//   -D COLS_PER_ITEM=1          columns per work-item
//   -D SLICE=32                 dimensions staged in local memory at a time (the seed's d')
#include "common.clh"
#include "metric.clh"
#include "tile_stage.clh"

#ifndef ACCUMULATE
#error "ACCUMULATE must name the per-dimension step (-D ACCUMULATE=ACC_SQDIFF)"
#endif
#ifndef FINISH
#error "FINISH must name the last step (-D FINISH=FINISH_SQRT)"
#endif
#ifndef TILE_R
#define TILE_R 8
#endif
#ifndef TILE_C
#define TILE_C 16
#endif
#ifndef SUBTILES
#define SUBTILES 4
#endif
#ifndef COLS_PER_ITEM
#define COLS_PER_ITEM 1
#endif
#ifndef SLICE
#define SLICE 32
#endif

#define TILE_ROWS (TILE_R * SUBTILES)
#define TILE_COLS (TILE_C * COLS_PER_ITEM)

inline real accumulate(const real acc, const real a, const real b, const real p) {
#if ACCUMULATE == ACC_SQDIFF
  const real t = a - b;
  return acc + t * t;
#elif ACCUMULATE == ACC_ABSDIFF
  return acc + fabs(a - b);
#elif ACCUMULATE == ACC_POWDIFF
  return acc + pow(fabs(a - b), p);
#elif ACCUMULATE == ACC_MAXDIFF
  return fmax(acc, fabs(a - b));
#elif ACCUMULATE == ACC_DOT
  return acc + a * b;
#else
#error "unknown ACCUMULATE"
#endif
}

inline real finish(const real acc, const real xaux, const real yaux, const real inv_p) {
#if FINISH == FINISH_NONE
  return acc;
#elif FINISH == FINISH_SQRT
  return sqrt(acc);
#elif FINISH == FINISH_ROOT
  return pow(acc, inv_p);
#elif FINISH == FINISH_COSINE
  return 1 - clamp(acc * xaux * yaux, (real)-1, (real)1);
#elif FINISH == FINISH_EXPANDED_SQ
  return fmax(xaux + yaux - 2 * acc, (real)0);
#elif FINISH == FINISH_EXPANDED_SQRT
  return sqrt(fmax(xaux + yaux - 2 * acc, (real)0));
#else
#error "unknown FINISH"
#endif
}

// F on identical vectors: 0 for every distance (exactly, whatever the rounding of the expanded forms),
// |x|^2 for the dot product.
inline real on_diagonal(const real value) {
#if ACCUMULATE == ACC_DOT && FINISH == FINISH_NONE
  return value;
#else
  return 0;
#endif
}

// Stores D[i, j] (rectangle coordinates r, c) and, in a symmetric rectangle, D[j, i] too.
inline void store(__global real* restrict out, const int ldo, const int r, const int c, const int symmetric,
                  const real value) {
  if (!symmetric) {
    out[r * ldo + c] = value;
  } else if (r == c) {
    out[r * ldo + c] = on_diagonal(value);
  } else if (r < c) {
    out[r * ldo + c] = value;
    out[c * ldo + r] = value;
  }
}

__kernel void pairs_naive(__global const real* restrict x, const int ldx, __global const real* restrict y,
                          const int ldy, const int dim, const int row0, const int col0, const int rows,
                          const int cols, __global const real* restrict xaux, __global const real* restrict yaux,
                          const real p, const real inv_p, const int symmetric, __global real* restrict out,
                          const int ldo) {
  const int c = get_global_id(0), r = get_global_id(1);
  if (r >= rows || c >= cols || (symmetric && r > c)) return;
  const int i = row0 + r, j = col0 + c;
  real acc = 0;
  for (int k = 0; k < dim; ++k) acc = accumulate(acc, x[k * ldx + i], y[k * ldy + j], p);
  store(out, ldo, r, c, symmetric, finish(acc, xaux[i], yaux[j], inv_p));
}

__kernel __attribute__((reqd_work_group_size(TILE_C, TILE_R, 1))) void pairs_tiled(
    __global const real* restrict x, const int ldx, __global const real* restrict y, const int ldy, const int dim,
    const int row0, const int col0, const int rows, const int cols, __global const real* restrict xaux,
    __global const real* restrict yaux, const real p, const real inv_p, const int symmetric,
    __global real* restrict out, const int ldo) {
  const int tx = get_local_id(0), ty = get_local_id(1);
  const int lid = ty * TILE_C + tx;
  const int tile_r = get_group_id(1) * TILE_ROWS, tile_c = get_group_id(0) * TILE_COLS;
  // Every entry below the diagonal: the tile holding the mirrored entries writes them. The whole
  // work-group leaves together, before any barrier.
  if (symmetric && tile_r >= tile_c + TILE_COLS) return;

  // Staged slices, dimension-major: xs[k * TILE_ROWS + row], ys[k * TILE_COLS + col]. A work-item's reads
  // of one k are a broadcast (xs: work-items of one row) or consecutive (ys), so no bank conflicts.
  __local real xs[SLICE * TILE_ROWS];
  __local real ys[SLICE * TILE_COLS];
  real acc[SUBTILES][COLS_PER_ITEM];
#pragma unroll
  for (int s = 0; s < SUBTILES; ++s)
#pragma unroll
    for (int w = 0; w < COLS_PER_ITEM; ++w) acc[s][w] = 0;

  for (int k0 = 0; k0 < dim; k0 += SLICE) {
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone is done reading the previous slice
    stage_slice(xs, x, ldx, row0, tile_r, rows, TILE_ROWS, k0, dim, SLICE, lid, TILE_R * TILE_C);
    stage_slice(ys, y, ldy, col0, tile_c, cols, TILE_COLS, k0, dim, SLICE, lid, TILE_R * TILE_C);
    barrier(CLK_LOCAL_MEM_FENCE);  // the slice is staged
    for (int k = 0; k < SLICE; ++k) {
      real a[SUBTILES], b[COLS_PER_ITEM];
#pragma unroll
      for (int s = 0; s < SUBTILES; ++s) a[s] = xs[k * TILE_ROWS + ty + s * TILE_R];
#pragma unroll
      for (int w = 0; w < COLS_PER_ITEM; ++w) b[w] = ys[k * TILE_COLS + tx + w * TILE_C];
#pragma unroll
      for (int s = 0; s < SUBTILES; ++s)
#pragma unroll
        for (int w = 0; w < COLS_PER_ITEM; ++w) acc[s][w] = accumulate(acc[s][w], a[s], b[w], p);
    }
  }

#pragma unroll
  for (int s = 0; s < SUBTILES; ++s) {
    const int r = tile_r + ty + s * TILE_R;
    if (r >= rows) break;
#pragma unroll
    for (int w = 0; w < COLS_PER_ITEM; ++w) {
      const int c = tile_c + tx + w * TILE_C;
      if (c < cols) store(out, ldo, r, c, symmetric, finish(acc[s][w], xaux[row0 + r], yaux[col0 + c], inv_p));
    }
  }
}
