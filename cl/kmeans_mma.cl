// kmeans_mma.cl: the K-Means assignment on NVIDIA's tensor cores, through inline PTX (float only; compute
// capability 8.0 and later: the host builds this file nowhere else). Labels as kmeans.cl's: the nearest
// centroid, ties to the lowest index.
//
// The expanded distance |c|^2 - 2 x.c, with x.c from mma.sync m16n8k8 in TF32 with float accumulation.
// TF32 keeps 10 of float's 23 fraction bits, so each value is split into its TF32 part and the remainder
// (exact: at most 13 significant bits) and x.c = hi.hi + hi.lo + lo.hi (3xTF32). What is left out, lo.lo
// and the remainder's last 2 bits, which mma.sync reads as TF32 too, is near 2^-22 of |x||c|: a few units
// of float's rounding, which the tests' tie tolerance holds. On one H200 at N = 1 M, D = 32, K = 1,024 this takes the
// assignment from 1.83 ms (assign_expanded, bound by its FP32 FMAs) to 1.16
// (benchmarks/results/nvidia-h200/kmeans-mma/).
//
// Kernels
//   prepare_mma  the centroids' staged layout, once a call, one work-item a value: for each centroid its
//                TF32 parts, their remainders (DP values each, zero past DIM), |c|^2 and padding, STRIDE
//                floats; the rows from K up to a multiple of 8 are zero with |c|^2 = INFINITY, so no
//                block of 8 needs a bound.
//   assign_mma   each warp keeps the A fragments (hi and lo) of 16 PPI points in registers for the whole
//                run; the work-group stages `chunk_size` prepared centroids at a time in local memory and
//                each warp multiplies its points by blocks of 8 of them. STRIDE = 2 DP + 4 floats puts a
//                fragment's 32 reads in 32 banks.
//   lloyd_mma    (SUMS) assign_mma fused with the update's sums (kmeans_sums.clh): the labels go through
//                local memory to one point per work-item, which adds its point to its cluster's sums.
// assign_mma and lloyd_mma take their kmeans_expanded.cl counterparts' arguments (row-major `centroids` included,
// which lloyd_mma's sums read) and then `prepared`, prepare_mma's output.
//
// Parameters
//   -D REAL=float          (required: the host refuses double, which TF32 cannot carry)
//   -D DIM=<int>           (required) features per point; padded to DP, a multiple of the k-step 8.
//   -D WG_SIZE=256         work-items per work-group, a multiple of 32 (whole warps).
//   -D PPI=2               tiles of 16 points each warp keeps (its A fragments: 8 PPI DP / 8 registers a lane).
//   -D SUMS=0, -D WEIGHTED=0, -D UNROLL_DIM_UP_TO=32  as in kmeans.cl.
#include "kmeans_params.clh"

#ifndef PPI
#define PPI 2
#endif
#if WG_SIZE % 32 != 0
#error "WG_SIZE must be a multiple of 32"
#endif

#define KSTEPS ((DIM + 7) / 8)
#define DP (8 * KSTEPS)
#define STRIDE (2 * DP + 4)
#define NORM_AT (2 * DP)
#define WARPS (WG_SIZE / 32)
#define GROUP_POINTS (WARPS * 16 * PPI)

// The TF32 part of v: its top 19 bits (sign, exponent, 10 of the fraction), the value mma.sync reads.
inline uint tf32_part(const float v) { return as_uint(v) & 0xffffe000u; }

// acc += a (16 x 8, row-major fragment) times b (8 x 8, column-major fragment).
#define MMA(acc, a, b0, b1)                                                                                   \
  __asm__("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, " \
          "{%0, %1, %2, %3};"                                                                                 \
          : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])                                            \
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

inline uint lane_id(void) {
  uint lane;
  __asm__("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// v from the lane whose id differs from this one's by `mask` (all 32 lanes take part).
inline uint shuffle_xor(const uint v, const uint mask) {
  uint r;
  __asm__ volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(mask));
  return r;
}

__kernel void prepare_mma(__global const float* restrict centroids, const int k, __global float* restrict prepared) {
  // One work-item a value of the layout, so that the writes coalesce; a row's norm work-item reads the row.
  const int e = get_global_id(0), j = e / STRIDE, f = e % STRIDE;
  if (j >= (k + 7) / 8 * 8) return;
  float v = 0;
  if (j >= k) {
    v = f == NORM_AT ? INFINITY : 0;
  } else if (f < DIM) {
    v = as_float(tf32_part(centroids[j * DIM + f]));
  } else if (f >= DP && f < DP + DIM) {
    const float c = centroids[j * DIM + f - DP];
    v = c - as_float(tf32_part(c));
  } else if (f == NORM_AT) {
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) v = fma(centroids[j * DIM + d], centroids[j * DIM + d], v);
  }
  prepared[e] = v;
}

// The nearest prepared centroid to each of the warp's 16 PPI points, from `first` on. Lane (g, t) = (lane / 4,
// lane % 4) returns in label[mt][h] the label of point first + 16 mt + g + 8 h (the same in the row's 4 lanes).
inline void nearest_mma(__global const float* restrict points, const int n, const int ld,
                        __global const float* restrict prepared, const int k, __local float* staged,
                        const int chunk_size, const int first, int label[PPI][2]) {
  const int lid = get_local_id(0);
  const uint lane = lane_id();
  const int g = lane >> 2, t = lane & 3;
  // A's fragment of a k-step: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
  uint a_hi[PPI][KSTEPS][4], a_lo[PPI][KSTEPS][4];
#pragma unroll
  for (int mt = 0; mt < PPI; ++mt)
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int i = first + 16 * mt + g + (q & 1) * 8, d = 8 * ks + t + (q >> 1) * 4;
        const float v = i < n && d < DIM ? points[d * ld + i] : 0.0f;
        a_hi[mt][ks][q] = tf32_part(v);
        a_lo[mt][ks][q] = as_uint(v - as_float(tf32_part(v)));
      }
  float best[PPI][2];
#pragma unroll
  for (int mt = 0; mt < PPI; ++mt) best[mt][0] = best[mt][1] = INFINITY, label[mt][0] = label[mt][1] = 0;

  for (int c0 = 0; c0 < k; c0 += chunk_size) {
    const int blocks = (min(chunk_size, k - c0) + 7) / 8;  // the prepared rows run to a multiple of 8
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lid; e < blocks * 8 * STRIDE; e += WG_SIZE) staged[e] = prepared[c0 * STRIDE + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = 0; b < blocks; ++b) {
      float acc[PPI][4];
#pragma unroll
      for (int mt = 0; mt < PPI; ++mt) acc[mt][0] = acc[mt][1] = acc[mt][2] = acc[mt][3] = 0;
      // B's fragment (8 x 8, column-major): b0 (t, g), b1 (t + 4, g), column g being centroid 8 b + g.
      __local const float* c = staged + (8 * b + g) * STRIDE;
#pragma unroll
      for (int ks = 0; ks < KSTEPS; ++ks) {
        const uint b_hi0 = as_uint(c[8 * ks + t]), b_hi1 = as_uint(c[8 * ks + t + 4]);
        const uint b_lo0 = as_uint(c[DP + 8 * ks + t]), b_lo1 = as_uint(c[DP + 8 * ks + t + 4]);
#pragma unroll
        for (int mt = 0; mt < PPI; ++mt) {
          MMA(acc[mt], a_hi[mt][ks], b_hi0, b_hi1);
          MMA(acc[mt], a_hi[mt][ks], b_lo0, b_lo1);
          MMA(acc[mt], a_lo[mt][ks], b_hi0, b_hi1);
        }
      }
      // C's fragment: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1). Each lane sees its
      // centroids in increasing order, so a strict < keeps the lowest index of a tie.
      const float norm0 = staged[(8 * b + 2 * t) * STRIDE + NORM_AT];
      const float norm1 = staged[(8 * b + 2 * t + 1) * STRIDE + NORM_AT];
      const int j = c0 + 8 * b + 2 * t;
#pragma unroll
      for (int mt = 0; mt < PPI; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float d0 = fma(-2.0f, acc[mt][2 * h], norm0), d1 = fma(-2.0f, acc[mt][2 * h + 1], norm1);
          if (d0 < best[mt][h]) best[mt][h] = d0, label[mt][h] = j;
          if (d1 < best[mt][h]) best[mt][h] = d1, label[mt][h] = j + 1;
        }
    }
  }
  // A row's 4 lanes hold its columns 2t and 2t + 1 of every block: the least of them, ties to the lower index.
#pragma unroll
  for (int mt = 0; mt < PPI; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      for (uint mask = 1; mask <= 2; mask <<= 1) {
        const float other = as_float(shuffle_xor(as_uint(best[mt][h]), mask));
        const int other_label = (int)shuffle_xor((uint)label[mt][h], mask);
        if (other < best[mt][h] || (other == best[mt][h] && other_label < label[mt][h]))
          best[mt][h] = other, label[mt][h] = other_label;
      }
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_mma(
    __global const float* restrict points, const int n, const int ld, __global const float* restrict centroids,
    const int k, __local float* staged, const int chunk_size, __global int* restrict labels,
    __global const float* restrict prepared) {
  const int first = get_group_id(0) * GROUP_POINTS + get_local_id(0) / 32 * 16 * PPI;
  int label[PPI][2];
  nearest_mma(points, n, ld, prepared, k, staged, chunk_size, first, label);
  const uint lane = lane_id();
#pragma unroll
  for (int mt = 0; mt < PPI; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int i = first + 16 * mt + (lane >> 2) + 8 * h;
      if ((lane & 3) == 0 && i < n) labels[i] = label[mt][h];
    }
}

#if SUMS
#include "kmeans_sums.clh"

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void lloyd_mma(
    __global const float* restrict points, const int n, const int ld, __global const float* restrict centroids,
    const int k, __local float* staged, const int chunk_size, __global int* restrict labels,
    __global const double* restrict weights, __global const double* restrict scale, __global long* restrict sums,
    __local long* local_sums, const int in_local, __global double* restrict inertia,
    __global const float* restrict prepared) {
  const int lid = get_local_id(0), group_first = get_group_id(0) * GROUP_POINTS;
  __local double reduce[WG_SIZE];
  __local int changed, group_labels[GROUP_POINTS];
  start_sums(k, local_sums, in_local, &changed);  // published by nearest_mma's barriers
  const int warp_first = lid / 32 * 16 * PPI;
  int label[PPI][2];
  nearest_mma(points, n, ld, prepared, k, staged, chunk_size, group_first + warp_first, label);
  const uint lane = lane_id();
#pragma unroll
  for (int mt = 0; mt < PPI; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      if ((lane & 3) == 0) group_labels[warp_first + 16 * mt + (lane >> 2) + 8 * h] = label[mt][h];
  barrier(CLK_LOCAL_MEM_FENCE);

  // Then the group's points one a work-item: consecutive points, so their features' loads coalesce.
  double own_inertia = 0;
  int own_changed = 0;
  double s[DIM + 1];
  load_scale(scale, s);
  for (int p = lid; p < GROUP_POINTS && group_first + p < n; p += WG_SIZE) {
    const int i = group_first + p;
    float x[DIM];
    UNROLL_DIM
    for (int d = 0; d < DIM; ++d) x[d] = points[d * ld + i];
    add_assigned(i, group_labels[p], x, centroids, labels, weights, s, sums, local_sums, in_local, &own_inertia,
                 &own_changed);
  }
  finish_sums(k, own_inertia, own_changed, reduce, &changed, sums, local_sums, in_local, inertia);
}
#endif  // SUMS
