// Prototype harness for the K-Means assignment kernels: uniform random points (N x D, column-major) and
// K centroids drawn from them, labels of each candidate compared with assign_naive's (float near-ties may
// differ: the count is printed), kernel time by OpenCL events, median of 21 after 3 warm-ups. On NVIDIA
// the build adds -cl-nv-verbose and prints ptxas's register and spill lines. kmeans_proto.cl is main's
// cl/kmeans.cl (0012a2e) with kmeans_proto.patch applied, in a folder with cl/common.clh, cl/kmeans_gemm.cl
// and cl/kmeans_sums.clh (calls 1 and 2 ran from .gpu/kproto/, built so).
//   harness <dir> <N> <D> <K>, then one candidate a line on stdin:
//   <file.cl> <kernel> <WG> <PPI> <CPI> <local bytes> [build options ...]
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

static double ms(const cl::Event& e) {
  return (e.getProfilingInfo<CL_PROFILING_COMMAND_END>() - e.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-6;
}

static std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

int main(int argc, char** argv) {
  const std::string dir = argv[1];
  const int n = std::atoi(argv[2]), D = std::atoi(argv[3]), K = std::atoi(argv[4]);
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  cl::Device device;
  for (auto& p : platforms) {
    std::vector<cl::Device> ds;
    p.getDevices(CL_DEVICE_TYPE_ALL, &ds);
    for (auto& d : ds)
      if (!device() || d.getInfo<CL_DEVICE_TYPE>() == CL_DEVICE_TYPE_GPU) device = d;
  }
  const bool nvidia = device.getInfo<CL_DEVICE_VENDOR>().find("NVIDIA") != std::string::npos;
  std::printf("device %s, N %d, D %d, K %d\n", device.getInfo<CL_DEVICE_NAME>().c_str(), n, D, K);
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> points(static_cast<size_t>(n) * D), centroids(static_cast<size_t>(K) * D);
  for (auto& v : points) v = u(rng);
  std::uniform_int_distribution<int> pick(0, n - 1);
  for (int c = 0; c < K; ++c) {
    const int i = pick(rng);
    for (int d = 0; d < D; ++d) centroids[static_cast<size_t>(c) * D + d] = points[static_cast<size_t>(d) * n + i];
  }
  cl::Buffer bp(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, points.size() * 4, points.data());
  cl::Buffer bc(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, centroids.size() * 4, centroids.data());
  cl::Buffer bl(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(n) * 4);
  std::vector<int> reference(n), labels(n);

  std::string line;
  bool first = true;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string file, name;
    int wg, ppi, cpi, local_bytes;
    if (!(in >> file >> name >> wg >> ppi >> cpi >> local_bytes)) continue;
    std::string extra, word;
    while (in >> word) extra += " " + word;
    const bool gemm = name == "assign_gemm", packed = extra.find("TILE_NORMS=1") != std::string::npos;
    std::string opts = "-I " + dir + " -D REAL=float -D DIM=" + std::to_string(D) +
                       " -D WG_SIZE=" + std::to_string(wg) + " -D PPI=" + std::to_string(ppi) +
                       " -D CPI=" + std::to_string(cpi) + extra + (nvidia ? " -cl-nv-verbose" : "");
    cl::Program prog(ctx, read(dir + "/" + file));
    try {
      prog.build({device}, opts.c_str());
    } catch (...) {
      std::printf("%s %s: build failed\n%s\n", name.c_str(), opts.c_str(),
                  prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
      continue;
    }
    std::istringstream log(prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
    std::string regs, current;  // ptxas's lines for this kernel's entry function only
    for (std::string l; std::getline(log, l);) {
      if (const auto at = l.find("entry function '"); at != std::string::npos) current = l.substr(at + 16);
      if (current.rfind(name + "'", 0) == 0 &&
          (l.find("registers") != std::string::npos || l.find("spill") != std::string::npos))
        regs += "  | " + l + "\n";
    }
    cl::Kernel kernel(prog, name.c_str());
    size_t global;
    int chunk = 0;
    size_t local;
    if (name == "assign_naive") {
      global = (n + wg - 1) / wg * wg;
      kernel.setArg(0, bp), kernel.setArg(1, n), kernel.setArg(2, n), kernel.setArg(3, bc), kernel.setArg(4, K),
          kernel.setArg(5, bl);
    } else {
      if (gemm) {
        const int tp = wg / 16 * ppi, tc = 16 * cpi, tile = D * (tc + 4) + tc, pool = 2 * tp * 16;
        local = static_cast<size_t>(D * tp + std::max(tile, pool)) * 4;
        global = static_cast<size_t>((n + tp - 1) / tp) * wg;
      } else {
        const int staged = packed ? D + 1 : D % 4 == 0 ? D + 4 : D + 1;
        chunk = std::min((K + cpi - 1) / cpi * cpi, local_bytes / (staged * 4) / cpi * cpi);
        local = static_cast<size_t>(chunk) * staged * 4;
        global = static_cast<size_t>((n + wg * ppi - 1) / (wg * ppi)) * wg;
      }
      kernel.setArg(0, bp), kernel.setArg(1, n), kernel.setArg(2, n), kernel.setArg(3, bc), kernel.setArg(4, K);
      kernel.setArg(5, cl::Local(local)), kernel.setArg(6, chunk), kernel.setArg(7, bl);
    }
    std::vector<double> times;
    for (int r = 0; r < 24; ++r) {
      cl::Event e;
      q.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global), cl::NDRange(wg), nullptr, &e);
      e.wait();
      if (r >= 3) times.push_back(ms(e));
    }
    q.enqueueReadBuffer(bl, CL_TRUE, 0, static_cast<size_t>(n) * 4, labels.data());
    if (first) reference = labels, first = false;
    int differ = 0;
    for (int i = 0; i < n; ++i) differ += labels[i] != reference[i];
    std::sort(times.begin(), times.end());
    std::printf("%-13s wg %3d ppi %2d cpi %2d chunk %4d%-40s median %.4f min %.4f ms, labels differing %d\n%s",
                name.c_str(), wg, ppi, cpi, chunk, extra.c_str(), times[times.size() / 2], times[0], differ,
                regs.c_str());
    std::fflush(stdout);
  }
}
