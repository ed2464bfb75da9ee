// smacof_seed.cl: the seed's variants (its Figure 5a), each a bccalc_ kernel (x_new = scale * B(X) X)
// and a stress_ kernel (the work-group's stress partials): naive, local_x, colmajor (smacof.clh's banner).
#include "smacof.clh"

// Row i's terms over every j: r_ij (x_i - x_j) added to acc, the stress sums to sigma and eta. own_local:
// x_i read from the group's rows staged in local memory (own), else from global memory; transposed: delta
// read down column i. Both are constants where the kernels below call it, so each gets its own loop.
inline void seed_row(__global const real* restrict delta, __global const real* restrict weights,
                     __global const real* restrict x, __local const real* own, const int n, const int i,
                     const bool own_local, const bool transposed, real* acc, real* sigma, real* eta) {
  const int lid = get_local_id(0);
  // x_i read once for the row, not once a pair (the loop below reads only x_j).
  real xi[DIM];
#pragma unroll
  for (int d = 0; d < DIM; ++d) xi[d] = own_local ? own[lid * DIM + d] : x[i * DIM + d];
  for (int j = 0; j < n; ++j) {
    const long at = pair_index(i, j, n, transposed);
    if (at < 0) continue;
    real diff[DIM];
#pragma unroll
    for (int d = 0; d < DIM; ++d) diff[d] = xi[d] - x[j * DIM + d];
    PAIR_TERMS(diff, delta[at], WEIGHT(weights, at), acc, (*sigma), (*eta));
  }
}

// The group's rows of X into own (zeros past n). Every work-item of the group must call it.
inline void stage_own_rows(__global const real* restrict x, const int n, __local real* own) {
  const int i = get_global_id(0), lid = get_local_id(0);
#pragma unroll
  for (int d = 0; d < DIM; ++d) own[lid * DIM + d] = i < n ? x[i * DIM + d] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
}

// x_new = scale * B(X) X for the work-item's row.
inline void seed_bccalc(__global const real* restrict delta, __global const real* restrict weights,
                        __global const real* restrict x, const int n, const real scale, __global real* restrict x_new,
                        __local real* own, const bool own_local, const bool transposed) {
  const int i = get_global_id(0);
  if (own_local) stage_own_rows(x, n, own);
  if (i >= n) return;
  real acc[DIM], sigma = 0, eta = 0;
#pragma unroll
  for (int d = 0; d < DIM; ++d) acc[d] = 0;
  seed_row(delta, weights, x, own, n, i, own_local, transposed, acc, &sigma, &eta);
  (void)sigma, (void)eta;  // the stress kernel's terms: the compiler drops them here
#pragma unroll
  for (int d = 0; d < DIM; ++d) x_new[i * DIM + d] = scale * acc[d];
}

// The group's stress partials, sum (d - delta)^2 and sum d^2 over its rows, to partials[2 group ...].
inline void seed_stress(__global const real* restrict delta, __global const real* restrict weights,
                        __global const real* restrict x, const int n, __global real* restrict partials,
                        __local real* own, __local real* scratch, const bool own_local, const bool transposed) {
  const int i = get_global_id(0);
  if (own_local) stage_own_rows(x, n, own);
  real acc[DIM], sigma = 0, eta = 0;
#pragma unroll
  for (int d = 0; d < DIM; ++d) acc[d] = 0;
  if (i < n) seed_row(delta, weights, x, own, n, i, own_local, transposed, acc, &sigma, &eta);
  reduce_pair(sigma, eta, scratch, partials + 2 * get_group_id(0));
}

// naive: x_i and x_j from global memory, delta along the row.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void bccalc_naive(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const real scale, __global real* restrict x_new) {
  __local real own[WG_SIZE * DIM];
  seed_bccalc(delta, weights, x, n, scale, x_new, own, false, false);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void stress_naive(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, __global real* restrict partials) {
  __local real own[WG_SIZE * DIM];
  __local real scratch[2 * WG_SIZE];
  seed_stress(delta, weights, x, n, partials, own, scratch, false, false);
}

// local_x: the group's own rows of X staged in local memory.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void bccalc_local_x(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const real scale, __global real* restrict x_new) {
  __local real own[WG_SIZE * DIM];
  seed_bccalc(delta, weights, x, n, scale, x_new, own, true, false);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void stress_local_x(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, __global real* restrict partials) {
  __local real own[WG_SIZE * DIM];
  __local real scratch[2 * WG_SIZE];
  seed_stress(delta, weights, x, n, partials, own, scratch, true, false);
}

// colmajor: as local_x, delta read down the columns.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void bccalc_colmajor(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, const real scale, __global real* restrict x_new) {
  __local real own[WG_SIZE * DIM];
  seed_bccalc(delta, weights, x, n, scale, x_new, own, true, true);
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void stress_colmajor(
    __global const real* restrict delta, __global const real* restrict weights, __global const real* restrict x,
    const int n, __global real* restrict partials) {
  __local real own[WG_SIZE * DIM];
  __local real scratch[2 * WG_SIZE];
  seed_stress(delta, weights, x, n, partials, own, scratch, true, true);
}
