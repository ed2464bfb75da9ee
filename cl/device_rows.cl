// device_rows.cl: a caller's rows already on the device (itercl::DeviceRows), repacked there into the
// layout the kernels read, so that the data never travels through the host.
//
// pack_columns reads `in`, n x d values row-major as the caller stored them (SOURCE), subtracts `origin`'s
// first d values from every row if `shifted` (a row of the data: distances do not change, and the
// magnitudes rounded to REAL shrink; the difference in the wider precision), and writes `out` column-major in REAL (element (i, j) at j * n + i).
// It also writes, per work-group, the largest |value - origin| it met, or infinity if a value was NaN or
// infinite, for the host's range and finiteness checks. One work-item per row; `in` is read once.
//
// row_squares writes |row i|^2 of such a column-major `columns` (the inner-product forms' per-vector
// values), summed in REAL.
//
//   -D REAL=float|double     (required) the precision of `out`
//   -D SOURCE=float|double   (required) the precision of `in`
//   -D WG_SIZE=<n>           work-items per work-group, a power of two (default 64)
#include "common.clh"

#ifndef SOURCE
#error "SOURCE must be defined as float or double (-D SOURCE=float)"
#endif
#if ITERCL_IS_DOUBLE(SOURCE) && !ITERCL_IS_DOUBLE(REAL)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef WG_SIZE
#define WG_SIZE 64
#endif

typedef SOURCE source;
// The difference x - origin is taken in the wider of the two precisions, then rounded to REAL: float rows
// packed for a double kernel must not lose the bits a float subtraction would round away.
#if ITERCL_IS_DOUBLE(REAL)
typedef double wide;
#else
typedef SOURCE wide;
#endif

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void pack_columns(
    __global const source* in, const int n, const int d, __global const source* origin, const int shifted,
    __global real* out, __global source* group_largest) {
  __local source largest[WG_SIZE];
  const int i = get_global_id(0), lid = get_local_id(0);
  source mine = 0;
  if (i < n) {
    for (int j = 0; j < d; ++j) {
      const wide v = (wide)in[(size_t)i * d + j] - (shifted ? (wide)origin[j] : (wide)0);
      mine = isfinite(v) ? fmax(mine, (source)fabs(v)) : (source)INFINITY;
      out[(size_t)j * n + i] = (real)v;
    }
  }
  largest[lid] = mine;
  for (int step = WG_SIZE / 2; step > 0; step /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < step) largest[lid] = fmax(largest[lid], largest[lid + step]);
  }
  if (lid == 0) group_largest[get_group_id(0)] = largest[0];
}

__kernel void row_squares(__global const real* columns, const int n, const int d, __global real* out) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real sum = 0;
  for (int j = 0; j < d; ++j) sum += columns[(size_t)j * n + i] * columns[(size_t)j * n + i];
  out[i] = sum;
}
