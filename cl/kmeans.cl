// kmeans.cl: the K-Means assignment step, each point's nearest centroid (seed 004, section 6).
//
// Layout
//   points     N x DIM, column-major: point i's feature d is points[d * ld + i]. Loop-invariant,
//              uploaded once. Consecutive work-items read consecutive addresses, so loads coalesce.
//   centroids  K x DIM, row-major. The loop-variant data, sent every iteration.
//   labels     N ints: the index of the nearest centroid by squared Euclidean distance; among equal
//              distances the lowest index wins (numpy.argmin's rule), so every variant agrees.
//
// Variants, the seed's optimisation steps (its Figure 13):
//   assign_naive                   one point per work-item, everything read from global memory.
//   assign_local_centroids         centroids staged in local memory `chunk_size` at a time (any K * DIM
//                                  fits); each work-item keeps PPI points in registers and reuses every
//                                  staged centroid for all of them.
//   assign_local_centroids_points  as above, but the work-group's points are staged column-major in
//                                  local memory and read from there ("D + shared data points").
//   assign_expanded                past the seed: as local_centroids, but with the distance expanded as
//                                  |x - c|^2 = |x|^2 + |c|^2 - 2 x.c and |x|^2 dropped (the same for every
//                                  c), so a distance is one chain of DIM fmas. The host centres the data
//                                  (as scikit-learn does) to keep the cancellation error small.
//   assign_tiled                   assign_expanded over a register tile of PPI points x CPI centroids (the
//                                  GEMM form): each staged centroid value loaded feeds PPI points, and
//                                  the running minimum is kept per tile of CPI centroids (one fmin per
//                                  distance instead of a compare and two selects); the winning tile's CPI
//                                  distances are computed once more at the end to find the centroid.
//   assign_point_blocks            assign_expanded for CPUs: each work-item takes PPI consecutive points,
//                                  held feature by feature as vectors of up to 16 lanes, and compares
//                                  each staged centroid with all of them in vector instructions (a GPU's
//                                  lanes are its work-items).
//   lloyd_expanded                 (SUMS) assign_expanded fused with the update's reduction: per-cluster
//                                  sums in 64-bit fixed point, the labels kept on the device
//                                  (kmeans_sums.clh). For long vectors kmeans_gemm.cl holds the same
//                                  search as a register-blocked GEMM.
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D DIM=<int>          (required) features per point, fixed at build time so the loops unroll.
//   -D WG_SIZE=256        work-items per work-group; the host launches exactly this size.
//   -D PPI=1              points per work-item in the local-memory variants (point_blocks: consecutive).
//   -D CPI=1              centroids per tile of the expanded variants (assign_tiled, lloyd_expanded); the
//                         host stages a multiple of CPI centroids per chunk.
//   -D SUMS=0             1 builds lloyd_expanded too (needs cl_khr_fp64 and cl_khr_int64_base_atomics).
//   -D WEIGHTED=0         lloyd_expanded: 1 reads a weight per point, 0 weighs every point 1.
//   -D UNROLL_DIM_UP_TO=32  loops over features unroll fully up to this D (kmeans_params.clh).
#include "kmeans_params.clh"

#ifndef PPI
#define PPI 1
#endif
#ifndef CPI
#define CPI 1
#endif

// The expanded variants' loop over tiles of centroids unrolls 4 times for short vectors, twice for longer
// ones: on the H200 (benchmarks/results/nvidia-h200/kmeans-d4-tile/, call 4) unrolling 4 times took the
// D = 4 assignment from 0.354 to 0.303 ms, but made the fused Lloyd kernel at D = 32 slower (2.24 against
// 2.14 ms), where twice made it faster (2.05).
#if DIM <= 4
#define TILE_UNROLL _Pragma("unroll 4")
#else
#define TILE_UNROLL _Pragma("unroll 2")
#endif

// Points a work-group covers in the local-memory variants; point p of work-item l is l + p * WG_SIZE.
#define GROUP_POINTS (WG_SIZE * PPI)

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_naive(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __global int* restrict labels) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real best = REAL_MAX;
  int best_c = 0;
  for (int c = 0; c < k; ++c) {
    real dist = 0;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) {
      const real diff = points[d * ld + i] - centroids[c * DIM + d];
      dist += diff * diff;
    }
    if (dist < best) {
      best = dist;
      best_c = c;
    }
  }
  labels[i] = best_c;
}

// Copies centroids [first, first + count) into local memory. The leading barrier keeps the copy from
// overwriting a chunk other work-items are still reading; the trailing one publishes it.
inline void stage_centroids(__global const real* restrict centroids, const int first, const int count,
                            __local real* chunk) {
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int t = get_local_id(0); t < count * DIM; t += WG_SIZE) chunk[t] = centroids[first * DIM + t];
  barrier(CLK_LOCAL_MEM_FENCE);
}

inline void reset_nearest(real best[PPI], int best_c[PPI]) {
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    best[p] = REAL_MAX;
    best_c[p] = 0;
  }
}

// Strictly nearer only: among equal distances the earlier centroid stays.
inline void keep_nearer(const real dist, const int c, real* best, int* best_c) {
  if (dist < *best) {
    *best = dist;
    *best_c = c;
  }
}

// The work-item's PPI points into registers; points past n read as 0 and are never stored.
inline void load_points(__global const real* restrict points, const int n, const int ld, const int first,
                        real x[PPI][DIM]) {
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    const int i = first + p * WG_SIZE;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) x[p][d] = i < n ? points[d * ld + i] : 0;
  }
}

inline void store_labels(__global int* restrict labels, const int n, const int first, const int best_c[PPI]) {
#pragma unroll
  for (int p = 0; p < PPI; ++p)
    if (first + p * WG_SIZE < n) labels[first + p * WG_SIZE] = best_c[p];
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_local_centroids(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real* chunk, const int chunk_size, __global int* restrict labels) {
  const int first = get_group_id(0) * GROUP_POINTS + get_local_id(0);
  real x[PPI][DIM];
  load_points(points, n, ld, first, x);
  real best[PPI];
  int best_c[PPI];
  reset_nearest(best, best_c);

  for (int c0 = 0; c0 < k; c0 += chunk_size) {
    const int count = min(chunk_size, k - c0);
    stage_centroids(centroids, c0, count, chunk);
    for (int c = 0; c < count; ++c) {
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        real dist = 0;
        UNROLL_DIM
        for (int d = 0; d < DIM; ++d) {
          // A broadcast read (every work-item reads the same centroid), reused for all PPI points.
          const real diff = x[p][d] - chunk[c * DIM + d];
          dist += diff * diff;
        }
        keep_nearer(dist, c0 + c, &best[p], &best_c[p]);
      }
    }
  }
  store_labels(labels, n, first, best_c);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_local_centroids_points(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real* chunk, const int chunk_size, __local real* tile, __global int* restrict labels) {
  // tile is DIM x GROUP_POINTS, column-major: each work-item reads its own entries only, so the seed's
  // layout makes a work-group's simultaneous reads hit consecutive banks.
  const int lid = get_local_id(0);
  const int first = get_group_id(0) * GROUP_POINTS + lid;
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    const int i = first + p * WG_SIZE;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) tile[d * GROUP_POINTS + lid + p * WG_SIZE] = i < n ? points[d * ld + i] : 0;
  }
  real best[PPI];
  int best_c[PPI];
  reset_nearest(best, best_c);

  for (int c0 = 0; c0 < k; c0 += chunk_size) {
    const int count = min(chunk_size, k - c0);
    stage_centroids(centroids, c0, count, chunk);
    for (int c = 0; c < count; ++c) {
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        real dist = 0;
        UNROLL_DIM
        for (int d = 0; d < DIM; ++d) {
          const real diff = tile[d * GROUP_POINTS + lid + p * WG_SIZE] - chunk[c * DIM + d];
          dist += diff * diff;
        }
        keep_nearer(dist, c0 + c, &best[p], &best_c[p]);
      }
    }
  }
  store_labels(labels, n, first, best_c);
}

// Staged centroids for the expanded distance, in tiles of CPI (1 outside the tiled kernels): a tile holds
// -2c of its CPI centroids, then their CPI norms |c|^2. When DIM is a multiple of 4, features 4q .. 4q + 3
// of the tile's centroid j are the vector q * CPI + j, and the tile is padded to whole vectors, so that
// every tile starts on a vector boundary and is read as DIM / 4 x CPI aligned vector loads (a quarter of
// the local-memory loads, which bound the loop at long vectors), its norms as CPI / 4 more where CPI is a
// multiple of 4 (at D = 4, CPI = 4: 5 loads a tile instead of 8).
#if DIM % 4 == 0
#define TILE_REALS ((CPI * (DIM + 1) + 3) / 4 * 4)
#define STAGED_AT(j, d) ((((d) / 4) * CPI + (j)) * 4 + (d) % 4)
#else
#define TILE_REALS (CPI * (DIM + 1))
#define STAGED_AT(j, d) ((d) * CPI + (j))
#endif
#define NORM_AT(j) (CPI * DIM + (j))

// Stages centroids [first, first + count) in tiles, the last padded to CPI with centroids that are never
// nearer: -2 c = 0 and |c|^2 = REAL_MAX (no real distance reaches it, the host's overflow check sees to that).
inline void stage_expanded(__global const real* restrict centroids, const int first, const int count,
                           __local real* chunk) {
  barrier(CLK_LOCAL_MEM_FENCE);
  const int padded = (count + CPI - 1) / CPI * CPI;
  for (int c = get_local_id(0); c < padded; c += WG_SIZE) {
    __local real* tile = chunk + c / CPI * TILE_REALS;
    const int j = c % CPI;
    real norm = c < count ? 0 : REAL_MAX;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) {
      const real v = c < count ? centroids[(first + c) * DIM + d] : 0;
      tile[STAGED_AT(j, d)] = -2 * v;
      if (c < count) norm += v * v;
    }
    tile[NORM_AT(j)] = norm;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The expanded distances (less |x|^2) from the PPI points to the tile's CPI staged centroids (c its first),
// each one chain of fmas in feature order (end_of_tile repeats that order from global memory). Every read
// is a broadcast, reused for all PPI points.
inline void tile_distances(__local const real4* staged, const int c, real x[PPI][DIM], real dist[PPI][CPI]) {
  __local const real* tile = (__local const real*)staged + c / CPI * TILE_REALS;
#if DIM % 4 == 0 && CPI % 4 == 0
  __local const real4* norms = (__local const real4*)(tile + NORM_AT(0));
#pragma unroll
  for (int g = 0; g < CPI / 4; ++g) {
    const real4 norm = norms[g];  // |x - c|^2 - |x|^2 = |c|^2 - 2 x.c
#pragma unroll
    for (int p = 0; p < PPI; ++p) {
      dist[p][4 * g] = norm.x;
      dist[p][4 * g + 1] = norm.y;
      dist[p][4 * g + 2] = norm.z;
      dist[p][4 * g + 3] = norm.w;
    }
  }
#else
#pragma unroll
  for (int j = 0; j < CPI; ++j) {
    const real norm = tile[NORM_AT(j)];
#pragma unroll
    for (int p = 0; p < PPI; ++p) dist[p][j] = norm;
  }
#endif
#if DIM % 4 == 0
  __local const real4* tile4 = (__local const real4*)tile;
  UNROLL_DIM
  for (int q = 0; q < DIM / 4; ++q) {
#pragma unroll
    for (int j = 0; j < CPI; ++j) {
      const real4 m = tile4[q * CPI + j];
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        dist[p][j] += x[p][4 * q] * m.x;
        dist[p][j] += x[p][4 * q + 1] * m.y;
        dist[p][j] += x[p][4 * q + 2] * m.z;
        dist[p][j] += x[p][4 * q + 3] * m.w;
      }
    }
  }
#else
  UNROLL_DIM
  for (int d = 0; d < DIM; ++d) {
#pragma unroll
    for (int j = 0; j < CPI; ++j) {
      const real m = tile[STAGED_AT(j, d)];
#pragma unroll
      for (int p = 0; p < PPI; ++p) dist[p][j] += x[p][d] * m;
    }
  }
#endif
}

// The nearest of the CPI centroids from `first` on (those below k), its distance computed as
// tile_distances did. Among equal distances the earlier centroid stays.
inline int end_of_tile(__global const real* restrict centroids, const int k, const int first, const real x[DIM]) {
  real best = REAL_MAX;
  int best_c = first;
  for (int j = 0; j < CPI && first + j < k; ++j) {
    const int c = first + j;
    real norm = 0;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) norm += centroids[c * DIM + d] * centroids[c * DIM + d];
    real dist = norm;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) dist += x[d] * (-2 * centroids[c * DIM + d]);
    keep_nearer(dist, c, &best, &best_c);
  }
  return best_c;
}

// The nearest centroid of each of the work-item's PPI points, by the expanded distance, CPI centroids
// at a time. The running minimum is kept per tile: a tile whose least distance is strictly smaller
// replaces the best, so the earliest tile wins ties, and end_of_tile finds the earliest centroid in
// it. `staged` is declared as vectors so that the runtime aligns it for them.
inline void nearest_expanded(__global const real* restrict centroids, const int k, __local real4* staged,
                             const int chunk_size, real x[PPI][DIM], int best_c[PPI]) {
  __local real* chunk = (__local real*)staged;
  real best[PPI];
  reset_nearest(best, best_c);  // with CPI > 1, best_c holds the first centroid of the best tile
  for (int c0 = 0; c0 < k; c0 += chunk_size) {
    const int count = min(chunk_size, k - c0);
    stage_expanded(centroids, c0, count, chunk);
    TILE_UNROLL
    for (int c = 0; c < count; c += CPI) {
      real dist[PPI][CPI];
      tile_distances(staged, c, x, dist);
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        real least = dist[p][0];
#pragma unroll
        for (int j = 1; j < CPI; ++j) least = fmin(least, dist[p][j]);
        keep_nearer(least, c0 + c, &best[p], &best_c[p]);
      }
    }
  }
#if CPI > 1
#pragma unroll
  for (int p = 0; p < PPI; ++p) best_c[p] = end_of_tile(centroids, k, best_c[p], x[p]);
#endif
}

// assign_expanded and assign_tiled: the same search, built with CPI = 1 and CPI > 1.
#define ITERCL_ASSIGN_EXPANDED(name)                                                                           \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                                    \
      __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids, \
      const int k, __local real4* staged, const int chunk_size, __global int* restrict labels) {               \
    const int first = get_group_id(0) * GROUP_POINTS + get_local_id(0);                                       \
    real x[PPI][DIM];                                                                                          \
    load_points(points, n, ld, first, x);                                                                      \
    int best_c[PPI];                                                                                           \
    nearest_expanded(centroids, k, staged, chunk_size, x, best_c);                                             \
    store_labels(labels, n, first, best_c);                                                                    \
  }
ITERCL_ASSIGN_EXPANDED(assign_expanded)
ITERCL_ASSIGN_EXPANDED(assign_tiled)

// assign_point_blocks: the distances as tile_distances computes them (|c|^2, then one fma per feature
// in feature order), the running minimum as keep_nearer keeps it; points past n read the last point's
// values and are never stored. The PPI points are held as PB_N vectors of PB_W lanes (realw), the widest
// that divides PPI: written as vectors rather than as loops over the points for the compiler to
// vectorise, because PoCL 5.0 left those loops scalar (on 16 Xeon cores at N = 1,048,576, D = 4, K = 300:
// 3.8 ms an assignment against 32-313 ms, benchmarks/results/pocl-xeon-16-cores/kmeans-point-blocks-vectors).
// PoCL 3.1, which did vectorise them, takes about 20% longer with the vectors (pocl-xeon-2-cores/, same name).
#if PPI % 16 == 0
#define PB_W 16
#elif PPI % 8 == 0
#define PB_W 8
#elif PPI % 4 == 0
#define PB_W 4
#elif PPI % 2 == 0
#define PB_W 2
#else
#define PB_W 1
#endif
#define PB_N (PPI / PB_W)
#if PB_W == 1
typedef real realw;
typedef int intw;
#define PB_MASK(m) (m)
#define PB_LOAD(p) (*(p))
#define PB_STORE(w, p) (*(p) = (w))
#else
typedef ITERCL_VECN(REAL, PB_W) realw;
typedef ITERCL_VECN(int, PB_W) intw;
#define PB_MASK(m) ITERCL_VECN(convert_int, PB_W)(m)  // a double compare gives long lanes
#define PB_LOAD(p) ITERCL_VECN(vload, PB_W)(0, p)
#define PB_STORE(w, p) ITERCL_VECN(vstore, PB_W)(w, 0, p)
#endif

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_point_blocks(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels) {
  __local const real* chunk = (__local const real*)staged;
  const int first = (get_group_id(0) * WG_SIZE + get_local_id(0)) * PPI;
  realw x[DIM][PB_N], best[PB_N];
  intw best_c[PB_N];
  UNROLL_DIM
  for (int d = 0; d < DIM; ++d)
#pragma unroll
    for (int v = 0; v < PB_N; ++v) {
      real lane[PB_W];
#pragma unroll
      for (int l = 0; l < PB_W; ++l) lane[l] = points[d * ld + min(first + v * PB_W + l, n - 1)];
      x[d][v] = PB_LOAD(lane);
    }
#pragma unroll
  for (int v = 0; v < PB_N; ++v) best[v] = (realw)REAL_MAX, best_c[v] = (intw)0;
  for (int c0 = 0; c0 < k; c0 += chunk_size) {
    const int count = min(chunk_size, k - c0);
    stage_expanded(centroids, c0, count, (__local real*)staged);
    for (int c = 0; c < count; ++c) {
      realw dist[PB_N];
#pragma unroll
      for (int v = 0; v < PB_N; ++v) dist[v] = (realw)chunk[c * TILE_REALS + NORM_AT(0)];
      UNROLL_DIM
      for (int d = 0; d < DIM; ++d) {
        const real m = chunk[c * TILE_REALS + STAGED_AT(0, d)];
#pragma unroll
        for (int v = 0; v < PB_N; ++v) dist[v] += x[d][v] * m;
      }
#pragma unroll
      for (int v = 0; v < PB_N; ++v) {
        best_c[v] = select(best_c[v], (intw)(c0 + c), PB_MASK(dist[v] < best[v]));
        best[v] = fmin(best[v], dist[v]);  // exact: equal distances are equal values
      }
    }
  }
#pragma unroll
  for (int v = 0; v < PB_N; ++v) {
    int lane[PB_W];
    PB_STORE(best_c[v], lane);
#pragma unroll
    for (int l = 0; l < PB_W; ++l)
      if (first + v * PB_W + l < n) labels[first + v * PB_W + l] = lane[l];
  }
}

#if SUMS
#include "kmeans_sums.clh"

// One Lloyd step's device half: assign_expanded (or assign_tiled, as CPI says), then the sums of
// kmeans_sums.clh (its banner describes the arguments from labels on).
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void lloyd_expanded(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels,
    __global const double* restrict weights, __global const double* restrict scale, __global long* restrict sums,
    __local long* local_sums, const int in_local, __global double* restrict inertia) {
  const int first = get_group_id(0) * GROUP_POINTS + get_local_id(0);
  __local double reduce[WG_SIZE];
  __local int changed;
  start_sums(k, local_sums, in_local, &changed);
  // The stages in nearest_expanded start with a barrier, which publishes the zeroes above.
  real x[PPI][DIM];
  load_points(points, n, ld, first, x);
  int best_c[PPI];
  nearest_expanded(centroids, k, staged, chunk_size, x, best_c);

  double own_inertia = 0;
  int own_changed = 0;
  double s[DIM + 1];
  load_scale(scale, s);
#pragma unroll
  for (int p = 0; p < PPI; ++p) {
    const int i = first + p * WG_SIZE;
    if (i >= n) break;
    add_assigned(i, best_c[p], x[p], centroids, labels, weights, s, sums, local_sums, in_local, &own_inertia,
                 &own_changed);
  }
  finish_sums(k, own_inertia, own_changed, reduce, &changed, sums, local_sums, in_local, inertia);
}
#endif  // SUMS
