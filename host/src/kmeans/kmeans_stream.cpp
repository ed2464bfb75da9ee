#include "kmeans/kmeans_stream.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "core/device_data.hpp"
#include "core/staged_copies.hpp"
#include "itercl/error.hpp"
#include "itercl/kmeans_assignment.hpp"

namespace itercl {

void to_json(nlohmann::json& j, const KMeansStreaming& s) {
  j = {{"streamed", s.streamed}};
  if (s.chunks)
    j.update({{"chunks", s.chunks}, {"chunk_rows", s.chunk_rows}, {"bytes_per_iteration", s.bytes_per_call}});
}

namespace kmeans {

// The largest chunk: 4.9 ms of upload at the 55 GB/s the H200's bus reached (docs/kmeans.md), long beside
// a launch, and 512 MiB of pinned staging on the host for the two in turn. A bound, not a measurement.
constexpr std::uint64_t kMaxChunkBytes = std::uint64_t{256} << 20;

bool needs_chunks(const DeviceInfo& info, Eigen::Index n, Eigen::Index dim, Precision precision,
                  std::uint64_t resident_per_point) {
  const auto rows = static_cast<std::uint64_t>(n);
  const std::uint64_t points = rows * static_cast<std::uint64_t>(dim) * real_size(precision);
  const bool indexed = rows * static_cast<std::uint64_t>(dim) <= std::numeric_limits<int>::max();  // in one buffer
  return !indexed || points > info.max_allocation || points + rows * resident_per_point > info.global_memory;
}

std::uint64_t beside_points(const DeviceInfo& info, Eigen::Index n, Eigen::Index dim, Eigen::Index k,
                            Precision precision, bool sums, bool weighted, std::size_t groups) {
  const auto points = static_cast<std::uint64_t>(n);
  const std::uint64_t labels = points * sizeof(std::int32_t), weights = weighted ? points * sizeof(double) : 0;
  for (const auto& [what, bytes] : {std::pair{"labels", labels}, {"weights", weights}})
    if (bytes > info.max_allocation)
      throw InputError("data: the " + std::string(what) + " of " + std::to_string(n) + " points need " +
                       std::to_string(bytes) + " bytes; device '" + info.name + "' allocates at most " +
                       std::to_string(info.max_allocation) + " in one buffer: use more MPI ranks");
  std::uint64_t bytes = labels + static_cast<std::uint64_t>(k * dim) * real_size(precision);
  if (sums)
    bytes += weights + (static_cast<std::uint64_t>(k * (dim + 1)) + 1) * sizeof(std::int64_t) +
             (static_cast<std::uint64_t>(dim) + 1) * sizeof(double) + 2 * groups * sizeof(double);
  return bytes;
}

Eigen::Index chunk_granule(const Device& device, Eigen::Index group_points) {
  // CL_DEVICE_MEM_BASE_ADDR_ALIGN is in bits; a sub-buffer's origin must be a multiple of it (OpenCL 1.2,
  // clCreateSubBuffer, CL_MISALIGNED_SUB_BUFFER_OFFSET).
  const auto align_bytes = static_cast<Eigen::Index>(device.device().getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8);
  return std::lcm(group_points, std::max<Eigen::Index>(1, align_bytes / 4));
}

cl::Buffer rows_of(cl::Buffer whole, Eigen::Index first, Eigen::Index rows, std::size_t value_bytes) {
  const cl_buffer_region region{static_cast<std::size_t>(first) * value_bytes,
                                static_cast<std::size_t>(rows) * value_bytes};
  return whole.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &region);  // flags 0: the whole buffer's
}

PointStream::PointStream(const Device& device, const RowsView& points, Precision precision, Eigen::RowVectorXd shift,
                         Eigen::Index granule)
    : device_(device),
      points_(points),
      precision_(precision),
      shift_(std::move(shift)),
      granule_(granule),
      transfer_(device.context(), device.device(), CL_QUEUE_PROFILING_ENABLE) {}

void PointStream::plan(std::uint64_t resident) {
  const DeviceInfo& info = device_.info();
  const Eigen::Index n = points_.rows(), dim = points_.cols();
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(dim) * real_size(precision_);
  if (resident >= info.global_memory)
    throw InputError("data: device '" + info.name + "' has " + std::to_string(info.global_memory) +
                     " bytes; the labels of " + std::to_string(n) + " points, the centroids and their sums need " +
                     std::to_string(resident) + " before any point: use fewer clusters or more MPI ranks");
  // Each chunk one allocation, indexed in 32 bits; all of them if they fit, else two (one uploading while
  // the other is read).
  const bool keep = resident + static_cast<std::uint64_t>(n) * row_bytes <= info.global_memory;
  std::uint64_t fits = std::min({info.max_allocation, kMaxChunkBytes}) / row_bytes;
  fits = std::min(fits, static_cast<std::uint64_t>(std::numeric_limits<int>::max()) / dim);
  if (!keep) fits = std::min(fits, (info.global_memory - resident) / (2 * row_bytes));
  // Whole granules, or all the points in one chunk (fewer than a granule's worth could fit then).
  const Eigen::Index rows =
      fits >= static_cast<std::uint64_t>(n) ? n : static_cast<Eigen::Index>(fits) / granule_ * granule_;
  if (rows < 1)
    throw InputError("data: device '" + info.name + "' has " + std::to_string(info.global_memory) +
                     " bytes; beside the labels, centroids and sums (" + std::to_string(resident) +
                     ") it cannot hold two chunks of " + std::to_string(granule_) + " points of " +
                     std::to_string(row_bytes) + " bytes: use fewer clusters or more MPI ranks");
  const Eigen::Index chunk = std::min(rows, n);
  if (chunk == chunk_rows_ && keep == kept_) return;
  chunk_rows_ = chunk;
  kept_ = keep;
  loaded_ = false;
  buffers_.clear();
  const auto bytes = static_cast<std::size_t>(chunk * row_bytes);
  if (kept_) {  // each chunk's own rows, so that they take no more than the points
    for (Eigen::Index first = 0; first < n; first += chunk)
      buffers_.emplace_back(device_.context(), CL_MEM_READ_ONLY,
                            static_cast<std::size_t>(std::min(chunk, n - first) * row_bytes));
  } else {
    for (int b = 0; b < 2; ++b) buffers_.emplace_back(device_.context(), CL_MEM_READ_ONLY, bytes);
  }
  for (PinnedHostBuffer& s : staging_) s = PinnedHostBuffer(device_, bytes);
}

PointStream::~PointStream() {
  try {
    transfer_.finish();  // no upload may still read a staging buffer as it goes
  } catch (...) {        // a destructor never throws
  }
}

int PointStream::chunks() const {
  return chunk_rows_ ? static_cast<int>((points_.rows() + chunk_rows_ - 1) / chunk_rows_) : 0;
}

std::uint64_t PointStream::bytes_per_pass() const {
  return kept_ ? 0 : static_cast<std::uint64_t>(points_.rows()) * points_.cols() * real_size(precision_);
}

void PointStream::pass(const Launch& launch, Timings* timings) {
  const Eigen::Index n = points_.rows(), dim = points_.cols();
  if (loaded_) {  // every chunk stays on the device
    for (Eigen::Index first = 0, c = 0; first < n; first += chunk_rows_, ++c)
      launch(first, std::min(chunk_rows_, n - first), buffers_[static_cast<std::size_t>(c)], {});
    return;
  }
  std::array<cl::Event, 2> uploaded, released;
  std::vector<cl::Event> uploads;
  for (Eigen::Index first = 0, c = 0; first < n; first += chunk_rows_, ++c) {
    const auto s = static_cast<std::size_t>(c % 2);
    const cl::Buffer& points = buffers_[kept_ ? static_cast<std::size_t>(c) : s];
    const Eigen::Index rows = std::min(chunk_rows_, n - first);
    // The staging buffer is free once its previous upload is done; the device buffer once the kernel
    // that read it is.
    if (uploaded[s]()) uploaded[s].wait();
    auto* out = static_cast<unsigned char*>(staging_[s].data());
    const auto count = static_cast<std::size_t>(rows);
    core::pack_columns_on_all_cores(points_.block(first, rows), precision_, shift_, out);
    std::vector<cl::Event> after;
    if (released[s]()) after.push_back(released[s]);
    transfer_.enqueueWriteBuffer(points, CL_FALSE, 0, count * dim * real_size(precision_), out, &after, &uploaded[s]);
    transfer_.flush();
    uploads.push_back(uploaded[s]);
    const cl::Event done = launch(first, rows, points, {uploaded[s]});
    if (!kept_) released[s] = done;  // kept, each chunk has its own buffer: nothing to wait for
    device_.queue().flush();
  }
  loaded_ = kept_;
  cl::Event::waitForEvents(uploads);
  if (timings)
    for (const cl::Event& e : uploads) timings->transfer_s += event_seconds(e);
}

}  // namespace kmeans
}  // namespace itercl
