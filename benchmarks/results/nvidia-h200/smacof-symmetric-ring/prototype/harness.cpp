// Prototype harness for symmetric_ring.cl: builds packed delta from random 3-D vectors, runs the pass and
// the finish on a random 2-D X, checks x_new and the stress against a double-precision reference over
// every ordered pair (n <= 8192), and times iterations by OpenCL events.
//   harness <n> <slices> <iterations> [S] [WG]
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

static double seconds(const cl::Event& e) {
  return (e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-9;
}

int main(int argc, char** argv) {
  const int n = std::atoi(argv[1]), slices = std::atoi(argv[2]), iters = std::atoi(argv[3]);
  const int S = argc > 4 ? std::atoi(argv[4]) : 8, WG = argc > 5 ? std::atoi(argv[5]) : 256;
  const int ring = WG + 2 * S <= 256 ? 256 : WG + 2 * S <= 512 ? 512 : 1024;
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  cl::Device device;
  for (auto& p : platforms) {
    std::vector<cl::Device> ds;
    p.getDevices(CL_DEVICE_TYPE_ALL, &ds);
    for (auto& d : ds)
      if (!device() || d.getInfo<CL_DEVICE_TYPE>() == CL_DEVICE_TYPE_GPU) device = d;
  }
  std::printf("device %s\n", device.getInfo<CL_DEVICE_NAME>().c_str());
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);
  std::ifstream f(std::string(argc > 6 ? argv[6] : ".") + "/symmetric_ring.cl");
  std::stringstream src;
  src << f.rdbuf();
  cl::Program prog(ctx, src.str());
  const std::string opts =
      "-D WG=" + std::to_string(WG) + " -D S=" + std::to_string(S) + " -D RING=" + std::to_string(ring);
  try {
    prog.build({device}, opts.c_str());
  } catch (...) {
    std::printf("%s\n", prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
    return 1;
  }
  const int middle = n / 2;
  const int per = (middle + slices - 1) / slices;
  const int span = per + WG - 1, groups = n / WG;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> v(3 * static_cast<size_t>(n)), x(2 * static_cast<size_t>(n));
  for (auto& e : v) e = u(rng);
  for (auto& e : x) e = u(rng);
  std::vector<float> x2 = x;  // the pass reads the points twice over (x[i + k] without a wrap)
  x2.insert(x2.end(), x.begin(), x.end());
  cl::Buffer bv(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, v.size() * 4, v.data());
  cl::Buffer bdelta(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(n) * middle * 4);
  cl::Buffer bx[2] = {cl::Buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, x2.size() * 4, x2.data()),
                      cl::Buffer(ctx, CL_MEM_READ_WRITE, x2.size() * 4)};
  cl::Buffer brow(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(slices) * n * 8);
  cl::Buffer bring(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(slices) * groups * span * 8);
  cl::Buffer bstress(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(slices) * groups * 8);
  cl::Kernel build(prog, "build");
  build.setArg(0, bv);
  build.setArg(1, n);
  build.setArg(2, bdelta);
  q.enqueueNDRangeKernel(build, cl::NullRange, cl::NDRange(n, middle), cl::NullRange);
  q.finish();
  cl::Kernel pass(prog, "sym_pass"), finish(prog, "sym_finish");
  const float scale = 1.0f / n;
  std::vector<double> pass_s, finish_s;
  for (int it = 0; it < iters; ++it) {
    pass.setArg(0, bdelta);
    pass.setArg(1, bx[it % 2]);
    pass.setArg(2, n);
    pass.setArg(3, per);
    pass.setArg(4, brow);
    pass.setArg(5, bring);
    pass.setArg(6, bstress);
    finish.setArg(0, brow);
    finish.setArg(1, bring);
    finish.setArg(2, n);
    finish.setArg(3, slices);
    finish.setArg(4, per);
    finish.setArg(5, scale);
    finish.setArg(6, bx[(it + 1) % 2]);
    cl::Event e1, e2;
    q.enqueueNDRangeKernel(pass, cl::NullRange, cl::NDRange(n, slices), cl::NDRange(WG, 1), nullptr, &e1);
    q.enqueueNDRangeKernel(finish, cl::NullRange, cl::NDRange(n), cl::NDRange(WG), nullptr, &e2);
    q.finish();
    pass_s.push_back(seconds(e1));
    finish_s.push_back(seconds(e2));
    if (it == 0 && n <= 8192) {  // the first iteration against the reference, every ordered pair in double
      std::vector<float> got(x.size()), stress(static_cast<size_t>(slices) * groups * 2),
          dl(static_cast<size_t>(n) * middle);
      q.enqueueReadBuffer(bx[1], CL_TRUE, 0, got.size() * 4, got.data());
      q.enqueueReadBuffer(bstress, CL_TRUE, 0, stress.size() * 4, stress.data());
      q.enqueueReadBuffer(bdelta, CL_TRUE, 0, dl.size() * 4, dl.data());
      auto delta = [&](int i, int j) {  // as stored (float), packed
        int k = j - i;
        if (k < 0) k += n;
        return 2 * k <= n ? dl[static_cast<size_t>(k - 1) * n + i] : dl[static_cast<size_t>(n - k - 1) * n + j];
      };
      double worst = 0, sigma = 0, eta = 0, scale_ref = 0;
      for (int i = 0; i < n; ++i) {
        double a0 = 0, a1 = 0;
        for (int j = 0; j < n; ++j) {
          if (j == i) continue;
          const double d0 = x[2 * i] - x[2 * j], d1 = x[2 * i + 1] - x[2 * j + 1];
          const double d = std::sqrt(d0 * d0 + d1 * d1), r = d > 0 ? delta(i, j) / d : 0;
          a0 += r * d0;
          a1 += r * d1;
          sigma += (d - delta(i, j)) * (d - delta(i, j));
          eta += d * d;
        }
        worst = std::max({worst, std::abs(a0 / n - got[2 * i]), std::abs(a1 / n - got[2 * i + 1])});
        scale_ref = std::max({scale_ref, std::abs(a0 / n), std::abs(a1 / n)});
      }
      double s = 0, e = 0;
      for (size_t g = 0; g < stress.size() / 2; ++g) s += stress[2 * g], e += stress[2 * g + 1];
      std::printf(
          "check n=%d: max |x_new - ref| %.3g (largest |x_new| %.3g); stress %.9g ref %.9g; eta %.9g ref %.9g\n", n,
          worst, scale_ref, s, sigma / 2, e, eta / 2);
    }
  }
  std::sort(pass_s.begin(), pass_s.end());
  std::sort(finish_s.begin(), finish_s.end());
  const double p = pass_s[pass_s.size() / 2] * 1e3, fi = finish_s[finish_s.size() / 2] * 1e3;
  std::printf("n=%d slices=%d S=%d WG=%d: pass %.3f ms, finish %.3f ms, total %.3f ms (delta %.2f GB at %.2f TB/s)\n",
              n, slices, S, WG, p, fi, p + fi, n * 1.0 * middle * 4 / 1e9, n * 1.0 * middle * 4 / (p * 1e-3) / 1e12);
  return 0;
}
