// Builds mma_probe.cl on the first GPU and prints what came back: the build log on failure, else the
// lane ids and the accumulators (expected 8 a b everywhere).
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

int main(int argc, char** argv) {
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  cl::Device device;
  for (auto& p : platforms) {
    std::vector<cl::Device> ds;
    p.getDevices(CL_DEVICE_TYPE_GPU, &ds);
    if (!ds.empty()) device = ds[0];
  }
  if (!device()) return std::puts("no GPU"), 1;
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device);
  std::ifstream f(argv[1]);
  std::stringstream s;
  s << f.rdbuf();
  cl::Program prog(ctx, s.str());
  try {
    prog.build({device}, "-cl-nv-verbose");
  } catch (...) {
    std::printf("build failed:\n%s\n", prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
    return 2;
  }
  std::printf("built: %s\n", prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
  cl::Buffer out(ctx, CL_MEM_WRITE_ONLY, 160 * 4);
  cl::Kernel k(prog, "probe");
  k.setArg(0, out), k.setArg(1, 1.5f), k.setArg(2, 2.0f);
  q.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(32), cl::NDRange(32));
  std::vector<float> h(160);
  q.enqueueReadBuffer(out, CL_TRUE, 0, h.size() * 4, h.data());
  int good = 0;
  for (int i = 0; i < 128; ++i) good += h[i] == 24.0f;
  std::printf("accumulators equal to 8 a b = 24: %d of 128; d[0..3] %g %g %g %g; lanes 0, 1, 31: %g %g %g\n", good,
              h[0], h[1], h[2], h[3], h[128], h[129], h[159]);
  return good == 128 ? 0 : 3;
}
