// Prototype harness for cl/pair_histogram.cl's private histogram (issue 13): N uniform 3-D float points
// in the unit cube (mt19937 seed 1), 256 uniform buckets over [0, sqrt 3] with the library's thresholds
// (the least d2 whose correctly rounded root reaches each edge), kernel time by OpenCL events, median of
// 5 after a warm-up. Prints each build's ptxas lines (-cl-nv-verbose) and writes its PTX to <out>.
//   harness <dir> <N> <out>, then one candidate a line on stdin:
//   <label> <file.cl> <kernel> <diag|off> <WG> <anchors a work-item> [build options ...]
//   diag: the one diagonal rectangle of all N points (pairs i < j); off: anchors [0, N/2) against [N/2, N).
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
#include <algorithm>
#include <cmath>
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

// The least float t >= 0 whose correctly rounded root is >= e (strict: > e).
static float least_reaching(float e, bool strict) {
  float t = static_cast<float>(static_cast<double>(e) * e);
  auto ok = [&](float v) { return strict ? std::sqrt(v) > e : std::sqrt(v) >= e; };
  while (t > 0 && ok(std::nextafter(t, 0.0f))) t = std::nextafter(t, 0.0f);
  while (!ok(t)) t = std::nextafter(t, INFINITY);
  return t;
}

int main(int argc, char** argv) {
  const std::string dir = argv[1], out = argv[3];
  const int n = std::atoi(argv[2]), bins = 256;
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
  const int units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  std::printf("device %s, %d units, N %d\n", device.getInfo<CL_DEVICE_NAME>().c_str(), units, n);
  cl::Context ctx(device);
  cl::CommandQueue q(ctx, device, CL_QUEUE_PROFILING_ENABLE);

  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 1);
  std::vector<float> points(static_cast<size_t>(n) * 3);
  for (auto& v : points) v = u(rng);
  const double lo = 0, hi = std::sqrt(3.0), step = (hi - lo) / bins;
  std::vector<float> table(bins + 2);
  for (int k = 0; k < bins; ++k) table[k] = least_reaching(static_cast<float>(k * step + lo), false);
  table[bins] = least_reaching(static_cast<float>(hi), true);
  table[bins + 1] = std::nextafter(table[bins], 0.0f);
  std::vector<float> box(3, 1.0f);
  cl::Buffer bp(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, points.size() * 4, points.data());
  cl::Buffer bt(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, table.size() * 4, table.data());
  cl::Buffer bb(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, box.size() * 4, box.data());

  std::string line;
  std::vector<unsigned long long> reference[2];
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string label, file, name, mode;
    int wg, apw;
    if (!(in >> label >> file >> name >> mode >> wg >> apw)) continue;
    std::string extra, word;
    while (in >> word) extra += " " + word;
    const bool diag = mode == "diag";
    std::string opts = "-I " + dir + " -D REAL=float -D DIM=3 -D N_BINS=256 -D BINNING=BIN_UNIFORM -D GLOBAL64=1" +
                       " -D WG_SIZE=" + std::to_string(wg) + extra + (nvidia ? " -cl-nv-verbose" : "");
    cl::Program prog(ctx, read(dir + "/" + file));
    try {
      prog.build({device}, opts.c_str());
    } catch (...) {
      std::printf("%s: build failed\n%s\n", label.c_str(), prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device).c_str());
      continue;
    }
    {
      const auto binaries = prog.getInfo<CL_PROGRAM_BINARIES>();
      std::ofstream(out + "/" + label + ".ptx", std::ios::binary)
          .write(reinterpret_cast<const char*>(binaries[0].data()), binaries[0].size());
    }
    std::istringstream log(prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
    std::string regs, current;
    for (std::string l; std::getline(log, l);) {
      if (const auto at = l.find("entry function '"); at != std::string::npos) current = l.substr(at + 16);
      if (current.rfind(name + "'", 0) == 0 &&
          (l.find("registers") != std::string::npos || l.find("spill") != std::string::npos))
        regs += "  | " + l + "\n";
    }
    const int rows = diag ? n : n / 2, col0 = diag ? 0 : n / 2, cols = rows;
    const int groups = rows / (wg * apw), blocks = cols / wg;
    int splits = 1;
    while (groups * splits < units * 64 && splits < blocks) ++splits;
    cl::Buffer partial(ctx, CL_MEM_READ_WRITE, static_cast<size_t>(groups) * splits * bins * 4);
    cl::Kernel kernel(prog, name.c_str());
    int a = 0;
    kernel.setArg(a++, bp), kernel.setArg(a++, n), kernel.setArg(a++, 0), kernel.setArg(a++, rows);
    kernel.setArg(a++, col0), kernel.setArg(a++, cols), kernel.setArg(a++, diag ? 1 : 0), kernel.setArg(a++, bb);
    kernel.setArg(a++, static_cast<float>(lo)), kernel.setArg(a++, static_cast<float>(hi));
    kernel.setArg(a++, static_cast<float>(bins / (hi - lo))), kernel.setArg(a++, bt), kernel.setArg(a++, partial);
    std::vector<double> times;
    std::vector<unsigned> got(static_cast<size_t>(groups) * splits * bins);
    for (int r = 0; r < 6; ++r) {
      cl::Event e;
      q.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(static_cast<size_t>(groups) * wg, splits),
                             cl::NDRange(wg, 1), nullptr, &e);
      e.wait();
      if (r > 0) times.push_back(ms(e));
    }
    q.enqueueReadBuffer(partial, CL_TRUE, 0, got.size() * 4, got.data());
    std::vector<unsigned long long> counts(bins);
    unsigned long long total = 0;
    for (size_t g = 0; g < got.size(); ++g) counts[g % bins] += got[g], total += got[g];
    auto& ref = reference[diag];
    const char* same = ref.empty() ? "reference" : counts == ref ? "same counts" : "COUNTS DIFFER";
    if (ref.empty()) ref = counts;
    std::sort(times.begin(), times.end());
    const double pairs = diag ? 0.5 * n * (n - 1.0) : 1.0 * rows * cols, med = times[times.size() / 2];
    std::printf("%-28s %-4s %8.2f ms (min %.2f) %7.1f G pairs/s  %s (counted %llu of %.0f, splits %d)\n%s",
                label.c_str(), mode.c_str(), med, times[0], pairs / med * 1e-6, same, total, pairs, splits,
                regs.c_str());
    std::fflush(stdout);
  }
}
