// smacof_pinv.cl: weighted SMACOF's update x_new = V+ (B(X) X) (smacof.clh's banner).
#include "smacof.clh"

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
