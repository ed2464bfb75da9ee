// Points in chunks of rows (internal): K-Means' points when they do not fit one of the device's allocations
// or its memory (issue 11). Chunks that all fit the device's memory (above one allocation or 2^31 values,
// not above the memory) are uploaded once, each into a buffer of its own, and stay. Otherwise they stream:
// each pass uploads chunk after chunk into two device buffers, so that the upload of chunk c + 1 runs (on
// a second queue) while the kernel works on chunk c. The host keeps the caller's rows as stored (float
// stays float): each chunk is packed to the kernel's precision and layout just before its upload, into one
// of two pinned staging buffers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/pinned_buffer.hpp"
#include "itercl/device.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl::kmeans {

// Whether n x dim points in `precision` need chunks: they exceed one allocation or 32-bit indexing, or they
// and the per-point buffers that stay resident (`resident_per_point` bytes each: labels, weights) exceed
// the device's memory.
bool needs_chunks(const DeviceInfo& info, Eigen::Index n, Eigen::Index dim, Precision precision,
                  std::uint64_t resident_per_point);

// Rows a chunk's first row must be a multiple of: `group_points` (so that chunks split the points at
// the work-groups' boundaries, and per-group partial results are the resident run's), and enough that
// a sub-buffer of 4-byte values starting at that row meets the device's base-address alignment.
Eigen::Index chunk_granule(const Device& device, Eigen::Index group_points);

// The bytes a K-Means assignment keeps on the device beside the points' chunks: n labels and k x dim
// centroids in `precision`; with the device update (`sums`), the weights (if `weighted`), the K (D + 1) + 1
// fixed-point sums, D + 1 scales and two arrays of `groups` inertias. Throws InputError when the labels
// or the weights alone exceed one allocation.
std::uint64_t beside_points(const DeviceInfo& info, Eigen::Index n, Eigen::Index dim, Eigen::Index k,
                            Precision precision, bool sums, bool weighted, std::size_t groups);

// The sub-buffer of `whole` (one value of `value_bytes` per point) holding points [first, first + rows).
cl::Buffer rows_of(cl::Buffer whole, Eigen::Index first, Eigen::Index rows, std::size_t value_bytes);

class PointStream {
 public:
  // `points` are read in place at every pass: the caller keeps them alive and unchanged.
  PointStream(const Device& device, const RowsView& points, Precision precision, Eigen::RowVectorXd shift,
              Eigen::Index granule);
  ~PointStream();
  PointStream(const PointStream&) = delete;
  PointStream& operator=(const PointStream&) = delete;

  // Sizes the chunks to the memory left after `resident` bytes (labels, weights, centroids, sums): every
  // chunk if all fit, else two, each within one allocation and 32-bit indexing. Throws InputError naming
  // the sizes when not even two chunks of `granule` rows fit.
  void plan(std::uint64_t resident);

  // One pass over the points: for each chunk in order, packs and uploads it (unless it stays on the device
  // from an earlier pass), then calls launch(first, rows, points, after), which enqueues the chunk's
  // kernels on the device's queue after the events `after` and returns the event after which `points` may
  // be overwritten. Adds the uploads' time to `timings` (transfer_s). Returns when every upload is done.
  using Launch = std::function<cl::Event(Eigen::Index first, Eigen::Index rows, const cl::Buffer& points,
                                         const std::vector<cl::Event>& after)>;
  void pass(const Launch& launch, Timings* timings);

  Eigen::Index chunk_rows() const { return chunk_rows_; }
  int chunks() const;
  bool streams() const { return !kept_; }  // every pass uploads the points (after plan())
  std::uint64_t bytes_per_pass() const;    // the points' bytes uploaded per pass (0 once they stay)

 private:
  Device device_;
  RowsView points_;
  Precision precision_;
  Eigen::RowVectorXd shift_;
  Eigen::Index granule_;
  Eigen::Index chunk_rows_ = 0;
  bool kept_ = false;                // every chunk in a buffer of its own, uploaded by the first pass
  bool loaded_ = false;              // and that pass is done
  cl::CommandQueue transfer_;        // uploads, beside the device's queue that runs the kernels
  std::vector<cl::Buffer> buffers_;  // one per chunk if kept, else two used in turn
  std::array<PinnedHostBuffer, 2> staging_;
};

}  // namespace itercl::kmeans
