// kmeans.cl: the K-Means assignment step, each point's nearest centroid (seed 004, section 6): the seed's
// variants. The others are built from files of their own, named below; the parts they share are
// kmeans_assign.clh (points and labels) and kmeans_expanded.clh (centroids staged for the expanded distance).
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
// Variants past the seed (kmeans_expanded.cl):
//   assign_expanded                as local_centroids, but with the distance expanded as
//                                  |x - c|^2 = |x|^2 + |c|^2 - 2 x.c and |x|^2 dropped (the same for every
//                                  c), so a distance is one chain of DIM fmas. The host centres the data
//                                  (as scikit-learn does) to keep the cancellation error small.
//   assign_tiled                   assign_expanded over a register tile of PPI points x CPI centroids (the
//                                  GEMM form): each staged centroid value loaded feeds PPI points, and
//                                  the running minimum is kept per tile of CPI centroids (one fmin per
//                                  distance instead of a compare and two selects); the winning tile's CPI
//                                  distances are computed once more at the end to find the centroid.
// kmeans_point_blocks.cl:
//   assign_point_blocks            assign_expanded for CPUs: each work-item takes PPI consecutive points,
//                                  held feature by feature as vectors of up to 16 lanes, and compares
//                                  each staged centroid with all of them in vector instructions (a GPU's
//                                  lanes are its work-items).
// kmeans_expanded.cl with SUMS:
//   lloyd_expanded                 assign_expanded fused with the update's reduction: per-cluster
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
#include "kmeans_assign.clh"

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
