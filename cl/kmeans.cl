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
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D DIM=<int>          (required) features per point, fixed at build time so the loops unroll.
//   -D WG_SIZE=256        work-items per work-group; the host launches exactly this size.
//   -D PPI=1              points per work-item in the local-memory variants.
#include "common.clh"

#ifndef DIM
#error "DIM (features per point) must be defined"
#endif
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef PPI
#define PPI 1
#endif

// Loops over features unroll fully for the short vectors K-Means usually sees, partly for long ones.
#if DIM <= 32
#define UNROLL_DIM _Pragma("unroll")
#else
#define UNROLL_DIM _Pragma("unroll 8")
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

// Stages centroids [first, first + count) as DIM + 1 values each: -2 c, then |c|^2.
inline void stage_expanded(__global const real* restrict centroids, const int first, const int count,
                           __local real* chunk) {
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int c = get_local_id(0); c < count; c += WG_SIZE) {
    real norm = 0;
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) {
      const real v = centroids[(first + c) * DIM + d];
      chunk[c * (DIM + 1) + d] = -2 * v;
      norm += v * v;
    }
    chunk[c * (DIM + 1) + DIM] = norm;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_expanded(
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
    stage_expanded(centroids, c0, count, chunk);
    for (int c = 0; c < count; ++c) {
#pragma unroll
      for (int p = 0; p < PPI; ++p) {
        real dist = chunk[c * (DIM + 1) + DIM];  // |x - c|^2 - |x|^2 = |c|^2 - 2 x.c
        UNROLL_DIM
        for (int d = 0; d < DIM; ++d) dist += x[p][d] * chunk[c * (DIM + 1) + d];
        keep_nearer(dist, c0 + c, &best[p], &best_c[p]);
      }
    }
  }
  store_labels(labels, n, first, best_c);
}
