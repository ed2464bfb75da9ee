// pagerank.cl: the PageRank update after the sum over in-links, and the reductions it needs
// (networkx's iteration):
//   x_new_i = alpha * (s_i + D * d_i) + (1 - alpha) * p_i,   D = sum of x_j over dangling nodes j,
// then z_i = x_new_i / outdeg_i (0 for dangling nodes: the next sums' input, seed 5.1), and per
// work-group partial sums of |x_new_i - x_i| (the L1 change) and of the new dangling mass.
//
// Layout
//   s, x, x_new      n reals; z: n + 1 reals (z[n] stays 0). The update writes x_new and z of nodes
//                    [first, last) and sums over them only. Over ranks (halo_rows) the sums come in two
//                    parts, s and s_halo (the rows that read the halo, summed once it came; each row's
//                    sum is in one of them, 0 in the other). In one process z is in node order; over
//                    ranks it is [halo below | rows | halo above] (pagerank_halo.hpp): node i's z at
//                    i + z_shift for the rows, the halo written by the host.
//   p, d             n reals each, or unused when uniform / equal to p (flags below).
//   outdeg           n ints, loop-invariant; with -D WEIGHTED the out-weights, n reals (pagerank_links.clh).
//   totals           2 reals: [0] the L1 change, [1] the dangling mass D of the current iterate. The
//                    update reads D from here, the reduction writes both: the host reads 2 numbers
//                    per iteration, never the vectors.
//   group_sums       2 reals per work-group of `update`.
//
// Kernels
//   start          x and z at the start of a run, on the device.
//   update         each work-group loops over one contiguous block of nodes, its work-items taking
//                  consecutive nodes (coalesced on GPUs), then reduces its two sums once in local
//                  memory. The host launches only enough groups to fill the device. Measured with PoCL
//                  (2 cores, here): a reduction per 64 nodes cost 5 to 13 ms per update on web-NotreDame
//                  (each barrier loops over the group's work-items), a loop 2.2 ms. A grid-wide stride
//                  took 30 ms on R-MAT 20 (PoCL runs a work-item's nodes in a row: one page each, the
//                  TLB thrashes), blocks per group 6 ms.
//   reduce_totals  one work-group adds up all groups' sums into totals.
//   pack           over ranks: the entries of z the other ranks read, gathered into one buffer to send.
//
// Parameters
//   -D REAL=float|double  (required, see common.clh)
//   -D WEIGHTED            z = x / out-weight: `outdeg` holds reals (pagerank_links.clh)
//   The work-group size is the launch's; local memory (2 reals per work-item) is a kernel argument.
#include "pagerank_links.clh"

// Tree-reduces the pairs (a, b) of a work-group in local memory; the result lands in slot 0.
inline void reduce_pair(__local real* a, __local real* b) {
  const int lid = get_local_id(0);
  for (int stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < stride) {
      a[lid] += a[lid + stride];
      b[lid] += b[lid + stride];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The start of a run: x = x0 where given (uploaded into x), else `uniform` (1/n in real); z = x / outdeg
// of rows [first, last) at i + z_shift, 0 for dangling nodes, and z[n] = 0. Computed here rather than
// uploaded: the vectors never cross the bus.
__kernel void start(const int n, const int first, const int last, const int z_shift, const int given,
                    const real uniform, __global const out_weight_t* restrict outdeg, __global real* restrict x,
                    __global real* restrict z) {
  const int i = get_global_id(0);
  if (i > n) return;
  if (i == n) {
    z[n] = 0;
    return;
  }
  const real xi = given ? x[i] : uniform;
  x[i] = xi;
  if (i >= first && i < last) z[i + z_shift] = outdeg[i] > 0 ? xi / outdeg[i] : 0;
}

// The work-group size must be a power of two; `block` nodes per group, a multiple of it.
// Nodes [first, last): all of them in one process, a rank's block of rows over MPI ranks.
__kernel void update(const int first, const int last, const int z_shift, const int block, const real alpha, const real uniform,
                     const int personalized, const int dangling_given, __global const real* restrict s,
                     const int halo_rows, __global const real* restrict s_halo,
                     __global const real* restrict x, __global const real* restrict p, __global const real* restrict d,
                     __global const out_weight_t* restrict outdeg, __global const real* restrict totals,
                     __global real* restrict x_new, __global real* restrict z, __global real* restrict group_sums,
                     __local real* change, __local real* dangling) {
  const int lid = get_local_id(0);
  const real dangling_mass = totals[1];
  real delta = 0, mass = 0;
  const int end = min(last, first + (int)(get_group_id(0) + 1) * block);
  for (int i = first + (int)get_group_id(0) * block + lid; i < end; i += get_local_size(0)) {
    const real pi = personalized ? p[i] : uniform;
    const real di = dangling_given ? d[i] : pi;
    const real si = halo_rows ? s[i] + s_halo[i] : s[i];  // one of the two is 0
    const real xi = alpha * (si + dangling_mass * di) + (1 - alpha) * pi;
    const out_weight_t degree = outdeg[i];
    delta += fabs(xi - x[i]);
    if (degree == 0) mass += xi;
    x_new[i] = xi;
    z[i + z_shift] = degree == 0 ? 0 : xi / degree;
  }
  change[lid] = delta;
  dangling[lid] = mass;
  reduce_pair(change, dangling);
  if (lid == 0) {
    group_sums[2 * get_group_id(0)] = change[0];
    group_sums[2 * get_group_id(0) + 1] = dangling[0];
  }
}

// One work-group (a power of two in size); each work-item first adds a strided share of the groups.
__kernel void reduce_totals(const int groups, __global const real* restrict group_sums, __global real* restrict totals,
                            __local real* change, __local real* dangling) {
  const int lid = get_local_id(0);
  real a = 0, b = 0;
  for (int g = lid; g < groups; g += get_local_size(0)) {
    a += group_sums[2 * g];
    b += group_sums[2 * g + 1];
  }
  change[lid] = a;
  dangling[lid] = b;
  reduce_pair(change, dangling);
  if (lid == 0) {
    totals[0] = change[0];
    totals[1] = dangling[0];
  }
}

// Over ranks: out[k] = z[positions[k]], the entries the other ranks read, grouped by rank (pagerank_halo.hpp).
__kernel void pack(const int count, __global const int* restrict positions, __global const real* restrict z,
                   __global real* restrict out) {
  const int k = get_global_id(0);
  if (k < count) out[k] = z[positions[k]];
}
