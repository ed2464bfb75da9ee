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
//                no comparison depends on this device's root. Each pair's bucket is found once:
//     BIN_UNIFORM  N_BINS equal bins over [lo, hi], the last bin closed (numpy.histogram's bins + range,
//                  and edges or radii the host found evenly spaced within a few ulps, radii as the edges
//                  0, r_0 .. r_N_BINS-1): x = (sqrt(d2) - lo) * inv_width lies within `guard` (below) of
//                  the distance's place among the edges, so the bucket is m - 1 or m, m the integer
//                  nearest x, and one threshold decides: bucket m or above exactly when d2 >= table[m]
//                  (table: N_BINS + 2 values, as BIN_EDGES'; for radii table[m] is the least d2 whose
//                  root exceeds r_m-1, since d = r counts within r). UNIFORM_GUARD = 1: only the pairs
//                  within the guard of an edge read it, the others take floor(x); 0: every pair reads it
//                  (no test of x, no divergence). UNIFORM_WALK = 1 (the host's choice where the guard
//                  may reach half a bin: many bins in float): the thresholds are then walked from there,
//                  as numpy corrects its index against its edges.
//     BIN_EDGES    N_BINS bins between N_BINS + 1 increasing edges; table[k] the least d2 whose root
//                  reaches edge k (k < N_BINS), table[N_BINS] the least d2 whose root exceeds the last
//                  edge, table[N_BINS + 1] the greatest d2 whose root stays within it: bin k holds
//                  table[k] <= d2 < table[k + 1], the last one closed.
//     BIN_RADII    N_BINS radii, table[k] the greatest d2 whose root is within r_k: bin k counts pairs with
//                  r_k-1 < d <= r_k; the host's running sum gives the pairs within each radius (scipy's
//                  count_neighbors convention, d <= r).
//     Edges and radii: N_CELLS equal cells over d2 from lo, inv_width cells per unit, follow the
//                  thresholds in the table, each holding (as a real) a bucket no later than that of any d2
//                  the cell can receive: the bucket is that start, moved up past the thresholds below d2
//                  (a step or none where the cells outnumber the buckets), instead of a search. Where the
//                  host found no cell whose pairs move past more than LOOKUP_STEPS <= 4 thresholds, each
//                  pair takes that many steps of 0 or 1, with no loop and no branch.
//   Counts: the host adds every launch's counts into 64-bit totals (`totals`, ulong) on the device.
//
// Kernels (seed 000's variants)
//   hist_naive          Algorithm 1: one anchor per work-item, the others read from global memory, every
//                       pair a global atomic increment.
//   hist_tiled          Algorithm 2 with section IV-A's Register-SHM: the anchor in registers, the other
//                       side staged WG_SIZE points at a time in local memory; global atomics.
//   hist_private        Algorithm 3: as tiled, counting in a private histogram per work-group in local
//                       memory, written out per group and summed by hist_merge. The group's histogram has
//                       REPLICAS copies, interleaved (hist[bin * REPLICAS + copy]), work-item t counting in
//                       copy t % REPLICAS: a warp's increments then fall in distinct banks and never on
//                       one counter, where one copy serialises the many pairs that share a bucket. With
//                       REPLICAS = WG_SIZE each work-item owns its copy and increments without atomics; with
//                       one bucket each counts in a register. The copies are summed when written out. The
//                       histogram has two more buckets, -1 and N_BINS, where the pairs in no bucket are
//                       counted and left: every pair's increment is then unconditional, where a test
//                       before it compiled to a branch around each atomic that kept the pairs of the
//                       unrolled loop from overlapping (on the H200, 42.7 against 33.8 ms).
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
//   -D N_CELLS=0           BIN_EDGES, BIN_RADII: cells of the bucket lookup after the thresholds in `table`
//   -D LOOKUP_STEPS=5      BIN_EDGES, BIN_RADII: the most thresholds a cell's start is moved past (the host's
//                          bound); over 4, a loop moves it
//   -D WG_SIZE=256         work-items per work-group = points per staged block (the seed's B)
//   -D REPLICAS=1          private variants: copies of the group's histogram, a power of two <= WG_SIZE
//   -D UNIFORM_GUARD=1     BIN_UNIFORM: the thresholds only near an edge (1) or for every pair (0)
//   -D UNIFORM_WALK=1      BIN_UNIFORM: walk the thresholds from the nearest edge (the host's choice: 0 only
//                          where x's guard stays under half a bin)
//   -D GLOBAL64=0          1: 64-bit global atomics (cl_khr_int64_base_atomics)
//   -D PRIVATE_HIST=1      0: the private variants left out (the host's choice for naive and tiled), whose
//                          histogram of many buckets would not fit a device's local memory and fail the build
//   -D TABLE_LOCAL=1       0: the table read from global memory, where it does not fit local memory
//                          beside the staged points and the histogram
//   -D TABLE_COPIES=1      TABLE_LOCAL: copies of the staged table, a power of two <= WG_SIZE, interleaved
//                          as the histogram's (value v of copy c at v * TABLE_COPIES + c), work-item t
//                          reading copy t % TABLE_COPIES: a warp's reads of the thresholds and cells at
//                          scattered places then fall in distinct banks
//
// Launch: (groups * WG_SIZE, splits) work-items, WG_SIZE x 1 a group. Group (g, s) pairs anchor block g
// with split s of the rectangle's column blocks (ceil(blocks / splits) each), so that no group holds a
// diagonal rectangle's whole first row while the rest of the device idles; hist_naive takes splits = 1.
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
#ifndef N_CELLS
#define N_CELLS 0
#endif
#ifndef LOOKUP_STEPS
#define LOOKUP_STEPS 5
#endif
#ifndef WG_SIZE
#define WG_SIZE 256
#endif
#ifndef REPLICAS
#define REPLICAS 1
#endif
#ifndef UNIFORM_GUARD
#define UNIFORM_GUARD 1
#endif
#ifndef UNIFORM_WALK
#define UNIFORM_WALK 1
#endif
#if REPLICAS & (REPLICAS - 1) || REPLICAS > WG_SIZE
#error "REPLICAS must be a power of two no larger than WG_SIZE"
#endif
#if ITERCL_IS_DOUBLE(REAL)
#define REAL_EPSILON DBL_EPSILON
#else
#define REAL_EPSILON FLT_EPSILON
#endif
#ifndef GLOBAL64
#define GLOBAL64 0
#endif
#ifndef PRIVATE_HIST
#define PRIVATE_HIST 1
#endif
#ifndef TABLE_LOCAL
#define TABLE_LOCAL 1
#endif
#if !TABLE_LOCAL || !defined(TABLE_COPIES)
#undef TABLE_COPIES
#define TABLE_COPIES 1
#endif
#if TABLE_COPIES & (TABLE_COPIES - 1) || TABLE_COPIES > WG_SIZE
#error "TABLE_COPIES must be a power of two no larger than WG_SIZE"
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
#define N_TABLE (N_BINS + 2)
#elif BINNING == BIN_EDGES
#define N_THRESHOLDS (N_BINS + 2)
#else
#define N_THRESHOLDS N_BINS
#endif
#ifdef N_THRESHOLDS
#define N_TABLE (N_THRESHOLDS + N_CELLS)
#endif

// What every kernel takes: the points, the rectangle, the box and the binning.
#define PAIR_ARGS                                                                                          \
  __global const real *restrict points, const int ld, const int row0, const int rows, const int col0,     \
      const int cols, const int diagonal, __global const real *restrict box, const real lo, const real hi, \
      const real inv_width, __global const real *restrict table

struct Frame {
  real side[DIM], inv_side[DIM];
  real lo, inv_width;
  real guard;            // BIN_UNIFORM: the margin around an integer x within which the thresholds decide
  real first, last;      // the first and last thresholds: d2 outside them falls in no bucket
};

inline struct Frame frame(__global const real* restrict box, const real lo, const real hi, const real inv_width,
                          __global const real* restrict table) {
  struct Frame f;
  for (int d = 0; d < DIM; ++d) {
    f.side[d] = PERIODIC ? box[d] : 0;
    f.inv_side[d] = PERIODIC ? 1 / box[d] : 0;
  }
  f.lo = lo, f.inv_width = inv_width;
  // x's error, in units of a bin: sqrt within 3 ulp of |d| <= max(|lo|, |hi|) (OpenCL 1.2's bound; double's is
  // exact), the edges rounded to the working precision (half an ulp of the same), the subtraction and the
  // product (an ulp of x <= N_BINS): under 6 eps max(|lo|, |hi|) inv_width + eps N_BINS. Nine times that.
  f.guard = 64 * REAL_EPSILON * (fmax(fabs(lo), fabs(hi)) * inv_width + N_BINS);
#if BINNING == BIN_UNIFORM
  f.first = table[0], f.last = table[N_BINS + 1];
#else
  f.first = table[0], f.last = table[N_THRESHOLDS - 1];
#endif
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

// The bucket of a squared distance: -1 or N_BINS when it falls in none (NaN included). Reads the
// thresholds the caller staged in local memory (TABLE_LOCAL, the work-item's copy), else from global memory.
#if TABLE_LOCAL
#define THRESHOLDS __local const real*
#define BUCKET(f, d2) bucket(f, d2, staged_table + (get_local_id(0) & (TABLE_COPIES - 1)))
#else
#define THRESHOLDS __global const real* restrict
#define BUCKET(f, d2) bucket(f, d2, table)
#endif
#define TABLE(i) table[(i) * TABLE_COPIES]
#if BINNING == BIN_UNIFORM
inline int bucket(const struct Frame* f, const real d2, THRESHOLDS table) {
  const real x = (sqrt(d2) - f->lo) * f->inv_width;
  int k = clamp(convert_int_sat_rte(x), 0, N_BINS);  // the nearest edge (NaN: 0, as _sat converts it)
#if UNIFORM_GUARD
  const real below = x - k;
  if (fabs(below) > f->guard) return k - (below < 0);  // no edge within rounding: floor(x) is numpy's
#endif
  k -= !(d2 >= TABLE(k));  // below edge k (table[N_BINS]: beyond the closed last edge): the bucket below
#if UNIFORM_WALK
  // x may be off by more than one bucket: numpy's corrections, from there. A build option rather than a
  // test of the guard: with the walk's loops in it, the loop over staged points was not unrolled.
  if (!(d2 >= f->first && d2 <= f->last)) return -1;
  k = clamp(k, 0, N_BINS - 1);
  while (k > 0 && d2 < TABLE(k)) --k;
  while (k < N_BINS - 1 && d2 >= TABLE(k + 1)) ++k;
#endif
  return k;
}
#else
// BIN_EDGES: the last threshold <= d2 (the last bin closed); BIN_RADII: the first threshold >= d2. The
// cell's start is never past the bucket, so the thresholds only move it up.
inline int bucket(const struct Frame* f, const real d2, THRESHOLDS table) {
#if BINNING == BIN_EDGES
  if (!(d2 >= f->first && d2 <= f->last)) return -1;
#else
  if (!(d2 <= f->last)) return -1;
#endif
  if (N_BINS == 1) return 0;
  const real cell = (d2 - f->lo) * f->inv_width;  // d2 <= f->last keeps it within about N_CELLS
  int k = (int)TABLE(N_THRESHOLDS + clamp((int)cell, 0, N_CELLS - 1));
#if LOOKUP_STEPS <= 4
#pragma unroll
  for (int s = 0; s < LOOKUP_STEPS; ++s) {
#if BINNING == BIN_EDGES
    k += (k < N_BINS - 1) & (d2 >= TABLE(k + 1));
#else
    k += d2 > TABLE(k);  // never past the last radius: d2 <= f->last
#endif
  }
#elif BINNING == BIN_EDGES
  while (k < N_BINS - 1 && d2 >= TABLE(k + 1)) ++k;
#else
  while (d2 > TABLE(k)) ++k;  // stops at the last radius at the latest: d2 <= f->last
#endif
  return k;
}
#endif

// The thresholds of the edges or radii in local memory (TABLE_LOCAL), TABLE_COPIES times, shared by the
// work-group (a barrier follows before use).
inline void stage_table(__global const real* restrict table, __local real* staged) {
#if TABLE_LOCAL
  for (int t = get_local_id(0); t < N_TABLE * TABLE_COPIES; t += WG_SIZE) staged[t] = table[t / TABLE_COPIES];
#endif
}

// The staged thresholds, at kernel scope as OpenCL requires of local arrays (one value where the table
// stays in global memory).
#define TABLE_LOCALS __local real staged_table[TABLE_LOCAL ? N_TABLE * TABLE_COPIES : 1];

inline void load_point(__global const real* restrict points, const int ld, const int i, real p[DIM]) {
#pragma unroll
  for (int d = 0; d < DIM; ++d) p[d] = points[d * ld + i];
}

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_naive(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  TABLE_LOCALS
  stage_table(table, staged_table);
  barrier(CLK_LOCAL_MEM_FENCE);
  const struct Frame f = frame(box, lo, hi, inv_width, table);
  const int r = get_global_id(0);
  if (r >= rows) return;
  real a[DIM], b[DIM];
  load_point(points, ld, row0 + r, a);
  for (int c = diagonal ? r + 1 : 0; c < cols; ++c) {
    load_point(points, ld, col0 + c, b);
    const int bin = BUCKET(&f, distance2(&f, a, b));
    if ((uint)bin < N_BINS) GLOBAL_INC(&counts[bin]);
  }
}

// The staged block: points of 3 or 4 coordinates as one real4 each, so that a pair reads its staged point
// with one local load (a broadcast: every work-item reads the same point) where DIM loads would make
// local memory the bound; other dimensions as DIM arrays of WG_SIZE.
#if DIM == 3 || DIM == 4
#define BLOCK_TYPE real4
#define BLOCK_SIZE WG_SIZE
#define STAGE(k, p) block[k] = (real4)(p[0], p[1], p[2], p[DIM - 1])
#define UNSTAGE(k, b)                \
  {                                  \
    const real4 v_ = block[k];       \
    b[0] = v_.x, b[1] = v_.y, b[2] = v_.z; \
    b[DIM - 1] = DIM == 4 ? v_.w : v_.z; \
  }
#else
#define BLOCK_TYPE real
#define BLOCK_SIZE (DIM * WG_SIZE)
#define STAGE(k, p) _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) block[d_ * WG_SIZE + (k)] = p[d_]
#define UNSTAGE(k, b) _Pragma("unroll") for (int d_ = 0; d_ < DIM; ++d_) b[d_] = block[d_ * WG_SIZE + (k)]
#endif

// The body every tiled variant shares (after TILED_LOCALS, at kernel scope as OpenCL requires of local
// arrays): the anchor in registers, the other side WG_SIZE points at a time in local memory; COUNT(bin)
// records a pair. The staged table is first read after one of the body's barriers. Intra-block pairs come first (own block on the diagonal),
// through INTRA_BLOCK(a, valid, count), then the blocks to the right.
#define TILED_LOCALS              \
  TABLE_LOCALS                        \
  __local BLOCK_TYPE block[BLOCK_SIZE];
#define TILED_BODY(COUNT, INTRA_BLOCK)                                                                 \
  stage_table(table, staged_table);                                                                   \
  const struct Frame f = frame(box, lo, hi, inv_width, table);                                               \
  const int t = get_local_id(0);                                                                      \
  const int anchor0 = get_group_id(0) * WG_SIZE; /* rectangle coordinates */                          \
  const bool active = anchor0 + t < rows;                                                             \
  real a[DIM];                                                                                        \
  _Pragma("unroll") for (int d = 0; d < DIM; ++d) a[d] = active ? points[d * ld + row0 + anchor0 + t] : 0; \
  /* this group's split of the column blocks; on the diagonal only the blocks from the anchors' own */ \
  const int span = (cols + WG_SIZE - 1) / WG_SIZE;                                                    \
  const int per_split = (span + get_num_groups(1) - 1) / get_num_groups(1);                           \
  const int split0 = get_group_id(1) * per_split * WG_SIZE;                                           \
  const int split_end = min(cols, split0 + per_split * WG_SIZE);                                      \
  int first = split0;                                                                                 \
  if (diagonal) {                                                                                     \
    /* the own block, in the split that holds it: stage it, pair within it (the barrier under the    \
       argument's condition alone: PoCL 3.1's work-item loops crashed with it under the split's) */  \
    STAGE(t, a);                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    const int valid = min(WG_SIZE, rows - anchor0);                                                   \
    if (anchor0 >= split0 && anchor0 < split_end) INTRA_BLOCK(a, valid, COUNT)                        \
    first = max(first, anchor0 + WG_SIZE);                                                            \
  }                                                                                                   \
  for (int c0 = first; c0 < split_end; c0 += WG_SIZE) {                                               \
    barrier(CLK_LOCAL_MEM_FENCE); /* done with the previous block */                                  \
    const int valid = min(WG_SIZE, cols - c0);                                                        \
    if (t < valid) {                                                                                  \
      real p[DIM];                                                                                    \
      load_point(points, ld, col0 + c0 + t, p);                                                       \
      STAGE(t, p);                                                                                    \
    }                                                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                     \
    if (active) {                                                                                     \
      for (int k = 0; k < valid; ++k) {                                                               \
        real b[DIM];                                                                                  \
        UNSTAGE(k, b);                                                                                \
        COUNT(BUCKET(&f, distance2(&f, a, b)));                                                       \
      }                                                                                               \
    }                                                                                                 \
  }

// Algorithm 2, lines 9-12: work-item t pairs with the block's later points.
#define INTRA_TRIANGLE(a, valid, COUNT)                                         \
  if (t < valid) {                                                              \
    for (int k = t + 1; k < valid; ++k) {                                       \
      real b[DIM];                                                              \
      UNSTAGE(k, b);                                                            \
      COUNT(BUCKET(&f, distance2(&f, a, b)));                                   \
    }                                                                           \
  }

// Section IV-E: work-item t pairs with (t + k) % WG_SIZE, k = 1 .. WG_SIZE / 2; with WG_SIZE even the
// last step is the lower half's only, so each unordered pair of the block is counted once.
#define INTRA_BALANCED(a, valid, COUNT)                                                    \
  for (int k = 1; k <= WG_SIZE / 2; ++k) {                                                 \
    const int u = (t + k) % WG_SIZE;                                                       \
    if (t < valid && u < valid && (2 * k < WG_SIZE || t < WG_SIZE / 2)) {                  \
      real b[DIM];                                                                         \
      UNSTAGE(u, b);                                                                       \
      COUNT(BUCKET(&f, distance2(&f, a, b)));                                              \
    }                                                                                      \
  }

#define COUNT_GLOBAL(bin)                     \
  {                                           \
    const int bin_ = (bin);                   \
    if ((uint)bin_ < N_BINS) GLOBAL_INC(&counts[bin_]); \
  }

// Private variants: t % REPLICAS is the work-item's copy of the group's histogram (hist, at kernel scope),
// whose buckets -1 and N_BINS take the pairs in no bucket.
#define HIST(bin, copy) hist[((bin) + 1) * REPLICAS + (copy)]
#if N_BINS == 1
#define COUNT_LOCAL(bin) mine += (uint)(bin) < N_BINS;
#elif REPLICAS == WG_SIZE
#define COUNT_LOCAL(bin) ++HIST(bin, t);
#else
#define COUNT_LOCAL(bin) atomic_inc(&HIST(bin, t & (REPLICAS - 1)));
#endif

__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void hist_tiled(PAIR_ARGS,
                                                                              __global counter* restrict counts) {
  TILED_LOCALS
  TILED_BODY(COUNT_GLOBAL, INTRA_TRIANGLE)
}

// Zeroes the work-group's copies of the histogram, runs the body, writes their sums to the group's row of
// partial (copy (r + t) % REPLICAS at step r, so that a warp's reads fall in distinct banks).
#define PRIVATE_KERNEL(name, INTRA)                                                                      \
  __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void name(PAIR_ARGS,                    \
                                                                          __global uint* restrict partial) { \
    TILED_LOCALS                                                                                        \
    __local uint hist[(N_BINS + 2) * REPLICAS];                                                         \
    uint mine = 0; /* one bucket: the work-item's count */                                              \
    for (int b = get_local_id(0); b < (N_BINS + 2) * REPLICAS; b += WG_SIZE) hist[b] = 0;               \
    TILED_BODY(COUNT_LOCAL, INTRA)                                                                      \
    if (N_BINS == 1) atomic_add(&HIST(0, t & (REPLICAS - 1)), mine);                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    for (int b = t; b < N_BINS; b += WG_SIZE) {                                                         \
      uint sum = 0;                                                                                     \
      for (int r = 0; r < REPLICAS; ++r) sum += HIST(b, (r + t) & (REPLICAS - 1));                      \
      partial[(get_group_id(1) * get_num_groups(0) + get_group_id(0)) * N_BINS + b] = sum;              \
    }                                                                                                   \
  }

#if PRIVATE_HIST
PRIVATE_KERNEL(hist_private, INTRA_TRIANGLE)
PRIVATE_KERNEL(hist_private_balanced, INTRA_BALANCED)
#endif

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
