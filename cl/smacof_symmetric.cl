// smacof_symmetric.cl: fused_symmetric, fused over packed storage with each unordered pair's terms
// computed once, and fused_symmetric_finish (smacof.clh's banner). Built with -D PACKED=1 -D SYMMETRIC=1.
#include "smacof.clh"

#if !PACKED || !SYMMETRIC
#error "smacof_symmetric.cl needs PACKED=1 and SYMMETRIC=1"
#endif
// RING_STEPS: steps a batch (copies of the ring); RING: the ring's rows, a power of two no smaller than
// what a batch's window and the rows being flushed span (host/src/smacof/smacof_kernel.hpp chooses both).
#if !defined(RING_STEPS) || !defined(RING) || RING < WG_SIZE + 2 * RING_STEPS || (RING & (RING - 1))
#error "SYMMETRIC needs RING_STEPS and RING, a power of two >= WG_SIZE + 2 RING_STEPS"
#endif

// The ring's values: a row's DIM sums as one real2 in 2-D (one 8-byte load and store of local memory a
// pair), else DIM reals.
#if DIM == 2
typedef real2 ring_t;
#define RING_VALUES 1
#define RING_SUBTRACT(slot, term) (*(slot) -= (real2)(term[0], term[1]))
#else
typedef real ring_t;
#define RING_VALUES DIM
#define RING_SUBTRACT(slot, term) \
  _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) slot[d_] -= term[d_]
#endif

// One pair's terms for row i with x_j, delta DLT, weight W, kept KEEP (0 or 1): r (x_i - x_j) to acc and,
// negated, to the ring's copy A at offset O; the stress sums.
#define SYMMETRIC_PAIR(XJ, DLT, W, KEEP, A, O)                                        \
  do {                                                                                \
    real diff_[DIM];                                                                  \
    real d2_ = 0;                                                                     \
    _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) {                              \
      diff_[d_] = xi[d_] - XJ[d_];                                                    \
      d2_ += diff_[d_] * diff_[d_];                                                   \
    }                                                                                 \
    const real inv_ = d2_ > 0 ? rsqrt(d2_) : (real)0;                                 \
    const real w_ = (KEEP) * (W);                                                     \
    const real ratio_ = w_ * (DLT) * inv_;                                            \
    __local ring_t* slot_ = ring + ((A) * RING + ((O) & (RING - 1))) * RING_VALUES;    \
    real term_[DIM];                                                                  \
    _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) {                              \
      term_[d_] = ratio_ * diff_[d_];                                                 \
      acc[d_] += term_[d_];                                                           \
    }                                                                                 \
    RING_SUBTRACT(slot_, term_);                                                      \
    const real e_ = d2_ * inv_ - (DLT);                                               \
    sigma += w_ * e_ * e_;                                                            \
    eta += w_ * d2_;                                                                  \
  } while (0)

// Writes the ring's offsets [from, to] (their copies added, then cleared) to out[o - kf].
inline void flush_ring(__local ring_t* ring, const int from, const int to, const int kf, __global real* out) {
  for (int o = from + get_local_id(0); o <= to; o += WG_SIZE) {
    ring_t sum[RING_VALUES];
#pragma unroll
    for (int v = 0; v < RING_VALUES; ++v) sum[v] = 0;
#pragma unroll
    for (int a = 0; a < RING_STEPS; ++a) {
      __local ring_t* slot = ring + (a * RING + (o & (RING - 1))) * RING_VALUES;
#pragma unroll
      for (int v = 0; v < RING_VALUES; ++v) {
        sum[v] += slot[v];
        slot[v] = 0;
      }
    }
#if DIM == 2
    vstore2(sum[0], o - kf, out);
#else
#pragma unroll
    for (int d = 0; d < DIM; ++d) out[(ulong)(o - kf) * DIM + d] = sum[d];
#endif
  }
}

// The pass of fused over packed storage, each unordered pair once (the banner's fused_symmetric). Range
// and arguments as fused (first 0 and rows n: packed storage holds every row; ROWS_PER_ITEM 1), and
// partial_ring. Rows past n (the last group's) are computed as row n - 1 with nothing kept.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void fused_symmetric(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const int first, const int rows, const int per_slice, const int slice_first, const int width,
    const int slice_base, const int skip_first, const int skip_count, __global real* restrict partial_bx,
    __global real* restrict partial_stress, __global real* restrict partial_ring) {
  __local ring_t ring[RING_STEPS * RING * RING_VALUES];
  __local real scratch[2 * WG_SIZE];
  const int at_slice = slice_first + get_global_id(1);
  const int slice = at_slice >= skip_first ? at_slice + skip_count : at_slice, held = slice - slice_base;
  const int c0 = slice_first * per_slice;  // the buffer's first column
  const int t = get_local_id(0), i0 = get_group_id(0) * WG_SIZE;
  const int i = min(i0 + t, n - 1);
  const real live = i0 + t < n ? 1 : 0;
  const bool full_group = i0 + WG_SIZE <= n;
  const int middle = n / 2;
  const int kf = slice * per_slice + 1, kl = min(middle, (slice + 1) * per_slice);
  const int span = per_slice + WG_SIZE - 1;  // the offsets a slice's window reaches, kf .. kl + WG_SIZE - 1
  __global real* out = partial_ring + ((ulong)held * get_num_groups(0) + get_group_id(0)) * span * DIM;
  for (int v = t; v < RING_STEPS * RING * RING_VALUES; v += WG_SIZE) ring[v] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  real xi[DIM], xj[DIM], acc[DIM];
  LOAD_POINT(xi, x, i);
#pragma unroll
  for (int d = 0; d < DIM; ++d) acc[d] = 0;
  real sigma = 0, eta = 0;
  // Batches run without a test a pair where every row of the group is live, their k stay below n/2 (for
  // an even n the k = n/2 pairs are stored for both of their rows: only rows below n/2 take them) and
  // either no row's j = i + k wraps past n (k <= n - i0 - WG_SIZE) or every row's does (k >= n - i0): j =
  // i + k - SHIFT, SHIFT 0 or n. The WG_SIZE k between, and the slice's end, take the tests a step at a
  // time. Each loop of its own, so that the untested one keeps few registers. A fast batch's values are
  // loaded before the batch before it is computed, so that the barrier ending each batch does not wait
  // for memory.
  const int fast_last = min(kl, n % 2 == 0 ? middle - 1 : middle);
  int kb = kf, flushed = kf - 1;
#define LOAD_BATCH(K, SHIFT)                                                      \
  do {                                                                            \
    const ulong at_ = (ulong)((K) - 1 - c0) * n + i;                              \
    _Pragma("unroll") for (int a_ = 0; a_ < RING_STEPS; ++a_) {                   \
      dl[a_] = delta[at_ + (ulong)a_ * n];                                        \
      wt[a_] = WEIGHT(weights, at_ + (ulong)a_ * n);                              \
      LOAD_POINT(xs[a_], x, i + (K) + a_ - (SHIFT));                              \
    }                                                                             \
  } while (0)
#define FAST_BATCHES(SHIFT, END)                                                                      \
  if (kb + RING_STEPS - 1 <= (END)) {                                                                 \
    real dl[RING_STEPS], wt[RING_STEPS], xs[RING_STEPS][DIM];                                         \
    LOAD_BATCH(kb, SHIFT);                                                                            \
    for (; kb + RING_STEPS - 1 <= (END); kb += RING_STEPS) {                                          \
      real dl_now[RING_STEPS], wt_now[RING_STEPS], xs_now[RING_STEPS][DIM];                           \
      _Pragma("unroll") for (int a = 0; a < RING_STEPS; ++a) {                                        \
        dl_now[a] = dl[a];                                                                            \
        wt_now[a] = wt[a];                                                                            \
        _Pragma("unroll") for (int d = 0; d < DIM; ++d) xs_now[a][d] = xs[a][d];                      \
      }                                                                                               \
      /* the next batch's values (after the last, this one's again, never used) */                   \
      LOAD_BATCH(kb + 2 * RING_STEPS - 1 <= (END) ? kb + RING_STEPS : kb, SHIFT);                     \
      _Pragma("unroll") for (int a = 0; a < RING_STEPS; ++a)                                          \
          SYMMETRIC_PAIR(xs_now[a], dl_now[a], wt_now[a], (real)1, a, t + kb + a);                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                   \
      /* the offsets no later step reaches; the next batch adds to none of their slots (RING >=      \
         WG_SIZE + 2 RING_STEPS), so it need not wait for the flush */                               \
      flush_ring(ring, flushed + 1, kb + RING_STEPS - 1, kf, out);                                    \
      flushed = kb + RING_STEPS - 1;                                                                  \
    }                                                                                                 \
  }
#define TESTED_BATCHES(UNTIL)                                                                         \
  for (; kb <= kl && kb < (UNTIL); kb += RING_STEPS) {                                                \
    for (int a = 0; a < RING_STEPS; ++a) {                                                            \
      const int k = min(kb + a, kl);                                                                  \
      const int j = i + k < n ? i + k : i + k - n;                                                    \
      const ulong at = (ulong)(k - 1 - c0) * n + i;                                                   \
      const real keep = kb + a <= kl && !(2 * k == n && i >= middle) ? live : 0;                      \
      LOAD_POINT(xj, x, j);                                                                           \
      SYMMETRIC_PAIR(xj, delta[at], WEIGHT(weights, at), keep, a, t + kb + a);                        \
    }                                                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    flush_ring(ring, flushed + 1, min(kb + RING_STEPS - 1, kl), kf, out);                             \
    flushed = min(kb + RING_STEPS - 1, kl);                                                           \
  }
  if (full_group) FAST_BATCHES(0, min(fast_last, n - i0 - WG_SIZE))
  TESTED_BATCHES(full_group ? n - i0 : kl + 1)
  if (full_group) FAST_BATCHES(n, fast_last)
  TESTED_BATCHES(kl + 1)
#undef TESTED_BATCHES
#undef FAST_BATCHES
#undef LOAD_BATCH
  barrier(CLK_LOCAL_MEM_FENCE);
  flush_ring(ring, flushed + 1, kl + WG_SIZE - 1, kf, out);  // the window's tail, past the last k
  if (i0 + t < n) {
#pragma unroll
    for (int d = 0; d < DIM; ++d) partial_bx[((ulong)held * rows + i) * DIM + d] = acc[d];
  }
  // Twice the unordered pairs' sums: what fused's ordered pairs sum to.
  reduce_pair(2 * sigma, 2 * eta, scratch, partial_stress + 2 * (held * get_num_groups(0) + get_group_id(0)));
}

// x_new = scale * (the slices' row sums + every window piece that reached the row), one value a work-item:
// for row r and slice s, the groups g whose window offsets o = kf .. kl + WG_SIZE - 1 include one with
// i0(g) + o = r (mod n), walked down from the group holding r - kf (each a step of at most WG_SIZE in the
// offset), and in each the offsets o = r - i0(g) (mod n) + m n (more than one only where n is small).
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void fused_symmetric_finish(
    __global const real* restrict partial_bx, __global const real* restrict partial_ring, const int slices,
    const int slice_base, const int n, const int per_slice, const real scale, __global real* restrict x_new) {
  const int v = get_global_id(0);
  if (v >= n * DIM) return;
  const int r = v / DIM, d = v - r * DIM;
  const int groups = (n + WG_SIZE - 1) / WG_SIZE, middle = n / 2, span = per_slice + WG_SIZE - 1;
  real sum = 0;
  for (int s = 0; s < slices; ++s) {
    sum += partial_bx[(ulong)s * n * DIM + v];
    const int slice = slice_base + s;
    const int kf = slice * per_slice + 1, kl = min(middle, (slice + 1) * per_slice), last = kl - kf + WG_SIZE - 1;
    if (last < 0) continue;
    int top = (r - kf) % n;
    if (top < 0) top += n;
    const int candidates = min(groups, last / WG_SIZE + 2);
    for (int m = 0, g = top / WG_SIZE; m < candidates; ++m, g = g == 0 ? groups - 1 : g - 1) {
      int o = (r - kf - g * WG_SIZE) % n;
      if (o < 0) o += n;
      for (; o <= last; o += n) sum += partial_ring[(((ulong)s * groups + g) * span + o) * DIM + d];
    }
  }
  x_new[v] = scale * sum;
}
