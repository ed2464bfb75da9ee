// graph_build.cl: the in-link CSR built on the device from edge arrays (PageRank's graph_build "device"):
// the links as sort keys (destination << bits | source), sorted (radix_sort.cl), the self-loops and
// repeats the options drop removed, then the rows' sources read off the sorted keys. With the
// degree order, the nodes are sorted by out-degree (highest first, ties by id: pagerank::degree_order's
// order), the keys renamed and sorted again. The same rows, in the same order, as the host's in_links and
// renumbered: the sums over each row run in the same order, so both builds give the same ranks. The rows'
// offsets are counted before the last sort (key_in_degrees, then an exclusive scan), so that the host can
// read them, the order and the out-degrees while the links sort.
//
// Layout
//   src, dst       m ints: edge e links src[e] -> dst[e].
//   keys           m ulongs, (row << bits) | source; bits = bit width of n - 1.
//   offsets        n + 1 ints (each row's in-links counted, then scanned); sources: m ints.
//   out_degree     n ints; order, new_id: n ints (order[i] the old id of new node i, new_id its inverse).
//   counts         2 uints: self-loops and repeats among the sorted keys.
//
// Kernels (one work-item per link or node)
//   edge_keys        the keys; *bad becomes the lowest edge naming a node outside 0..n-1 (else stays m).
//   link_counts      adds the self-loops and repeats (a key equal to the one before) to counts.
//   kept_links       flags[e] = 1 for each link the options keep (drop_loops, drop_repeats).
//   compact_links    kept keys to their places (the flags' exclusive scan).
//   key_in_degrees   each link's row's count (the keys in any order).
//   sources_of_keys  the sources of the sorted keys.
//   key_out_degrees  each link's source's count.
//   largest_degree   *largest = the highest out-degree.
//   degree_keys      the nodes' sort keys for the degree order: (largest - degree) << node_bits | node.
//   node_order       order, new_id and the out-degrees in the new order, from the sorted degree keys.
//   rename_links     keys of new ids, from keys of old ones.
//
// Parameters: none.

__kernel void edge_keys(__global const int* src, __global const int* dst, uint m, int n, int bits,
                        __global ulong* keys, __global int* bad) {
  const uint e = get_global_id(0);
  if (e >= m) return;
  const int s = src[e], d = dst[e];
  if (s < 0 || s >= n || d < 0 || d >= n)
    atomic_min(bad, (int)e);
  else
    keys[e] = (ulong)d << bits | (uint)s;
}

__kernel void link_counts(__global const ulong* keys, uint m, int bits, __global uint* counts) {
  __local uint group[2];
  if (get_local_id(0) == 0) group[0] = group[1] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint e = get_global_id(0);
  if (e < m) {
    const ulong key = keys[e];
    if ((key >> bits) == (key & ((1UL << bits) - 1))) atomic_inc(&group[0]);
    if (e > 0 && keys[e - 1] == key) atomic_inc(&group[1]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) {
    if (group[0]) atomic_add(&counts[0], group[0]);
    if (group[1]) atomic_add(&counts[1], group[1]);
  }
}

__kernel void kept_links(__global const ulong* keys, uint m, int bits, int drop_loops, int drop_repeats,
                         __global uint* flags) {
  const uint e = get_global_id(0);
  if (e >= m) return;
  const ulong key = keys[e];
  const bool loop = (key >> bits) == (key & ((1UL << bits) - 1)), repeat = e > 0 && keys[e - 1] == key;
  flags[e] = !((loop && drop_loops) || (repeat && drop_repeats));
}

__kernel void compact_links(__global const ulong* keys, uint m, __global const uint* places,
                            __global const uint* flags, __global ulong* kept) {
  const uint e = get_global_id(0);
  if (e < m && flags[e]) kept[places[e]] = keys[e];
}

// Row r starts at the first link whose row is r or more: the link where the row changes writes the starts
// of the rows from the previous link's row + 1 to its own, so each offset is written once.
__kernel void key_in_degrees(__global const ulong* keys, uint m, int bits, __global uint* in_degree) {
  const uint e = get_global_id(0);
  if (e < m) atomic_inc(&in_degree[keys[e] >> bits]);
}

__kernel void sources_of_keys(__global const ulong* keys, uint m, int bits, __global int* sources) {
  const uint e = get_global_id(0);
  if (e < m) sources[e] = (int)(keys[e] & ((1UL << bits) - 1));
}

__kernel void key_out_degrees(__global const ulong* keys, uint m, int bits, __global int* out_degree) {
  const uint e = get_global_id(0);
  if (e < m) atomic_inc(&out_degree[keys[e] & ((1UL << bits) - 1)]);
}

__kernel void largest_degree(__global const int* out_degree, int n, __global int* largest) {
  const int i = get_global_id(0);
  if (i < n) atomic_max(largest, out_degree[i]);
}

__kernel void degree_keys(__global const int* out_degree, int n, int largest, int node_bits, __global ulong* keys) {
  const int i = get_global_id(0);
  if (i < n) keys[i] = (ulong)(largest - out_degree[i]) << node_bits | (uint)i;
}

__kernel void node_order(__global const ulong* keys, int n, int node_bits, __global const int* out_degree,
                         __global int* order, __global int* new_id, __global int* new_out_degree) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int node = (int)(keys[i] & ((1UL << node_bits) - 1));
  order[i] = node;
  new_id[node] = i;
  new_out_degree[i] = out_degree[node];
}

__kernel void rename_links(__global ulong* keys, uint m, int bits, __global const int* new_id) {
  const uint e = get_global_id(0);
  if (e >= m) return;
  const ulong key = keys[e];
  keys[e] = (ulong)new_id[key >> bits] << bits | (uint)new_id[key & ((1UL << bits) - 1)];
}
