// Probe: does NVIDIA's OpenCL compiler take inline PTX, the lane id and a TF32 tensor-core mma.sync
// (m16n8k8, f32 accumulate)? One warp; A (16 x 8) all a, B (8 x 8) all b: every element of D is 8 a b,
// whatever the fragments' layout. Each lane writes its 4 accumulators.
__kernel void probe(__global float* out, const float a, const float b) {
  uint lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  const uint ua = as_uint(a), ub = as_uint(b);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(ua), "r"(ua), "r"(ua), "r"(ua), "r"(ub), "r"(ub));
  out[lane * 4 + 0] = d0;
  out[lane * 4 + 1] = d1;
  out[lane * 4 + 2] = d2;
  out[lane * 4 + 3] = d3;
  out[128 + lane] = (float)lane;
}
