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
//                   (weighted by w); the host adds them in double and halves them.
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
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D DIM=<int>          (required) n_components, fixed at build time so the loops unroll.
//   -D WG_SIZE=256        work-items per work-group; the host launches exactly this size.
//   -D PACKED=0           1: delta and weights in packed storage.
//   -D WEIGHTED=0         1: multiply by the weights buffer (else it is never read).
//   -D ROWS_PER_ITEM=1    fused variants: rows of the block each work-item computes (WG_SIZE apart).
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
