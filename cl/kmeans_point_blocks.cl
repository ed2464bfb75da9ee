// kmeans_point_blocks.cl: assign_point_blocks, assign_expanded for CPUs (kmeans.cl's banner).
#include "kmeans_expanded.clh"

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
