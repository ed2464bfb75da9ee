// Prototype: the K-Means assignment on the tensor cores, through inline PTX (NVIDIA only), at D = 32.
// d(x, c) = |c|^2 - 2 x.c (|x|^2 left out: the same argmin). x.c by mma.sync m16n8k8 TF32 with f32
// accumulation; SPLIT = 3 splits each float into a TF32 part and its remainder (3xTF32: hi.hi + hi.lo +
// lo.hi), SPLIT = 1 takes TF32 alone. Each warp holds 16 MT points' A fragments in registers for the
// whole run; centroids are staged CHUNK at a time in local memory (hi[32], lo[32], |c|^2, 3 pad: a stride
// of 68 floats, so that a fragment's 32 reads fall in 32 banks). Ties to the lowest index.
// PREPARED = 1: c is that staged layout already (K x 68, made once, as the library prepares -2c and the
// norms once an iteration), copied as it is; 0: each work-group splits c (K x 32) and sums the norms.
//   -D DIM=32 -D PPI=<MT: 16-point tiles a warp> -D WG_SIZE=<32 x warps> [-D SPLIT=3] [-D PREPARED=1]
#if DIM != 32
#error "the prototype is for D = 32"
#endif
#define MT PPI
#ifndef SPLIT
#define SPLIT 3
#endif
#define STRIDE 68
#ifndef PREPARED
#define PREPARED 0
#endif
#define WARPS (WG_SIZE / 32)

__kernel void assign_naive(__global const float* x, const int n, const int ld, __global const float* c,
                           const int K, __global int* labels) {
  const int i = get_global_id(0);
  if (i >= n) return;
  float best = INFINITY;
  int bi = 0;
  for (int k = 0; k < K; ++k) {
    float s = 0;
    for (int d = 0; d < DIM; ++d) {
      const float t = x[d * ld + i] - c[k * DIM + d];
      s = fma(t, t, s);
    }
    if (s < best) best = s, bi = k;
  }
  labels[i] = bi;
}

inline uint tf32_hi(const float v) { return as_uint(v) & 0xffffe000u; }

#define MMA(acc, a, b0, b1)                                                                                     \
  __asm__("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "    \
      "{%0, %1, %2, %3};"                                                                                       \
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])                                                  \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))

inline uint shfl_xor(const uint v, const uint mask) {
  uint r;
  __asm__ volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(mask));
  return r;
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void assign_mma(
    __global const float* restrict x, const int n, const int ld, __global const float* restrict c, const int K,
    __local float* stage, const int chunk, __global int* restrict labels) {
  const int lid = get_local_id(0), warp = lid >> 5;
  uint lane;
  __asm__("mov.u32 %0, %%laneid;" : "=r"(lane));
  const int g = lane >> 2, t = lane & 3;
  const int base = (get_group_id(0) * WARPS + warp) * 16 * MT;
  // A (16 x 8 a k-step, row-major): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
  uint ah[MT][4][4], al[MT][4][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int ks = 0; ks < 4; ++ks)
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int r = base + 16 * mt + g + (q & 1) * 8, d = 8 * ks + t + (q >> 1) * 4;
        const float v = r < n ? x[d * ld + r] : 0.0f;
        ah[mt][ks][q] = tf32_hi(v);
        al[mt][ks][q] = as_uint(v - as_float(tf32_hi(v)));
      }
  float best[MT][2];
  int index[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) best[mt][0] = best[mt][1] = INFINITY, index[mt][0] = index[mt][1] = 0;
  for (int c0 = 0; c0 < K; c0 += chunk) {
    const int m = min(chunk, K - c0);
    barrier(CLK_LOCAL_MEM_FENCE);
#if PREPARED
    for (int e = lid; e < m * STRIDE; e += WG_SIZE) stage[e] = c[c0 * STRIDE + e];
#else
    for (int e = lid; e < m * DIM; e += WG_SIZE) {
      const int j = e / DIM, d = e % DIM;
      const float v = c[(c0 + j) * DIM + d];
      stage[j * STRIDE + d] = as_float(tf32_hi(v));
      stage[j * STRIDE + DIM + d] = v - as_float(tf32_hi(v));
    }
    for (int j = lid; j < m; j += WG_SIZE) {
      float s = 0;
      for (int d = 0; d < DIM; ++d) s = fma(c[(c0 + j) * DIM + d], c[(c0 + j) * DIM + d], s);
      stage[j * STRIDE + 2 * DIM] = s;
    }
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int nb = 0; nb < m; nb += 8) {
      float acc[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) acc[mt][0] = acc[mt][1] = acc[mt][2] = acc[mt][3] = 0;
      __local const float* cj = stage + (nb + g) * STRIDE;  // B (8 x 8, col-major): b0 (t, g), b1 (t + 4, g)
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        const uint bh0 = as_uint(cj[8 * ks + t]), bh1 = as_uint(cj[8 * ks + t + 4]);
#if SPLIT == 3
        const uint bl0 = as_uint(cj[DIM + 8 * ks + t]), bl1 = as_uint(cj[DIM + 8 * ks + t + 4]);
#endif
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          MMA(acc[mt], ah[mt][ks], bh0, bh1);
#if SPLIT == 3
          MMA(acc[mt], ah[mt][ks], bl0, bl1);
          MMA(acc[mt], al[mt][ks], bh0, bh1);
#endif
        }
      }
      // C: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
      const float n0 = stage[(nb + 2 * t) * STRIDE + 2 * DIM], n1 = stage[(nb + 2 * t + 1) * STRIDE + 2 * DIM];
      const int k0 = c0 + nb + 2 * t;
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float d0 = fma(-2.0f, acc[mt][2 * h], n0), d1 = fma(-2.0f, acc[mt][2 * h + 1], n1);
          if (d0 < best[mt][h]) best[mt][h] = d0, index[mt][h] = k0;
          if (d1 < best[mt][h]) best[mt][h] = d1, index[mt][h] = k0 + 1;
        }
    }
  }
  // The 4 lanes of a row group hold its columns 2t, 2t + 1 of every block: the least, ties to the lower index.
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float b = best[mt][h];
      int i = index[mt][h];
      for (uint off = 1; off <= 2; off <<= 1) {
        const float ob = as_float(shfl_xor(as_uint(b), off));
        const int oi = (int)shfl_xor((uint)i, off);
        if (ob < b || (ob == b && oi < i)) b = ob, i = oi;
      }
      const int r = base + 16 * mt + g + 8 * h;
      if (t == 0 && r < n) labels[r] = i;
    }
}
