// smacof_fused.cl: fused and fused_rows, one pass over delta per iteration giving both sigma(X) and
// B(X) X in slices of the columns, and fused_finish, which adds the slices' partial rows (smacof.clh's
// banner: layouts, row blocks, buffers).
#include "smacof.clh"

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

