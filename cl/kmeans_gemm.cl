// kmeans_gemm.cl: the K-Means assignment as a register-blocked GEMM, for long vectors (kmeans.cl holds
// the other variants; the layouts of points, centroids and labels are the same).
//
// The distance is expanded as in assign_expanded, |x - c|^2 - |x|^2 = |c|^2 - 2 x.c, and the x.c part is
// a GEMM of the points (N x DIM) by the centroids' transpose, with a running argmin in place of the
// output matrix (the tiling of CLBlast's xgemm, without its k-slices: a point's DIM values are staged whole).
//
//          TC = 16 x CPI centroids of a tile, staged as -2c (DIM x TC) and |c|^2 (TC)
//          +------------------+
//   TP =   | (tx, ty): PPI    |   work-item (tx, ty), tx < 16, ty < ROWS = WG_SIZE / 16, holds the
//   ROWS x |  points x CPI    |   PPI x CPI distances of points 4 ROWS g + 4 ty + e and centroids
//   PPI    |  centroids       |   64 g + 4 tx + e (g-th group of 4, e < 4): per feature, PPI / 4 + CPI / 4
//   points +------------------+   aligned vector loads from local memory feed PPI x CPI fmas.
//
// A work-group stages its TP points once (DIM x TP, column-major as in global memory) and walks the
// centroids a tile at a time. Each work-item keeps, per point, the nearest of its centroids so far
// (strictly nearer only, in increasing index); at the end the 16 work-items that share a point pool
// their minima in local memory, ties to the lowest index. Within a warp of 32 the work-items span 4
// values of tx and 8 of ty, so each load is a broadcast of few distinct vectors.
//
// Kernels
//   assign_gemm   the labels.
//   lloyd_gemm    (SUMS) assign_gemm fused with the update's sums (kmeans_sums.clh).
// Both take the arguments of their kmeans_expanded.cl counterparts (assign_expanded, lloyd_expanded); `staged`
// holds GEMM_LOCAL_REALS values (the host sizes it so), `chunk_size` is unused (the tile is TC).
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D DIM=<int>          (required) features per point.
//   -D WG_SIZE=256        work-items per work-group, a multiple of 128 (ROWS a multiple of 8).
//   -D PPI=8              points per work-item, a multiple of 4.
//   -D CPI=8              centroids per work-item in each tile, a multiple of 4.
//   -D SUMS=0, -D WEIGHTED=0, -D UNROLL_DIM_UP_TO=32  as in kmeans.cl.
#include "kmeans_params.clh"

#ifndef PPI
#define PPI 8
#endif
#ifndef CPI
#define CPI 8
#endif
#if WG_SIZE % 128 != 0 || PPI % 4 != 0 || CPI % 4 != 0
#error "WG_SIZE must be a multiple of 128, PPI and CPI multiples of 4"
#endif

#define COLS 16                // work-items across a tile of centroids
#define ROWS (WG_SIZE / COLS)  // work-items across the group's points
#define TP (ROWS * PPI)        // points per work-group
#define TC (COLS * CPI)        // centroids per tile
// A staged feature's row of the tile, padded by one vector: the transposing stores of stage_tile spread
// over more banks, and every row stays aligned for vector loads.
#define TC_STRIDE (TC + 4)
// Local memory in reals: the points, then either a tile (-2c and |c|^2) or, at the end, the pooled minima
// (TP x COLS distances and as many ints).
#define TILE_REALS (DIM * TC_STRIDE + TC)
#define POOL_REALS (2 * TP * COLS)
#define GEMM_LOCAL_REALS (DIM * TP + (TILE_REALS > POOL_REALS ? TILE_REALS : POOL_REALS))

// Work-item (tx, ty) of the picture: a warp's 32 lanes take 4 columns and 8 rows.
inline void gemm_position(int* tx, int* ty) {
  const int lane = get_local_id(0) % 32, warp = get_local_id(0) / 32;
  *tx = lane % 4 + 4 * (warp % 4);
  *ty = lane / 4 + 8 * (warp / 4);
}

// The group's points from `first` on into xs (DIM x TP); points past n read as 0 and are never stored.
inline void stage_points(__global const real* restrict points, const int n, const int ld, const int first,
                         __local real* xs) {
  for (int t = get_local_id(0); t < DIM * TP; t += WG_SIZE) {
    const int i = first + t % TP;
    xs[t] = i < n ? points[t / TP * ld + i] : 0;
  }
}

// Centroids [c0, c0 + TC) as -2c, transposed into cs (DIM rows of TC_STRIDE), and |c|^2 into norms;
// those past k are never nearer (-2c = 0, |c|^2 = REAL_MAX: no real distance reaches it, the host's
// overflow check sees to that). The leading barrier keeps the stores from overwriting a tile still in use.
// The norms are summed from the staged values, conflict-free, not from each centroid's row in global
// memory (a strided read per work-item); halving -2c is exact, so each norm is the one assign_expanded
// computes.
inline void stage_tile(__global const real* restrict centroids, const int k, const int c0, __local real* cs,
                       __local real* norms) {
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int t = get_local_id(0); t < TC * DIM; t += WG_SIZE) {  // consecutive work-items, consecutive values
    const int c = t / DIM, d = t % DIM;
    cs[d * TC_STRIDE + c] = c0 + c < k ? -2 * centroids[(c0 + c) * DIM + d] : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int c = get_local_id(0); c < TC; c += WG_SIZE) {
    real norm = 0;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) {
      const real v = cs[d * TC_STRIDE + c] * (real)-0.5;
      norm += v * v;
    }
    norms[c] = c0 + c < k ? norm : REAL_MAX;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Strictly nearer only: among equal distances the earlier centroid stays.
inline void keep_nearer(const real dist, const int c, real* best, int* best_c) {
  if (dist < *best) {
    *best = dist;
    *best_c = c;
  }
}

// The nearest centroid of the group's point `first + get_local_id(0)` for the first TP work-items (-1
// for the others). Leaves the points staged in the first DIM x TP reals of `staged`.
inline int nearest_gemm(__global const real* restrict points, const int n, const int ld,
                        __global const real* restrict centroids, const int k, __local real4* staged,
                        const int first) {
  __local real* xs = (__local real*)staged;
  __local real* cs = xs + DIM * TP;
  __local real* norms = cs + DIM * TC_STRIDE;
  __local const real4* xs4 = (__local const real4*)xs;
  __local const real4* cs4 = (__local const real4*)cs;
  __local const real4* norms4 = (__local const real4*)norms;
  int tx, ty;
  gemm_position(&tx, &ty);
  stage_points(points, n, ld, first, xs);  // published by the first tile's barriers

  real best[PPI];
  int best_c[PPI];
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    best[p] = REAL_MAX;
    best_c[p] = 0;
  }
  for (int c0 = 0; c0 < k; c0 += TC) {
    stage_tile(centroids, k, c0, cs, norms);
    real dist[PPI][CPI];
#pragma unroll
    for (int g = 0; g < CPI / 4; ++g) {
      const real4 norm = norms4[g * COLS + tx];
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        dist[p][4 * g] = norm.x;
        dist[p][4 * g + 1] = norm.y;
        dist[p][4 * g + 2] = norm.z;
        dist[p][4 * g + 3] = norm.w;
      }
    }
    // One chain of fmas per distance, in feature order, as in assign_expanded.
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) {
      real x[PPI], m[CPI];
#pragma unroll
      for (int g = 0; g < PPI / 4; ++g) {
        const real4 v = xs4[d * (TP / 4) + g * ROWS + ty];
        x[4 * g] = v.x, x[4 * g + 1] = v.y, x[4 * g + 2] = v.z, x[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < CPI / 4; ++g) {
        const real4 v = cs4[d * (TC_STRIDE / 4) + g * COLS + tx];
        m[4 * g] = v.x, m[4 * g + 1] = v.y, m[4 * g + 2] = v.z, m[4 * g + 3] = v.w;
      }
#pragma unroll
      for (int p = 0; p < PPI; ++p)
#pragma unroll
        for (int j = 0; j < CPI; ++j) dist[p][j] += x[p] * m[j];
    }
#pragma unroll
    for (int p = 0; p < PPI; ++p)
#pragma unroll
      for (int j = 0; j < CPI; ++j) keep_nearer(dist[p][j], c0 + j / 4 * 4 * COLS + 4 * tx + j % 4, &best[p], &best_c[p]);
  }

  // Pool the 16 minima of each point; the pool takes the tile's place, the points stay.
  barrier(CLK_LOCAL_MEM_FENCE);
  __local real* pool = cs;
  __local int* pool_c = (__local int*)(cs + TP * COLS);
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    const int point = p / 4 * 4 * ROWS + 4 * ty + p % 4;
    pool[point * COLS + tx] = best[p];
    pool_c[point * COLS + tx] = best_c[p];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int lid = get_local_id(0);
  if (lid >= TP) return -1;
  real least = pool[lid * COLS];
  int nearest = pool_c[lid * COLS];
  for (int col = 1; col < COLS; ++col) {
    const real d = pool[lid * COLS + col];
    const int c = pool_c[lid * COLS + col];
    if (d < least || (d == least && c < nearest)) {
      least = d;
      nearest = c;
    }
  }
  return nearest;
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_gemm(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels) {
  const int first = get_group_id(0) * TP;
  const int c = nearest_gemm(points, n, ld, centroids, k, staged, first);
  const int i = first + get_local_id(0);
  if (c >= 0 && i < n) labels[i] = c;
}

#if SUMS
#include "kmeans_sums.clh"

// One Lloyd step's device half: assign_gemm, then the sums of kmeans_sums.clh, one point per work-item
// from the staged points.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void lloyd_gemm(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels,
    __global const double* restrict weights, __global const double* restrict scale, __global long* restrict sums,
    __local long* local_sums, const int in_local, __global double* restrict inertia) {
  const int first = get_group_id(0) * TP, lid = get_local_id(0);
  __local double reduce[WG_SIZE];
  __local int changed;
  start_sums(k, local_sums, in_local, &changed);  // published by nearest_gemm's barriers
  const int c = nearest_gemm(points, n, ld, centroids, k, staged, first);

  double own_inertia = 0;
  int own_changed = 0;
  if (c >= 0 && first + lid < n) {
    __local const real* xs = (__local const real*)staged;
    real x[DIM];
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) x[d] = xs[d * TP + lid];
    double s[DIM + 1];
    load_scale(scale, s);
    add_assigned(first + lid, c, x, centroids, labels, weights, s, sums, local_sums, in_local, &own_inertia,
                 &own_changed);
  }
  finish_sums(k, own_inertia, own_changed, reduce, &changed, sums, local_sums, in_local, inertia);
}
#endif  // SUMS
