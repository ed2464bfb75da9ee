// The ViennaCL peer of the PageRank suite: networkx's power iteration with ViennaCL's CSR SpMV
// (compressed_matrix, values 1 / outdeg) on each OpenCL device, on the graphs itercl's suite reads:
// the real graphs (itercl's loader) and R-MAT drawn by itercl's generator with the suite's seed, so
// both run on the same links. Per graph and device: the SpMV alone and a whole iteration (SpMV, the
// dangling mass, damping, the L1 change brought to the host as a convergence test needs), the median
// wall time of `repeats` after one warm-up, each ended by a finish. Prints JSON rows as peers.py does.
//
//   viennacl_pagerank [--device gpu|cpu|all] [--scales 18,20,22] [--cpu-scale 20] [--data DIR] [--repeats 20]
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/inner_prod.hpp>
#include <viennacl/linalg/norm_1.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>

#include "itercl/graph.hpp"

namespace {

constexpr float kAlpha = 0.85f;

struct Options {
  std::string device = "all", data = "../../../shared/datasets/graphs";
  std::vector<int> scales = {18, 20, 22};
  int cpu_scale = 20;  // the largest R-MAT on CPU devices, as benchmarks/gpu.sh caps itercl's CPU runs
  int repeats = 20;
};

template <class F>
double median_ms(F&& f, int repeats) {
  f();
  viennacl::backend::finish();
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    viennacl::backend::finish();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(ms.begin(), ms.begin() + static_cast<long>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

// The in-link matrix with values 1 / outdeg (repeated links summed, as the value array adds them).
viennacl::compressed_matrix<float> link_matrix(const itercl::InLinks& L) {
  const auto n = static_cast<std::size_t>(L.n_nodes);
  std::vector<unsigned> rows(n + 1, 0), cols;
  std::vector<float> values;
  cols.reserve(L.sources.size()), values.reserve(L.sources.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::int32_t> row(L.sources.begin() + L.offsets[i], L.sources.begin() + L.offsets[i + 1]);
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k) {
      const float v = 1.0f / static_cast<float>(L.out_degree[static_cast<std::size_t>(row[k])]);
      if (k > 0 && row[k] == row[k - 1])
        values.back() += v;
      else
        cols.push_back(static_cast<unsigned>(row[k])), values.push_back(v);
    }
    rows[i + 1] = static_cast<unsigned>(cols.size());
  }
  viennacl::compressed_matrix<float> m(n, n, cols.size());
  m.set(rows.data(), cols.data(), values.data(), n, n, cols.size());
  return m;
}

nlohmann::json run(const std::string& name, const itercl::InLinks& L, const std::string& device, int repeats) {
  const auto n = static_cast<std::size_t>(L.n_nodes);
  const viennacl::compressed_matrix<float> m = link_matrix(L);
  std::vector<float> dangling_host(n);
  for (std::size_t i = 0; i < n; ++i) dangling_host[i] = L.out_degree[i] == 0 ? 1.0f : 0.0f;
  viennacl::vector<float> dangling(n), x(n), y(n), x_new(n), ones(n);
  viennacl::copy(dangling_host, dangling);
  const float p = 1.0f / static_cast<float>(n);
  x = viennacl::scalar_vector<float>(n, p);
  ones = viennacl::scalar_vector<float>(n, 1.0f);
  const double spmv = median_ms([&] { y = viennacl::linalg::prod(m, x); }, repeats);
  double change = 0;
  const double whole = median_ms(
      [&] {
        y = viennacl::linalg::prod(m, x);
        const float mass = viennacl::linalg::inner_prod(dangling, x);
        x_new = kAlpha * y + (kAlpha * mass * p + (1 - kAlpha) * p) * ones;
        change = viennacl::linalg::norm_1(x_new - x);  // to the host: the convergence test
        x.swap(x_new);
      },
      repeats);
  const double links = static_cast<double>(L.n_links());
  nlohmann::json ours = {{"group", "formats"}, {"metric", "iteration_kernel_ms"}};
  ours["varied"] = name.rfind("rmat-", 0) == 0 ? nlohmann::json{{"data.scale", std::stoi(name.substr(5))}}
                                               : nlohmann::json{{"data.path", name}};
  return {{"peer", "ViennaCL " + std::to_string(VIENNACL_MAJOR_VERSION) + "." + std::to_string(VIENNACL_MINOR_VERSION) +
                       "." + std::to_string(VIENNACL_PATCH_VERSION) + " CSR SpMV"},
          {"device", device},
          {"workload", "PageRank iteration, " + name + ", float32, with a value array"},
          {"ms", whole},
          {"spmv_ms", spmv},
          {"nodes", n},
          {"links", L.n_links()},
          {"edges_per_s", links / (whole * 1e-3)},
          {"last_change", change},
          {"ours", ours}};
}

std::string device_name(cl_device_id d) {
  char text[256] = {};
  clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof text - 1, text, nullptr);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--device")
      o.device = value;
    else if (flag == "--data")
      o.data = value;
    else if (flag == "--cpu-scale")
      o.cpu_scale = std::stoi(value);
    else if (flag == "--repeats")
      o.repeats = std::stoi(value);
    else if (flag == "--scales") {
      o.scales.clear();
      for (std::size_t at = 0; at < value.size();) {
        const std::size_t comma = std::min(value.find(',', at), value.size());
        o.scales.push_back(std::stoi(value.substr(at, comma - at)));
        at = comma + 1;
      }
    } else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  // The graphs once, then every device on each.
  std::vector<std::pair<std::string, itercl::InLinks>> graphs;
  for (const std::string file : {"hollins.dat", "p2p-Gnutella08.txt", "wiki-Vote.txt", "web-NotreDame.tar.gz"}) {
    // web-NotreDame opens with its node and edge counts ("325729 1497134"), which would read as an edge.
    itercl::GraphLoadOptions options;
    if (file == "web-NotreDame.tar.gz") options.header = true;
    if (std::filesystem::exists(std::filesystem::path(o.data) / file))
      graphs.emplace_back(file, itercl::in_links(itercl::load_graph(std::filesystem::path(o.data) / file, options)));
  }
  for (const int scale : o.scales)
    graphs.emplace_back("rmat-" + std::to_string(scale),
                        itercl::in_links(itercl::make_rmat({.scale = scale, .random_state = 1})));

  nlohmann::json rows = nlohmann::json::array();
  cl_uint n_platforms = 0;
  clGetPlatformIDs(0, nullptr, &n_platforms);
  std::vector<cl_platform_id> platforms(n_platforms);
  clGetPlatformIDs(n_platforms, platforms.data(), nullptr);
  long context_id = 0;
  for (cl_platform_id platform : platforms) {
    cl_uint n_devices = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n_devices) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(n_devices);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n_devices, devices.data(), nullptr);
    for (cl_device_id d : devices) {
      cl_device_type type = 0;
      clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
      const bool gpu = type & CL_DEVICE_TYPE_GPU, cpu = type & CL_DEVICE_TYPE_CPU;
      if ((o.device == "gpu" && !gpu) || (o.device == "cpu" && !cpu) || (!gpu && !cpu)) continue;
      viennacl::ocl::setup_context(++context_id, std::vector<cl_device_id>{d});
      viennacl::ocl::switch_context(context_id);
      for (const auto& [name, links] : graphs) {
        if (cpu && name.rfind("rmat-", 0) == 0 && std::stoi(name.substr(5)) > o.cpu_scale) continue;
        rows.push_back(run(name, links, device_name(d), o.repeats));
      }
    }
  }
  std::cout << rows.dump(1) << "\n";
  return 0;
}
