// Test data the SMACOF test files share.
#pragma once

#include "reference/smacof_reference.hpp"
#include "test_support.hpp"

namespace smacof_test_data {

// Dissimilarities that no embedding fits exactly: distances of random 4-D points, perturbed.
inline itercl::Matrix noisy_delta(Eigen::Index n, std::uint64_t seed) {
  itercl::Matrix d = reference::distances(test::random_matrix(n, 4, seed, 1.0, 3.0));
  const itercl::Matrix noise = test::random_matrix(n, n, seed + 1).cwiseAbs() * 0.3;
  d += noise + noise.transpose();
  d.diagonal().setZero();
  return d;
}

// The H200 as its OpenCL driver describes it (benchmarks/results/nvidia-h200/kmeans-defaults-merged.json):
// the database's devices/NVIDIA H200 entry applies; 139.8 GiB, 34.9 GiB in one allocation.
inline itercl::DeviceInfo h200() {
  itercl::DeviceInfo info;
  info.name = "NVIDIA H200";
  info.type = "gpu";
  info.vendor = "NVIDIA Corporation";
  info.compute_units = 132;
  info.max_work_group_size = 1024;
  info.global_memory = 150109880320;
  info.max_allocation = 37527470080;
  info.local_memory = 49152;  // 48 KiB a work-group, as NVIDIA's OpenCL reports it
  return info;
}

}  // namespace smacof_test_data
