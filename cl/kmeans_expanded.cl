// kmeans_expanded.cl: assign_expanded and assign_tiled (CPI = 1 and CPI > 1: the same search), and with
// SUMS lloyd_expanded, the search fused with the update's sums (kmeans.cl's banner describes them).
#include "kmeans_expanded.clh"

// The expanded variants' loop over tiles of centroids unrolls 4 times for short vectors, twice for longer
// ones: on the H200 (benchmarks/results/nvidia-h200/kmeans-d4-tile/, call 4) unrolling 4 times took the
// D = 4 assignment from 0.354 to 0.303 ms, but made the fused Lloyd kernel at D = 32 slower (2.24 against
// 2.14 ms), where twice made it faster (2.05).
#if DIM <= 4
#define TILE_UNROLL _Pragma("unroll 4")
#else
#define TILE_UNROLL _Pragma("unroll 2")
#endif


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

// The nearest centroid of each of the work-item's PPI points, to labels.
inline void assign_nearest_expanded(__global const real* restrict points, const int n, const int ld,
                                    __global const real* restrict centroids, const int k, __local real4* staged,
                                    const int chunk_size, __global int* restrict labels) {
  const int first = get_group_id(0) * GROUP_POINTS + get_local_id(0);
  real x[PPI][DIM];
  load_points(points, n, ld, first, x);
  int best_c[PPI];
  nearest_expanded(centroids, k, staged, chunk_size, x, best_c);
  store_labels(labels, n, first, best_c);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_expanded(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels) {
  assign_nearest_expanded(points, n, ld, centroids, k, staged, chunk_size, labels);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_tiled(
    __global const real* restrict points, const int n, const int ld, __global const real* restrict centroids,
    const int k, __local real4* staged, const int chunk_size, __global int* restrict labels) {
  assign_nearest_expanded(points, n, ld, centroids, k, staged, chunk_size, labels);
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
