// smacof.cl: metric SMACOF multidimensional scaling (seed 004, section 4): the Guttman transform
// X <- B(X) X / N (the seed's BCCalc) and the raw stress with a hierarchical reduction (StressCalc),
// plus the kernel that computes the dissimilarities from vectors straight into their resident buffer.
//
// The transform is computed in its difference form, x_i <- scale * sum_j r_ij (x_i - x_j) with
// r_ij = w_ij delta_ij / d_ij (0 where d_ij = 0, which includes j = i): the same as B(X) X because B's
// rows sum to zero, without the cancellation of b_ii x_i + sum_j b_ij x_j far from the origin.
//
// Layout
//   delta, weights  symmetric N x N, loop-invariant, uploaded (or built) once. Full storage (PACKED 0):
//                   element (i, j) at i * N + j, which is also j * N + i: row- and column-major are the
//                   same array, and the variants differ only in which index runs across work-items.
//                   Packed storage (PACKED 1): each pair once, N * floor(N/2) values: the pair
//                   (i, (i + k) mod N), 1 <= k <= N/2, at (k - 1) * N + i (for even N the pairs at
//                   k = N/2 are stored twice). Work-items i, i+1, ... read consecutive addresses for a
//                   given k both forwards (j = i + k) and backwards (j = i - k), so every read coalesces.
//   row block       over several ranks (fused variants, full storage) a device holds only rows
//                   [first, first + rows) of delta: row i at (i - first) * N + j when read along the rows
//                   (fused_rows), at j * rows + (i - first) when read down the columns (fused). rows = N,
//                   first = 0 is the whole matrix, the layout above.
//   slices over ranks  packed storage over several ranks: a rank holds a range of whole slices (every
//                   row's values of its k's), the fused pass runs over them only, and its partial rows and
//                   stress partials are numbered from its first slice (slice_base); fused_finish adds its
//                   slices' rows, and the ranks add theirs (the host, in double).
//   buffers         the fused variants take delta (and the weights) in several buffers, each holding whole
//                   slices of its columns (full storage: the block's values of columns j, which for the
//                   whole matrix are rows j; packed: the values of each k): buffer b holds the columns
//                   [c0, c0 + width), c0 = slice_first * per_slice, at (j - c0) * rows + (i - first) down
//                   the columns, (i - first) * width + (j - c0) along the rows, (k - 1 - c0) * N + i packed.
//                   One launch per buffer over its slices computes each slice exactly as one buffer would,
//                   so the results do not depend on the cut. Offsets are ulong: a buffer's rows x width
//                   passes 2^31 from N = 46,341 on.
//   x, x_new        N x DIM, row-major (the seed found row-major X faster: a work-group reads the same
//                   x_j at once). The loop-variant data.
//   pinv            N x N full, the Moore-Penrose inverse of V (weighted SMACOF only).
//   stress partials two values per work-group, sum (d - delta)^2 and sum d^2 over its ordered pairs
//                   (weighted by w; fused_symmetric: twice its unordered pairs' sums, exactly the same
//                   thing); the host adds them in double and halves them.
//   partial_ring    fused_symmetric: per slice held, per work-group, the sums its window added to the rows
//                   i0 + o (mod n) for o = kf .. kl + WG_SIZE - 1 (the slice's k from kf to kl), DIM each.
//
// Variants, the seed's optimisation steps (its Figure 5a), each a bccalc_ and a stress_ kernel:
//   naive     one row per work-item, x_i and x_j read from global memory, delta read along the row.
//   local_x   the work-group's own X rows staged in local memory ("X(k) in shared mem").
//   colmajor  as local_x, delta read down the columns so that a work-group's reads coalesce.
// and past the seed:
//   fused     one pass over delta per iteration giving both sigma(X) and B(X) X: the columns are split
//             into slices (a 2-D range, so small N still fills a GPU); fused_finish adds the slices'
//             partial rows. delta is read down the columns (coalesced on GPUs).
//   fused_rows  as fused, delta read along the rows: on a CPU each work-item then streams its own row
//             (PoCL runs a group's work-items one after another, so column reads stride by N).
//   fused_symmetric  (SYMMETRIC, packed storage) as fused, each unordered pair's terms computed once:
//             work-item t of a group owns row i = i0 + t and at each k of its slice takes the stored pair
//             (i, j = i + k mod n) alone, adding r (x_i - x_j) to its row's sums in registers and
//             r (x_j - x_i) to row j's in local memory: the group's window of rows j, offsets o = t + k
//             from i0, held in a ring of RING_STEPS copies. Within a batch of RING_STEPS steps a step's
//             work-items add to distinct rows and different steps to different copies, so no two
//             work-items add to one place between the barriers that end the batches; each batch flushes
//             the rows no later step reaches into partial_ring, and fused_symmetric_finish adds them to
//             the slices' row sums. Half the terms of fused over packed storage, and each value read once.
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D DIM=<int>          (required) n_components, fixed at build time so the loops unroll.
//   -D WG_SIZE=256        work-items per work-group; the host launches exactly this size.
//   -D PACKED=0           1: delta and weights in packed storage.
//   -D WEIGHTED=0         1: multiply by the weights buffer (else it is never read).
//   -D ROWS_PER_ITEM=1    fused variants: rows of the block each work-item computes (WG_SIZE apart).
//   -D SYMMETRIC=0        1 (with PACKED): builds fused_symmetric and fused_symmetric_finish, with
//   -D RING_STEPS, -D RING  its batch's steps and its ring's rows (see there).
//   -D ACCUMULATE=<ACC_*>, -D FINISH=<FINISH_*>  build_delta's metric, the steps of
//                         metric.clh: ACC_SQDIFF with FINISH_SQRT (euclidean) or FINISH_NONE
//                         (sqeuclidean), ACC_ABSDIFF with FINISH_NONE (cityblock). build_delta is
//                         compiled only when both are given (delta built from vectors).
#include "common.clh"
#include "metric.clh"

#ifndef DIM
#error "DIM (n_components) must be defined"
#endif
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef PACKED
#define PACKED 0
#endif
#ifndef WEIGHTED
#define WEIGHTED 0
#endif
#ifndef ROWS_PER_ITEM
#define ROWS_PER_ITEM 1
#endif
#ifndef SYMMETRIC
#define SYMMETRIC 0
#endif

#define SMACOF_VEC2(t) ITERCL_CAT(t, 2)  // an indirection, so that REAL is expanded before pasting
typedef SMACOF_VEC2(REAL) real2;

#if WEIGHTED
#define WEIGHT(m, index) ((m)[index])
#else
#define WEIGHT(m, index) ((real)1)
#endif

// Where pair (i, j), i != j, lives in packed storage.
inline ulong packed_index(const int i, const int j, const int n) {
  int k = j - i;
  if (k < 0) k += n;
  return 2 * k <= n ? (ulong)(k - 1) * n + i : (ulong)(n - k - 1) * n + j;
}

// Index of (i, j) read along row i (transposed 0) or down column i (transposed 1); -1 for i == j in
// packed storage, which keeps no diagonal (the diagonal is 0).
inline long pair_index(const int i, const int j, const int n, const bool transposed) {
#if PACKED
  return i == j ? -1 : (long)packed_index(i, j, n);
#else
  return transposed ? (long)j * n + i : (long)i * n + j;
#endif
}

// One ordered pair's terms: adds r_ij (x_i - x_j) to acc, w (d - delta)^2 to sigma and w d^2 to eta.
// d_ij = 0 (j = i, or coincident points) contributes nothing to acc: any B there multiplies x_i - x_j = 0.
#define PAIR_TERMS(DIFF, DLT, W, acc, sigma, eta)             \
  do {                                                        \
    real d2_ = 0;                                             \
    _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) d2_ += DIFF[d_] * DIFF[d_]; \
    const real inv_ = d2_ > 0 ? rsqrt(d2_) : (real)0;         \
    const real ratio_ = (W) * (DLT) * inv_;                   \
    _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) acc[d_] += ratio_ * DIFF[d_]; \
    const real e_ = d2_ * inv_ - (DLT);                       \
    sigma += (W) * e_ * e_;                                   \
    eta += (W) * d2_;                                         \
  } while (0)

// Adds a and b over the work-group (any WG_SIZE, a fixed order, so results repeat) and stores the two
// sums at out[0], out[1]. Every work-item of the group must call it.
inline void reduce_pair(real a, real b, __local real* scratch, __global real* out) {
  const int lid = get_local_id(0);
  scratch[2 * lid] = a;
  scratch[2 * lid + 1] = b;
  for (int stride = 1; stride < WG_SIZE; stride *= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid % (2 * stride) == 0 && lid + stride < WG_SIZE) {
      scratch[2 * lid] += scratch[2 * (lid + stride)];
      scratch[2 * lid + 1] += scratch[2 * (lid + stride) + 1];
    }
  }
  if (lid == 0) {
    out[0] = scratch[0];
    out[1] = scratch[1];
  }
}

// The seed's row loop over all j for row i; XI(d) is where x_i comes from (global or local memory).
#define SEED_ROW_LOOP(XI, TRANSPOSED)                                                     \
  for (int j = 0; j < n; ++j) {                                                           \
    const long at = pair_index(i, j, n, TRANSPOSED);                                      \
    if (at < 0) continue;                                                                 \
    real diff[DIM];                                                                       \
    _Pragma("unroll") for (int d = 0; d < DIM; ++d) diff[d] = XI(d) - x[j * DIM + d];     \
    PAIR_TERMS(diff, delta[at], WEIGHT(weights, at), acc, sigma, eta);                    \
  }

#define X_GLOBAL(d) x[i * DIM + d]
#define X_LOCAL(d) own[lid * DIM + d]

// The three seed variants as one body: NAME_bccalc writes x_new = scale * B(X) X; NAME_stress writes
// the group's stress partials. OWN_LOCAL stages the group's rows of X in local memory.
#define SEED_KERNELS(NAME, OWN_LOCAL, TRANSPOSED)                                                            \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void bccalc_##NAME(                         \
      __global const real* restrict delta, __global const real* restrict weights,                           \
      __global const real* restrict x, const int n, const real scale, __global real* restrict x_new) {      \
    const int i = get_global_id(0), lid = get_local_id(0);                                                  \
    __local real own[WG_SIZE * DIM];                                                                         \
    if (OWN_LOCAL) {                                                                                         \
      _Pragma("unroll") for (int d = 0; d < DIM; ++d) own[lid * DIM + d] = i < n ? x[i * DIM + d] : 0;      \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
    }                                                                                                        \
    if (i >= n) return;                                                                                      \
    real acc[DIM], sigma = 0, eta = 0;                                                                       \
    _Pragma("unroll") for (int d = 0; d < DIM; ++d) acc[d] = 0;                                             \
    if (OWN_LOCAL) {                                                                                         \
      SEED_ROW_LOOP(X_LOCAL, TRANSPOSED)                                                                     \
    } else {                                                                                                 \
      SEED_ROW_LOOP(X_GLOBAL, TRANSPOSED)                                                                    \
    }                                                                                                        \
    (void)sigma, (void)eta; /* the stress kernel's terms: the compiler drops them here */                   \
    _Pragma("unroll") for (int d = 0; d < DIM; ++d) x_new[i * DIM + d] = scale * acc[d];                    \
  }                                                                                                          \
                                                                                                             \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void stress_##NAME(                         \
      __global const real* restrict delta, __global const real* restrict weights,                           \
      __global const real* restrict x, const int n, __global real* restrict partials) {                     \
    const int i = get_global_id(0), lid = get_local_id(0);                                                  \
    __local real own[WG_SIZE * DIM];                                                                         \
    __local real scratch[2 * WG_SIZE];                                                                       \
    if (OWN_LOCAL) {                                                                                         \
      _Pragma("unroll") for (int d = 0; d < DIM; ++d) own[lid * DIM + d] = i < n ? x[i * DIM + d] : 0;      \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
    }                                                                                                        \
    real acc[DIM], sigma = 0, eta = 0;                                                                       \
    _Pragma("unroll") for (int d = 0; d < DIM; ++d) acc[d] = 0;                                             \
    if (i < n) {                                                                                             \
      if (OWN_LOCAL) {                                                                                       \
        SEED_ROW_LOOP(X_LOCAL, TRANSPOSED)                                                                   \
      } else {                                                                                               \
        SEED_ROW_LOOP(X_GLOBAL, TRANSPOSED)                                                                  \
      }                                                                                                      \
    }                                                                                                        \
    reduce_pair(sigma, eta, scratch, partials + 2 * get_group_id(0));                                       \
  }

SEED_KERNELS(naive, false, false)
SEED_KERNELS(local_x, true, false)
SEED_KERNELS(colmajor, true, true)

// A point's DIM coordinates into p[]: one 8- or 16-byte load where DIM is 2 or 4 (a row of x starts at a
// multiple of DIM values, so the vector is aligned), else one load per coordinate. A work-group reading
// consecutive points (packed storage's x_j) then touches each cache line with one instruction, not DIM.
#if DIM == 2
#define LOAD_POINT(p, xs, j)                                \
  do {                                                      \
    const real2 v_ = ((__global const real2*)(xs))[j];      \
    p[0] = v_.x;                                            \
    p[1] = v_.y;                                            \
  } while (0)
#elif DIM == 4
#define LOAD_POINT(p, xs, j)                                \
  do {                                                      \
    const real4 v_ = ((__global const real4*)(xs))[j];      \
    p[0] = v_.x;                                            \
    p[1] = v_.y;                                            \
    p[2] = v_.z;                                            \
    p[3] = v_.w;                                            \
  } while (0)
#else
#define LOAD_POINT(p, xs, j) \
  do { _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) p[d_] = (xs)[(j) * DIM + d_]; } while (0)
#endif

// PAIR_TERMS for the work-item's row t and the point xj, with delta DLT and weight W.
#define ROW_PAIR(t, xj, DLT, W)                                                      \
  do {                                                                               \
    real diff_[DIM];                                                                 \
    _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) diff_[d_] = xi[t][d_] - xj[d_]; \
    PAIR_TERMS(diff_, DLT, W, acc[t], sigma[t], eta[t]);                             \
  } while (0)

// One pass over a slice of the columns for every row of the block [first, first + rows): the partial
// B(X) X of the slice's columns goes to partial_bx[slice - slice_base][i - first][:], the slice's stress
// partials to partial_stress[slice - slice_base][group][:] (slice_base: the first slice this device holds,
// 0 but for packed storage over ranks). Range: (rows / ROWS_PER_ITEM rounded up to WG_SIZE) x slices; a
// work-group takes WG_SIZE * ROWS_PER_ITEM consecutive rows, each work-item ROWS_PER_ITEM of them WG_SIZE
// apart (so each of its reads still coalesces across the group), their delta reads independent of each
// other: more loads in flight per work-item, and x_j loaded once for all of them. A row past the block is
// computed as the block's last row and its sums dropped at the end (each row keeps its own stress sums, so
// the loop multiplies nothing by a "live" flag). along_rows (full storage only; a constant, so each
// kernel below gets its own loop): read delta along row i, each work-item streaming its own rows (what
// CPUs want), instead of down column i (what GPUs coalesce). Packed storage holds every row (first 0,
// rows n), of all the slices or, over ranks, of a range of them. rows >= 1: the host launches nothing for an
// empty block. delta and weights hold the buffer's slices from slice_first, width columns (the banner's
// buffers); work-item (., g) takes slice slice_first + g, or skip_count further on from skip_first, so that
// one launch can leave out a range (over ranks, the slices of the block's own columns, run apart).
inline void fused_pass(__global const real* restrict delta, __global const real* restrict weights,
                       __global const real* restrict x, const int n, const int first, const int rows,
                       const int per_slice, const int slice_first, const int width, const int slice_base,
                       const int skip_first, const int skip_count, __global real* restrict partial_bx,
                       __global real* restrict partial_stress, __local real* scratch, const bool along_rows) {
  const int at_slice = slice_first + get_global_id(1);
  const int slice = at_slice >= skip_first ? at_slice + skip_count : at_slice, held = slice - slice_base;
  const int c0 = slice_first * per_slice;  // the buffer's first column
  const int group_first = get_group_id(0) * (WG_SIZE * ROWS_PER_ITEM) + get_local_id(0);
  int r[ROWS_PER_ITEM];
  bool live[ROWS_PER_ITEM];
  real xi[ROWS_PER_ITEM][DIM], acc[ROWS_PER_ITEM][DIM], sigma[ROWS_PER_ITEM], eta[ROWS_PER_ITEM];
#pragma unroll
  for (int t = 0; t < ROWS_PER_ITEM; ++t) {
    const int row = group_first + t * WG_SIZE;
    live[t] = row < rows;
    r[t] = min(row, rows - 1);
    LOAD_POINT(xi[t], x, first + r[t]);
#pragma unroll
    for (int d = 0; d < DIM; ++d) acc[t][d] = 0;
    sigma[t] = eta[t] = 0;
  }
  const int first_column = slice * per_slice;
  real xj[DIM];
#if PACKED
  // k runs over this slice of 1 .. n/2, each k giving the pair forwards (j = i + k) and backwards
  // (j = i - k). For an even n, k = n/2 pairs i with i + n/2 = i - n/2: it is left out of the loop and
  // taken forwards only after it, so that the loop has no branch.
  const int middle = n / 2, last = min(middle, first_column + per_slice);
  const int both = n % 2 == 0 ? min(last, middle - 1) : last;
  for (int k = first_column + 1; k <= both; ++k) {
    const ulong at = (ulong)(k - 1 - c0) * n;
#pragma unroll
    for (int t = 0; t < ROWS_PER_ITEM; ++t) {
      const int i = r[t];
      int j = i + k < n ? i + k : i + k - n;
      LOAD_POINT(xj, x, j);
      ROW_PAIR(t, xj, delta[at + i], WEIGHT(weights, at + i));
      j = i >= k ? i - k : i - k + n;
      LOAD_POINT(xj, x, j);
      ROW_PAIR(t, xj, delta[at + j], WEIGHT(weights, at + j));
    }
  }
  if (n % 2 == 0 && last == middle && first_column < middle) {
    const ulong at = (ulong)(middle - 1 - c0) * n;
#pragma unroll
    for (int t = 0; t < ROWS_PER_ITEM; ++t) {
      const int i = r[t], j = i + middle < n ? i + middle : i + middle - n;
      LOAD_POINT(xj, x, j);
      ROW_PAIR(t, xj, delta[at + i], WEIGHT(weights, at + i));
    }
  }
#else
  const int last = min(n, first_column + per_slice);
  for (int j = first_column; j < last; ++j) {
    LOAD_POINT(xj, x, j);
#pragma unroll
    for (int t = 0; t < ROWS_PER_ITEM; ++t) {
      // Down column i, consecutive work-items read consecutive addresses; or along row i.
      const ulong at = along_rows ? (ulong)r[t] * width + (j - c0) : (ulong)(j - c0) * rows + r[t];
      ROW_PAIR(t, xj, delta[at], WEIGHT(weights, at));
    }
  }
#endif
  real sigma_sum = 0, eta_sum = 0;
#pragma unroll
  for (int t = 0; t < ROWS_PER_ITEM; ++t)
    if (live[t]) {
#pragma unroll
      for (int d = 0; d < DIM; ++d) partial_bx[((ulong)held * rows + r[t]) * DIM + d] = acc[t][d];
      sigma_sum += sigma[t];
      eta_sum += eta[t];
    }
  reduce_pair(sigma_sum, eta_sum, scratch, partial_stress + 2 * (held * get_num_groups(0) + get_group_id(0)));
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void fused(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const int first, const int rows, const int per_slice, const int slice_first, const int width,
    const int slice_base, const int skip_first, const int skip_count, __global real* restrict partial_bx,
    __global real* restrict partial_stress) {
  __local real scratch[2 * WG_SIZE];
  fused_pass(delta, weights, x, n, first, rows, per_slice, slice_first, width, slice_base, skip_first, skip_count,
             partial_bx, partial_stress, scratch, false);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void fused_rows(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const int first, const int rows, const int per_slice, const int slice_first, const int width,
    const int slice_base, const int skip_first, const int skip_count, __global real* restrict partial_bx,
    __global real* restrict partial_stress) {
  __local real scratch[2 * WG_SIZE];
  fused_pass(delta, weights, x, n, first, rows, per_slice, slice_first, width, slice_base, skip_first, skip_count,
             partial_bx, partial_stress, scratch, true);
}

#if PACKED && SYMMETRIC
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
#endif

// x_new = scale * (sum of the slices' partial rows), one value per work-item.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void fused_finish(
    __global const real* restrict partial_bx, const int slices, const int n, const real scale,
    __global real* restrict x_new) {
  const int t = get_global_id(0);
  if (t >= n * DIM) return;
  real sum = 0;
  for (int s = 0; s < slices; ++s) sum += partial_bx[(ulong)s * n * DIM + t];
  x_new[t] = scale * sum;
}

// Weighted SMACOF's update: x_new = V+ (B(X) X), V+ symmetric and full, read down columns.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void apply_pinv(
    __global const real* restrict pinv, __global const real* restrict bx, const int n,
    __global real* restrict x_new) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real acc[DIM];
#pragma unroll
  for (int d = 0; d < DIM; ++d) acc[d] = 0;
  for (int j = 0; j < n; ++j) {
    const real p = pinv[(ulong)j * n + i];
#pragma unroll
    for (int d = 0; d < DIM; ++d) acc[d] += p * bx[j * DIM + d];
  }
#pragma unroll
  for (int d = 0; d < DIM; ++d) x_new[i * DIM + d] = acc[d];
}

// Dissimilarities from vectors (features x n, column-major: feature f of vector i at f * n + i),
// straight into delta's storage, by the metric ACCUMULATE and FINISH name: rows [first, first + rows)
// (the whole matrix: 0, n), columns [c0, c0 + width) (one buffer's, the banner's buffers), laid out along
// the rows (along_rows != 0) or down the columns (the layouts above). Range: (rows rounded up to WG_SIZE)
// x width, a column being j (full storage) or k - 1 (packed: j = i + k mod n). delta(i, j) and
// delta(j, i) are computed by the same operations in the same order, so the result is exactly symmetric
// with a zero diagonal.
#if defined(ACCUMULATE) && defined(FINISH)
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void build_delta(
    __global const real* restrict vectors, const int n, const int features, const int first, const int rows,
    const int c0, const int width, const int along_rows, __global real* restrict delta) {
  const int r = get_global_id(0), c = c0 + get_global_id(1), i = first + r;
  if (r >= rows) return;
#if PACKED
  const int j = i + c + 1 < n ? i + c + 1 : i + c + 1 - n;
#else
  const int j = c;
#endif
  real acc = 0;
  for (int f = 0; f < features; ++f) {
    const real diff = vectors[f * n + i] - vectors[f * n + j];
    // A statement of its own, so the square is rounded before it is added (contraction stays within one
    // expression): no device's fused multiply-add changes delta.
#if ACCUMULATE == ACC_ABSDIFF
    const real term = fabs(diff);
#else
    const real term = diff * diff;
#endif
    acc += term;
  }
#if FINISH == FINISH_SQRT
  acc = sqrt(acc);
#endif
  delta[along_rows ? (ulong)r * width + (c - c0) : (ulong)(c - c0) * rows + r] = acc;
}
#endif
