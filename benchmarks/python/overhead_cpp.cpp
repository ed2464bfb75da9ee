// The C++ side of the Python overhead measurement (overhead.sh): the same K-Means and PageRank calls
// itercl's Python package makes, timed as a C++ user makes them (the device selected once). Writes the
// inputs as .npy for overhead.py, then one JSON line per timed call on stdout.
//   overhead_cpp DIR REPEATS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <itercl/itercl.hpp>
#include <string>

namespace {

// The shared problem: K-Means on 2^20 points uniform in the unit cube (8 features; without clusters,
// so all 20 iterations run: a fit, not its setup, is timed), 16 clusters from the first 16 points;
// PageRank on R-MAT scale 20 (edge factor 16, 20 iterations). overhead.py holds the same.
constexpr Eigen::Index kSamples = 1 << 20, kFeatures = 8;
constexpr int kClusters = 16, kIterations = 20, kScale = 20;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The process's CPU time, all threads (PoCL's workers included): Python's time.process_time() reads the
// same clock. Less sensitive than wall time to what other processes on the machine do.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double load_average() {
  double load = 0;
  return getloadavg(&load, 1) == 1 ? load : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: overhead_cpp DIR REPEATS\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const int repeats = std::stoi(argv[2]);
  const itercl::Device device = itercl::Device::select(itercl::device_spec("", ""));

  const itercl::Matrix X = itercl::make_uniform({.n_samples = kSamples, .n_features = kFeatures, .random_state = 1});
  const itercl::Graph g = itercl::make_rmat({.scale = kScale, .random_state = 1});
  itercl::save_npy(dir / "X.npy", X);
  itercl::save_npy(dir / "src.npy", g.src);
  itercl::save_npy(dir / "dst.npy", g.dst);

  itercl::KMeansParams kp;
  kp.n_clusters = kClusters;
  kp.init = itercl::KMeansInit::given;
  kp.init_centroids = X.topRows(kClusters);
  kp.max_iter = kIterations;
  kp.tol = 0;
  itercl::PageRankParams pp;
  pp.max_iter = kIterations;
  pp.tol = 0;
  // One untimed call each first: it compiles the kernels (then in the disk cache for both sides).
  for (int r = 0; r <= repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    const itercl::KMeansResult k = itercl::KMeans(device, kp).fit(X);
    const double kmeans_s = seconds_since(t0), kmeans_cpu_s = cpu_seconds() - c0;
    t0 = std::chrono::steady_clock::now();
    c0 = cpu_seconds();
    const itercl::PageRankResult p = itercl::PageRank(device, pp).fit(itercl::in_links(g));
    const double pagerank_s = seconds_since(t0), pagerank_cpu_s = cpu_seconds() - c0;
    if (r > 0)
      std::printf(
          "{\"side\": \"c++\", \"kmeans_s\": %.6f, \"kmeans_cpu_s\": %.6f, \"kmeans_n_iter\": %d, "
          "\"pagerank_s\": %.6f, \"pagerank_cpu_s\": %.6f, \"pagerank_n_iter\": %d, \"load\": %.2f}\n",
          kmeans_s, kmeans_cpu_s, k.n_iter, pagerank_s, pagerank_cpu_s, p.n_iter, load_average());
  }
  return 0;
}
