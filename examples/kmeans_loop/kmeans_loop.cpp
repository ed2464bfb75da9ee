// Your own iterative loop over data that stays on the device, with itercl's K-Means assignment kernel.
//
// The points are uploaded once (KMeansAssignment); each iteration sends only the centroids and gets
// only the labels back. The update step here is this program's own: a "trimmed" mean that ignores each
// cluster's farthest 5% of points, which KMeans itself does not offer.
//
//   kmeans_loop [DATA_FILE [K]]     (default: 100,000 generated 2-D points, K = 8)
#include <algorithm>
#include <iostream>
#include <itercl/itercl.hpp>
#include <vector>

int main(int argc, char** argv) {
  try {
    const itercl::Matrix X = argc > 1 ? itercl::load_matrix(argv[1])
                                      : itercl::make_blobs({.n_samples = 100000, .n_features = 2, .centers = 8});
    const int k = argc > 2 ? std::stoi(argv[2]) : 8;
    const itercl::Device device = itercl::Device::select(itercl::device_spec("", "auto"));
    itercl::KMeansAssignment assignment(device, X, itercl::Precision::f32);
    std::cout << "device: " << device.info().name << ", variant " << assignment.kernel().variant << "\n";

    itercl::Matrix centroids = X.topRows(k);
    for (int iteration = 0; iteration < 20; ++iteration) {
      itercl::Timings t;
      const auto labels = assignment.assign(centroids, &t);

      // Each cluster's points sorted by distance; keep the nearest 95% for the new centre.
      std::vector<std::vector<std::pair<double, Eigen::Index>>> members(k);
      for (Eigen::Index i = 0; i < X.rows(); ++i)
        members[labels[i]].push_back({(X.row(i) - centroids.row(labels[i])).squaredNorm(), i});
      double inertia = 0;
      for (int j = 0; j < k; ++j) {
        auto& m = members[j];
        if (m.empty()) continue;  // keep an empty cluster's centre where it is
        std::sort(m.begin(), m.end());
        const std::size_t keep = std::max<std::size_t>(1, m.size() * 95 / 100);
        Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(X.cols());
        for (std::size_t r = 0; r < m.size(); ++r) {
          inertia += m[r].first;
          if (r < keep) sum += X.row(m[r].second);
        }
        centroids.row(j) = sum / static_cast<double>(keep);
      }
      std::cout << "iteration " << iteration << ": inertia " << inertia << ", assignment " << t.kernel_s * 1e3
                << " ms, transfers " << t.transfer_s * 1e3 << " ms\n";
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
