// Prototype (issue 13, SMACOF at n = 65,536): the Guttman transform over packed storage with each
// unordered pair's terms computed once. Packed storage as cl/smacof.cl holds it: the pair (i, i + k mod n),
// 1 <= k <= n/2, at (k - 1) * n + i. Work-item t of group g owns row i = g * WG + t: at each k of its
// slice it evaluates the pair (i, j = i + k) once, adds r (x_i - x_j) to its row's sum in registers and
// r (x_j - x_i) to row j's sum in a local ring of the rows the group's window reaches (offsets o = t + k
// from the group's first row). Within a batch of S steps a step's work-items touch distinct rows, and
// different steps write different copies of the ring, so no two work-items ever add to one place
// between the barriers that end the batches. After each batch the rows no later step reaches are summed
// over the copies and written out (partial_ring), the finish adds every row's pieces.
//   -D WG=256, -D S=8 (copies = steps a batch), -D RING=512 (a power of two >= WG + 2 S), DIM 2, float.
#define DIM 2

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void sym_pass(
    __global const float* restrict delta, __global const float2* restrict x, const int n, const int per_slice,
    __global float2* restrict partial_row, __global float2* restrict partial_ring,
    __global float* restrict partial_stress) {
  __local float2 ring[S][RING];
  __local float scratch[2 * WG];
  const int t = get_local_id(0), g = get_group_id(0), slice = get_group_id(1), groups = get_num_groups(0);
  const int i0 = g * WG, i = i0 + t;
  const int middle = n / 2;
  const int kf = slice * per_slice + 1, kl = min(middle, (slice + 1) * per_slice);
  const int span = per_slice + WG - 1;  // the ring offsets a slice's window reaches: kf .. kl + WG - 1
  __global float2* out = partial_ring + ((ulong)slice * groups + g) * span;
  for (int a = 0; a < S; ++a)
    for (int o = t; o < RING; o += WG) ring[a][o] = (float2)(0, 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  const float2 xi = x[i];
  float2 acc = (float2)(0, 0);
  float sigma = 0, eta = 0;
  // The pair of row i at k (j = i + k mod n): x holds its n points twice (2n), so x[i + k] needs no wrap.
#define PAIR(K, A, XJ, DL, KEEP)                                       \
  do {                                                                 \
    const float2 diff = xi - (XJ);                                     \
    const float d2 = diff.x * diff.x + diff.y * diff.y;                \
    const float inv = d2 > 0 ? rsqrt(d2) : 0.0f;                       \
    const float ratio = (KEEP) * (DL) * inv;                           \
    const float2 term = ratio * diff;                                  \
    acc += term;                                                       \
    ring[A][(t + (K)) & (RING - 1)] -= term;                           \
    const float e = d2 * inv - (DL);                                   \
    sigma += (KEEP) * e * e;                                           \
    eta += (KEEP) * d2;                                                \
  } while (0)
  // Whole batches of S steps below n/2 (for an even n, the k = n/2 pairs are stored for both rows: only
  // rows below n/2 take them), then the rest one step at a time. Each batch's loads are issued before
  // the batch before it is computed, so that the barriers between batches do not wait for memory.
  const int whole_end = min(kl, n % 2 == 0 ? middle - 1 : middle);
  int flushed = kf - 1;  // offsets up to here are written out
  int kb = kf;
  float dl[S];
  float2 xj[S];
  if (kb + S - 1 <= whole_end) {
    __global const float* dp = delta + (ulong)(kb - 1) * n + i;
#pragma unroll
    for (int a = 0; a < S; ++a) {
      dl[a] = dp[(ulong)a * n];
      xj[a] = x[i + kb + a];
    }
  }
  for (; kb + S - 1 <= whole_end; kb += S) {
    float dl_now[S];
    float2 xj_now[S];
#pragma unroll
    for (int a = 0; a < S; ++a) {
      dl_now[a] = dl[a];
      xj_now[a] = xj[a];
    }
    // The next batch's values (past the whole batches: this one's again, never used).
    const int kn = kb + 2 * S - 1 <= whole_end ? kb + S : kb;
    __global const float* dp = delta + (ulong)(kn - 1) * n + i;
#pragma unroll
    for (int a = 0; a < S; ++a) {
      dl[a] = dp[(ulong)a * n];
      xj[a] = x[i + kn + a];
    }
#pragma unroll
    for (int a = 0; a < S; ++a) PAIR(kb + a, a, xj_now[a], dl_now[a], 1.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    // Offsets up to the batch's last k are complete: add their copies, write them, clear them. The next
    // batch writes no slot of theirs (RING >= WG + 2 S), so it need not wait for this.
    for (int o = flushed + 1 + t; o < kb + S; o += WG) {
      float2 sum = (float2)(0, 0);
      for (int a = 0; a < S; ++a) {
        sum += ring[a][o & (RING - 1)];
        ring[a][o & (RING - 1)] = (float2)(0, 0);
      }
      out[o - kf] = sum;
    }
    flushed = kb + S - 1;
  }
  {
    __global const float* dp = delta + (ulong)(kb - 1) * n + i;
    for (int a = 0; kb + a <= kl; ++a)
      PAIR(kb + a, a, x[i + kb + a], dp[(ulong)a * n], (2 * (kb + a) == n && i >= middle) ? 0.0f : 1.0f);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // The window's tail: offsets past the last k.
  for (int o = flushed + 1 + t; o <= kl + WG - 1; o += WG) {
    float2 sum = (float2)(0, 0);
    for (int a = 0; a < S; ++a) sum += ring[a][o & (RING - 1)];
    out[o - kf] = sum;
  }
  partial_row[(ulong)slice * n + i] = acc;
  // The group's stress sums, a fixed order.
  scratch[2 * t] = sigma;
  scratch[2 * t + 1] = eta;
  for (int stride = 1; stride < WG; stride *= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t % (2 * stride) == 0) {
      scratch[2 * t] += scratch[2 * (t + stride)];
      scratch[2 * t + 1] += scratch[2 * (t + stride) + 1];
    }
  }
  if (t == 0) {
    partial_stress[2 * (slice * groups + g)] = scratch[0];
    partial_stress[2 * (slice * groups + g) + 1] = scratch[1];
  }
}

// x_new_r = scale * (every slice's row sum of r + every window piece that reached r).
__kernel void sym_finish(__global const float2* restrict partial_row, __global const float2* restrict partial_ring,
                         const int n, const int slices, const int per_slice, const float scale,
                         __global float2* restrict x_new) {
  const int r = get_global_id(0);
  if (r >= n) return;
  const int groups = n / WG, middle = n / 2, span = per_slice + WG - 1;
  float2 sum = (float2)(0, 0);
  for (int s = 0; s < slices; ++s) {
    sum += partial_row[(ulong)s * n + r];
    // The groups whose window reached r: offset o - kf = (r - kf - g WG) mod n within the slice's span,
    // from the group just below r - kf down.
    const int kf = s * per_slice + 1, kl = min(middle, (s + 1) * per_slice), last = kl - kf + WG - 1;
    int base = r - kf;
    if (base < 0) base += n;
    int g = base / WG;
    for (int o = base - g * WG; o <= last; o += WG) {
      sum += partial_ring[((ulong)s * groups + g) * span + o];
      g = g == 0 ? groups - 1 : g - 1;
    }
  }
  x_new[r] = x_new[r + n] = scale * sum;  // twice, as the pass reads it
}

// Packed delta of 3-D vectors (column-major), euclidean.
__kernel void build(__global const float* restrict v, const int n, __global float* restrict delta) {
  const int i = get_global_id(0), k = get_global_id(1) + 1;
  if (i >= n) return;
  const int j = i + k < n ? i + k : i + k - n;
  float acc = 0;
  for (int f = 0; f < 3; ++f) {
    const float d = v[f * n + i] - v[f * n + j];
    acc += d * d;
  }
  delta[(ulong)(k - 1) * n + i] = sqrt(acc);
}
