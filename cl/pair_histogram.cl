// pair_histogram.cl: 2-body statistics of seed 000 over one rectangle of the pair space: the spatial
// distance histogram (its type II) and pair counts within radii (type I, as a histogram over the radii).
//
// Layout
//   points   DIM x ld, column-major ("multiple arrays of single-dimension values", seed 000 section IV-A,
//            so loads coalesce). Resident on the device.
//   Rectangle: anchors i in [row0, row0 + rows), others j in [col0, col0 + cols). diagonal = 1: one block
//            of the pair space's diagonal (row0 == col0, rows == cols), where only pairs i < j count.
//            The host aligns rectangles to WG_SIZE, so anchor blocks and staged blocks line up.
//   box      DIM side lengths of a periodic box (PERIODIC = 1): differences take the minimum image.
//   Bucketing (BINNING), one rule for all (host/src/pairwise/pair_histogram_binning.hpp, docs/pairwise.md):
//                numpy.histogram's, the correctly rounded root of the squared distance d2 compared with the
//                edges in the working precision. `table` holds the exactly equivalent thresholds on d2, so
//                no comparison depends on this device's root:
//     BIN_UNIFORM  N_BINS equal bins over [lo, hi] (numpy.histogram's bins + range: the last bin closed):
//                  the candidate floor((sqrt(d2) - lo) * inv_width), then corrected by the thresholds of
//                  the edges (table: N_BINS + 2 values in global memory, as BIN_EDGES').
//     BIN_EDGES    N_BINS bins between N_BINS + 1 increasing edges; table[k] the least d2 whose root
//                  reaches edge k, table[N_BINS + 1] the greatest d2 whose root stays within the last
//                  edge: bin k holds table[k] <= d2 < table[k + 1], the last one closed.
//     BIN_RADII    N_BINS radii, table[k] the greatest d2 whose root is within r_k: bin k counts pairs with
//                  r_k-1 < d <= r_k; the host's running sum gives the pairs within each radius (scipy's
//                  count_neighbors convention, d <= r).
//   Counts: the host adds every launch's counts into 64-bit totals (`totals`, ulong) on the device.
//
// Kernels (seed 000's variants)
//   hist_naive          Algorithm 1: one anchor per work-item, the others read from global memory, every
//                       pair a global atomic increment.
//   hist_tiled          Algorithm 2 with section IV-A's Register-SHM: the anchor in registers, the other
//                       side staged WG_SIZE points at a time in local memory; global atomics.
//   hist_private        Algorithm 3: as tiled, counting in a private histogram per work-group in local
//                       memory (32-bit local atomics), written out per group and summed by hist_merge.
//   hist_private_balanced  as hist_private, with section IV-E's load balancing of the intra-block pairs:
//                       work-item t pairs with (t + k) % WG_SIZE for k = 1 .. WG_SIZE / 2, so all do
//                       the same work instead of WG_SIZE - 1 - t.
//   hist_merge          totals[b] += sum over groups of partial[g * N_BINS + b] (section IV-C's reduction).
//   Global counters: ulong with atom_inc where the device has cl_khr_int64_base_atomics (GLOBAL64 = 1);
//   else uint, the host keeping each launch under 2^32 pairs and merging them into the totals.
//
// Parameters
//   -D REAL=float|double   (required, see common.clh)
//   -D DIM=<int>           (required) coordinates per point
//   -D N_BINS=<int>        (required) buckets
//   -D BINNING=<BIN_*>     (required) see above
//   -D PERIODIC=0          1: minimum image in the box
//   -D WG_SIZE=256         work-items per work-group = points per staged block (the seed's B)
//   -D GLOBAL64=0          1: 64-bit global atomics (cl_khr_int64_base_atomics)
#include "common.clh"

#define BIN_UNIFORM 1
#define BIN_EDGES 2
#define BIN_RADII 3

#ifndef DIM
#error "DIM (coordinates per point) must be defined"
#endif
#ifndef N_BINS
#error "N_BINS (buckets) must be defined"
#endif
#ifndef BINNING
#error "BINNING must be BIN_UNIFORM, BIN_EDGES or BIN_RADII"
#endif
#ifndef PERIODIC
#define PERIODIC 0
#endif
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef GLOBAL64
#define GLOBAL64 0
#endif

#if GLOBAL64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
typedef ulong counter;
#define GLOBAL_INC(p) atom_inc(p)
#else
typedef uint counter;
#define GLOBAL_INC(p) atomic_inc(p)
#endif

#if BINNING == BIN_UNIFORM
#define N_TABLE 1
#elif BINNING == BIN_EDGES
#define N_TABLE (N_BINS + 2)
#else
#define N_TABLE N_BINS
#endif

// What every kernel takes: the points, the rectangle, the box and the binning.
#define PAIR_ARGS                                                                                          \
  __global const real *restrict points, const int ld, const int row0, const int rows, const int col0,     \
      const int cols, const int diagonal, __global const real *restrict box, const real lo, const real hi, \
      const real inv_width, __global const real *restrict table

struct Frame {
  real side[DIM], inv_side[DIM];
  real lo, hi, inv_width;
};

inline struct Frame frame(__global const real* restrict box, const real lo, const real hi, const real inv_width) {
  struct Frame f;
  for (int d = 0; d < DIM; ++d) {
    f.side[d] = PERIODIC ? box[d] : 0;
    f.inv_side[d] = PERIODIC ? 1 / box[d] : 0;
  }
  f.lo = lo, f.hi = hi, f.inv_width = inv_width;
  return f;
}

inline real distance2(const struct Frame* f, const real a[DIM], const real b[DIM]) {
  real s = 0;
#pragma unroll
  for (int d = 0; d < DIM; ++d) {
    real t = a[d] - b[d];
#if PERIODIC
    t -= f->side[d] * rint(t * f->inv_side[d]);  // the minimum image
#endif
    s += t * t;
  }
  return s;
}

// The bucket of a squared distance, or -1 when it falls outside every bucket (NaN included). `table`
// holds the thresholds (local memory for edges and radii, staged by the caller; global for uniform bins).
#if BINNING == BIN_UNIFORM
#define BUCKET(f, d2, staged) uniform_bucket(f, d2, table)
inline int uniform_bucket(const struct Frame* f, const real d2, __global const real* restrict table) {
  if (!(d2 >= table[0] && d2 <= table[N_BINS + 1])) return -1;
  int k = clamp((int)((sqrt(d2) - f->lo) * f->inv_width), 0, N_BINS - 1);
  while (k > 0 && d2 < table[k]) --k;                    // below edge k: numpy's decrement
  while (k < N_BINS - 1 && d2 >= table[k + 1]) ++k;      // at or above edge k + 1: numpy's increment
  return k;
}
#else
#define BUCKET(f, d2, staged) table_bucket(d2, staged)
// BIN_EDGES: the last threshold <= d2 (the last bin closed); BIN_RADII: the first threshold >= d2.
inline int table_bucket(const real d2, __local const real* table) {
#if BINNING == BIN_EDGES
  if (!(d2 >= table[0] && d2 <= table[N_BINS + 1])) return -1;
  int low = 0, high = N_BINS;  // table[low] <= d2, and d2 < table[high] or high == N_BINS
  while (high - low > 1) {
    const int mid = (low + high) / 2;
    if (table[mid] <= d2) low = mid;
    else high = mid;
  }
  return low;
#else
  if (!(d2 <= table[N_BINS - 1])) return -1;
  int low = -1, high = N_BINS - 1;  // table[low] < d2 <= table[high]
  while (high - low > 1) {
    const int mid = (low + high) / 2;
    if (table[mid] < d2) low = mid;
    else high = mid;
  }
  return high;
#endif
}
#endif

// The thresholds of the edges or radii in local memory, shared by the work-group (a barrier follows before use).
inline void stage_table(__global const real* restrict table, __local real* staged) {
  for (int t = get_local_id(0); t < N_TABLE; t += WG_SIZE) staged[t] = table[t];
}

inline void load_point(__global const real* restrict points, const int ld, const int i, real p[DIM]) {
#pragma unroll
  for (int d = 0; d < DIM; ++d) p[d] = points[d * ld + i];
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_naive(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  __local real staged_table[N_TABLE];
  stage_table(table, staged_table);
  barrier(CLK_LOCAL_MEM_FENCE);
  const struct Frame f = frame(box, lo, hi, inv_width);
  const int r = get_global_id(0);
  if (r >= rows) return;
  real a[DIM], b[DIM];
  load_point(points, ld, row0 + r, a);
  for (int c = diagonal ? r + 1 : 0; c < cols; ++c) {
    load_point(points, ld, col0 + c, b);
    const int bin = BUCKET(&f, distance2(&f, a, b), staged_table);
    if (bin >= 0) GLOBAL_INC(&counts[bin]);
  }
}

// The body every tiled variant shares (after TILED_LOCALS, at kernel scope as OpenCL requires of local
// arrays): the anchor in registers, the other side WG_SIZE points at a time in local memory; COUNT(bin)
// records a pair. The staged table is first read after one of the body's barriers. Intra-block pairs come first (own block on the diagonal),
// through INTRA_BLOCK(a, valid, count), then the blocks to the right.
#define TILED_LOCALS              \
  __local real staged_table[N_TABLE]; \
  __local real block[DIM * WG_SIZE];
#define TILED_BODY(COUNT, INTRA_BLOCK)                                                                 \
  stage_table(table, staged_table);                                                                   \
  const struct Frame f = frame(box, lo, hi, inv_width);                                               \
  const int t = get_local_id(0);                                                                      \
  const int anchor0 = get_group_id(0) * WG_SIZE; /* rectangle coordinates */                          \
  const bool active = anchor0 + t < rows;                                                             \
  real a[DIM];                                                                                        \
  _Pragma("unroll") for (int d = 0; d < DIM; ++d) a[d] = active ? points[d * ld + row0 + anchor0 + t] : 0; \
  int first = 0;                                                                                      \
  if (diagonal) {                                                                                     \
    /* the own block: stage it, pair within it */                                                     \
    _Pragma("unroll") for (int d = 0; d < DIM; ++d) block[d * WG_SIZE + t] = a[d];                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    const int valid = min(WG_SIZE, rows - anchor0);                                                   \
    INTRA_BLOCK(a, valid, COUNT)                                                                      \
    first = anchor0 + WG_SIZE;                                                                        \
  }                                                                                                   \
  for (int c0 = first; c0 < cols; c0 += WG_SIZE) {                                                    \
    barrier(CLK_LOCAL_MEM_FENCE); /* done with the previous block */                                  \
    const int valid = min(WG_SIZE, cols - c0);                                                        \
    if (t < valid) {                                                                                  \
      _Pragma("unroll") for (int d = 0; d < DIM; ++d) block[d * WG_SIZE + t] = points[d * ld + col0 + c0 + t]; \
    }                                                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    if (active) {                                                                                     \
      for (int k = 0; k < valid; ++k) {                                                               \
        real b[DIM];                                                                                  \
        _Pragma("unroll") for (int d = 0; d < DIM; ++d) b[d] = block[d * WG_SIZE + k];                \
        COUNT(BUCKET(&f, distance2(&f, a, b), staged_table));                                         \
      }                                                                                               \
    }                                                                                                 \
  }

// Algorithm 2, lines 9-12: work-item t pairs with the block's later points.
#define INTRA_TRIANGLE(a, valid, COUNT)                                         \
  if (t < valid) {                                                              \
    for (int k = t + 1; k < valid; ++k) {                                       \
      real b[DIM];                                                              \
      _Pragma("unroll") for (int d = 0; d < DIM; ++d) b[d] = block[d * WG_SIZE + k]; \
      COUNT(BUCKET(&f, distance2(&f, a, b), staged_table));                     \
    }                                                                           \
  }

// Section IV-E: work-item t pairs with (t + k) % WG_SIZE, k = 1 .. WG_SIZE / 2; with WG_SIZE even the
// last step is the lower half's only, so each unordered pair of the block is counted once.
#define INTRA_BALANCED(a, valid, COUNT)                                                    \
  for (int k = 1; k <= WG_SIZE / 2; ++k) {                                                 \
    const int u = (t + k) % WG_SIZE;                                                       \
    if (t < valid && u < valid && (2 * k < WG_SIZE || t < WG_SIZE / 2)) {                  \
      real b[DIM];                                                                         \
      _Pragma("unroll") for (int d = 0; d < DIM; ++d) b[d] = block[d * WG_SIZE + u];       \
      COUNT(BUCKET(&f, distance2(&f, a, b), staged_table));                                \
    }                                                                                      \
  }

#define COUNT_GLOBAL(bin)                     \
  {                                           \
    const int bin_ = (bin);                   \
    if (bin_ >= 0) GLOBAL_INC(&counts[bin_]); \
  }
#define COUNT_LOCAL(bin)                      \
  {                                           \
    const int bin_ = (bin);                   \
    if (bin_ >= 0) atomic_inc(&hist[bin_]);   \
  }

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_tiled(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  TILED_LOCALS
  TILED_BODY(COUNT_GLOBAL, INTRA_TRIANGLE)
}

// Zeroes the work-group's histogram, runs the body, writes the histogram to the group's row of partial.
#define PRIVATE_KERNEL(name, INTRA)                                                                \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(                        \
      PAIR_ARGS, __local uint* hist, __global uint* restrict partial) {                           \
    TILED_LOCALS                                                                                  \
    for (int b = get_local_id(0); b < N_BINS; b += WG_SIZE) hist[b] = 0;                          \
    TILED_BODY(COUNT_LOCAL, INTRA)                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
    for (int b = get_local_id(0); b < N_BINS; b += WG_SIZE) partial[get_group_id(0) * N_BINS + b] = hist[b]; \
  }

PRIVATE_KERNEL(hist_private, INTRA_TRIANGLE)
PRIVATE_KERNEL(hist_private_balanced, INTRA_BALANCED)

// One work-item per bin: adds the groups' counts into the 64-bit totals and clears them for the next
// launch (so 32-bit global counters can be merged through it too, as one group).
__kernel void hist_merge(__global uint* restrict partial, const int groups, __global ulong* restrict totals) {
  const int b = get_global_id(0);
  if (b >= N_BINS) return;
  ulong sum = 0;
  for (int g = 0; g < groups; ++g) {
    sum += partial[g * N_BINS + b];
    partial[g * N_BINS + b] = 0;
  }
  totals[b] += sum;
}
