// peak.cl: what a device can do at best, measured rather than taken from a datasheet, so that reports
// can say how close each kernel comes.
//
//   fma_chains   CHAINS independent chains of 8-wide fused multiply-adds per work-item, ITERATIONS steps
//                each: 16 * CHAINS * ITERATIONS flops per work-item, no memory traffic but one store.
//                8-wide vectors fill a CPU's SIMD units (PoCL does not vectorise this loop across
//                work-items itself); a GPU runs them as 8 scalar chains.
//   copy         out[i] = in[i] over real4 elements: bytes read plus bytes written per element.
//
// Parameters
//   -D REAL=float|double   (required, see common.clh)
//   -D CHAINS=2            independent 8-wide chains, enough to hide the FMA latency
//   -D ITERATIONS=1024     steps of each chain
#include "common.clh"

#ifndef CHAINS
#define CHAINS 2
#endif
#ifndef ITERATIONS
#define ITERATIONS 1024
#endif

typedef ITERCL_VEC8(REAL) real8;

__kernel void fma_chains(__global real* out, const real a, const real b) {
  const real8 a8 = (real8)(a), b8 = (real8)(b);
  real8 x[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) x[c] = (real8)((real)get_global_id(0) + c);
  for (int i = 0; i < ITERATIONS; ++i) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) x[c] = fma(x[c], a8, b8);
  }
  real8 sum = 0;
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) sum += x[c];
  // One store, so that the chains are not optimised away.
  out[get_global_id(0)] = sum.s0 + sum.s1 + sum.s2 + sum.s3 + sum.s4 + sum.s5 + sum.s6 + sum.s7;
}

__kernel void copy(__global const real4* restrict in, __global real4* restrict out) {
  out[get_global_id(0)] = in[get_global_id(0)];
}
