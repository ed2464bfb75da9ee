// pagerank_csr.cl: PageRank's sum over in-links, s_i = sum of z_j over the links j -> i, with the link
// graph in CSR (seed 004, section 5.1). No value array: z is the iterate x_j / outdeg_j.
//
// Layout
//   offsets  n + 1 ints: row i's in-links are sources[offsets[i] .. offsets[i + 1]).
//   sources  the in-link ids, ascending within a row. Both loop-invariant, uploaded once.
//   z        n + 1 reals, read by gather (z[n] = 0 is the padding target of the ELLPACK kernels).
//   s        n reals, written.
//
// Kernels
//   csr_scalar  one row per work-item (the seed's CSR): simple, but a work-group waits for its
//               longest row, and neighbouring work-items read far-apart sources.
//   csr_vector  one row per VECTOR_SIZE work-items (Bell and Garland's CSR-vector, the seed's [4]):
//               lanes read consecutive links and add their partial sums through local memory, with
//               a barrier at every step (no lockstep assumed).
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   The work-group size and vector size are kernel arguments, so one build serves every tuning.
#include "common.clh"

__kernel void csr_scalar(const int n, __global const int* restrict offsets, __global const int* restrict sources,
                         __global const real* restrict z, __global real* restrict s) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real sum = 0;
  const int end = offsets[i + 1];
  for (int k = offsets[i]; k < end; ++k) sum += z[sources[k]];
  s[i] = sum;
}

// The work-group covers local_size / vector_size rows; vector_size is a power of two dividing it.
__kernel void csr_vector(const int n, __global const int* restrict offsets, __global const int* restrict sources,
                         __global const real* restrict z, __global real* restrict s, const int vector_size,
                         __local real* partial) {
  const int lid = get_local_id(0);
  const int lane = lid & (vector_size - 1);
  const int row = get_group_id(0) * (get_local_size(0) / vector_size) + lid / vector_size;
  real sum = 0;
  if (row < n) {
    const int end = offsets[row + 1];
    for (int k = offsets[row] + lane; k < end; k += vector_size) sum += z[sources[k]];
  }
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = vector_size / 2; stride > 0; stride /= 2) {
    if (lane < stride) partial[lid] += partial[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row < n) s[row] = partial[lid];
}
