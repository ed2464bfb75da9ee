// smacof_delta.cl: build_delta, the dissimilarities from vectors straight into delta's storage
// (smacof.clh's banner). Built with -D ACCUMULATE and -D FINISH (metric.clh's steps).
#include "metric.clh"
#include "smacof.clh"

#if !defined(ACCUMULATE) || !defined(FINISH)
#error "ACCUMULATE and FINISH (metric.clh) must be defined"
#endif

// Dissimilarities from vectors (features x n, column-major: feature f of vector i at f * n + i),
// straight into delta's storage, by the metric ACCUMULATE and FINISH name: rows [first, first + rows)
// (the whole matrix: 0, n), columns [c0, c0 + width) (one buffer's, the banner's buffers), laid out along
// the rows (along_rows != 0) or down the columns (the layouts above). Range: (rows rounded up to WG_SIZE)
// x width, a column being j (full storage) or k - 1 (packed: j = i + k mod n). delta(i, j) and
// delta(j, i) are computed by the same operations in the same order, so the result is exactly symmetric
// with a zero diagonal.
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
