// pagerank_csr.cl: PageRank's sum over in-links, s_i = sum of z_j over the links j -> i, with the link
// graph in CSR (seed 004, section 5.1). No value array: z is the iterate x_j / outdeg_j.
//
// Layout
//   blocks   csr_adaptive: n_blocks + 1 first rows (block_rows, ints) and first links (block_links,
//            offset_t); block b holds the links [link_b, link_b+1) and the whole rows [row_b, row_b+1),
//            or, where those links are not whole rows, a piece of row row_b. Pieces: one real per block
//            (pieces of split rows).
//   split    csr_adaptive_pieces: per split row (row, first piece's block, pieces).
//   offsets  n + 1 offset_t: row i's in-links are sources[offsets[i] .. offsets[i + 1]).
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
//   csr_adaptive  one work-group per row block (build_row_blocks on the host; the idea of Greathouse
//               and Daga's CSR-Adaptive, clSPARSE): a block holds consecutive rows with at most
//               `capacity` links in all, or a piece of one longer row. The group gathers the block's
//               z values into local memory with consecutive work-items reading consecutive links
//               (every load coalesced, every group the same work whatever the rows' lengths), then
//               each row is added up from local memory by lanes = the largest power of two within
//               local size / rows. A piece's sum goes to pieces[block]; csr_adaptive_pieces adds
//               them into s (in piece order, so every run adds the same way).
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D WEIGHTED            weighted links: `values` beside `sources` (pagerank_links.clh)
//   -D OFFSET=int|long     the offsets' type (pagerank_links.clh)
//   -D LINKS_PER_ITEM=n    csr_adaptive only (the kernels exist only with it): a row block's links per
//                          work-item, each work-item's gathers kept in registers
//   The work-group size and vector size are kernel arguments, so one build serves every tuning.
#include "pagerank_links.clh"

__kernel void csr_scalar(const int n, __global const offset_t* restrict offsets, __global const int* restrict sources,
                         __global const real* restrict z, __global real* restrict s LINK_VALUES) {
  const int i = get_global_id(0);
  if (i >= n) return;
  real sum = 0;
  const offset_t end = offsets[i + 1];
  for (offset_t k = offsets[i]; k < end; ++k) sum += LINK(k, z[sources[k]]);
  s[i] = sum;
}

// The work-group covers local_size / vector_size rows; vector_size is a power of two dividing it.
__kernel void csr_vector(const int n, __global const offset_t* restrict offsets, __global const int* restrict sources,
                         __global const real* restrict z, __global real* restrict s, const int vector_size,
                         __local real* partial LINK_VALUES) {
  const int lid = get_local_id(0);
  const int lane = lid & (vector_size - 1);
  const int row = get_group_id(0) * (get_local_size(0) / vector_size) + lid / vector_size;
  real sum = 0;
  if (row < n) {
    const offset_t end = offsets[row + 1];
    for (offset_t k = offsets[row] + lane; k < end; k += vector_size) sum += LINK(k, z[sources[k]]);
  }
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = vector_size / 2; stride > 0; stride /= 2) {
    if (lane < stride) partial[lid] += partial[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row < n) s[row] = partial[lid];
}

#ifdef LINKS_PER_ITEM
// Local memory: `gathered_z` holds LINKS_PER_ITEM reals per work-item (at least every block's links),
// `partial` one. The host keeps every block within that and within local size rows.
__kernel void csr_adaptive(__global const offset_t* restrict offsets, __global const int* restrict sources,
                           __global const int* restrict block_rows, __global const offset_t* restrict block_links,
                           __global const real* restrict z,
                           __global real* restrict s, __global real* restrict pieces, __local real* gathered_z,
                           __local real* partial LINK_VALUES) {
  const int b = get_group_id(0), lid = get_local_id(0), size = get_local_size(0);
  const int first = block_rows[b], next_row = block_rows[b + 1];
  const offset_t begin = block_links[b], end = block_links[b + 1];
  // All of a work-item's gathers issued before the first is stored, so that they overlap.
  real gathered[LINKS_PER_ITEM];
  for (int j = 0; j < LINKS_PER_ITEM; ++j) {
    const offset_t k = begin + lid + j * size;
    gathered[j] = k < end ? LINK(k, z[sources[k]]) : 0;
  }
  for (int j = 0; j < LINKS_PER_ITEM; ++j) gathered_z[lid + j * size] = gathered[j];
  // A piece of a row: links that are not one or more whole rows (its rows count as one).
  const int piece = next_row - first <= 1 && (begin != offsets[first] || end != offsets[first + 1]);
  const int rows = piece ? 1 : next_row - first;
  const int lanes = 1 << (31 - clz(size / rows));
  const int row = lid / lanes, lane = lid & (lanes - 1);
  barrier(CLK_LOCAL_MEM_FENCE);
  real sum = 0;
  if (row < rows) {
    const int lo = piece ? 0 : (int)(offsets[first + row] - begin);  // within the block: an int
    const int hi = piece ? (int)(end - begin) : (int)(offsets[first + row + 1] - begin);
    for (int k = lo + lane; k < hi; k += lanes) sum += gathered_z[k];
  }
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = lanes / 2; stride > 0; stride /= 2) {
    if (lane < stride) partial[lid] += partial[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lane == 0 && row < rows) {
    if (piece)
      pieces[b] = partial[lid];
    else
      s[first + row] = partial[lid];
  }
}

// One work-item per split row: s[row] = its pieces' sums, in order.
__kernel void csr_adaptive_pieces(const int n_split, __global const int* restrict split,
                                  __global const real* restrict pieces, __global real* restrict s) {
  const int i = get_global_id(0);
  if (i >= n_split) return;
  const int first = split[3 * i + 1], count = split[3 * i + 2];
  real sum = 0;
  for (int k = first; k < first + count; ++k) sum += pieces[k];
  s[split[3 * i]] = sum;
}
#endif
