// pagerank_ell.cl: PageRank's sum over in-links with the link graph in ELLPACK (seed 004, sections 5.1
// and 5.3.3): s_i = sum of z_j over the links j -> i, no value array (z_j = x_j / outdeg_j).
//
// Layout
//   columns  rows x width ints, column-major: slot c of block row r at c * rows + r, so consecutive
//            work-items read consecutive addresses (seed 5.3.2). Rows shorter than `width` are padded
//            with n, and z[n] = 0, so no slot needs a branch. Loop-invariant, uploaded once.
//   row_ids  (ell_rows) the matrix row of each block row: the hybrid's bins hold rows of similar
//            length gathered from anywhere in the matrix.
//   z        n + 1 reals, read by gather; s: n reals, written.
//
// Kernels
//   ell           every row of the matrix, block row r is row r (the `ell` format).
//   ell_rows      one bin of the hybrid format: block row r is row row_ids[r].
//   scatter_rows  the hybrid's CPU rows: their sums, sent from the host, into s.
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D WEIGHTED            weighted links: `values` beside `columns`, padding 0 (pagerank_links.clh)
#include "pagerank_links.clh"

inline real ell_row_sum(const int r, const int rows, const int width, __global const int* restrict columns,
                        __global const real* restrict z LINK_VALUES) {
  real sum = 0;
  for (int c = 0; c < width; ++c) {
    const long k = (long)c * rows + r;  // 64-bit: the padded slots may pass 2^31 before the links do
    sum += LINK(k, z[columns[k]]);
  }
  return sum;
}

__kernel void ell(const int rows, const int width, __global const int* restrict columns,
                  __global const real* restrict z, __global real* restrict s LINK_VALUES) {
  const int r = get_global_id(0);
  if (r < rows) s[r] = ell_row_sum(r, rows, width, columns, z LINK_ARGS);
}

__kernel void ell_rows(const int rows, const int width, __global const int* restrict columns,
                       __global const int* restrict row_ids, __global const real* restrict z,
                       __global real* restrict s LINK_VALUES) {
  const int r = get_global_id(0);
  if (r < rows) s[row_ids[r]] = ell_row_sum(r, rows, width, columns, z LINK_ARGS);
}

__kernel void scatter_rows(const int count, __global const int* restrict row_ids, __global const real* restrict sums,
                           __global real* restrict s) {
  const int r = get_global_id(0);
  if (r < count) s[row_ids[r]] = sums[r];
}
