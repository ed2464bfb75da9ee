// The device half of the PageRank formats (internal): each holds its layout of the link graph
// resident on the device and enqueues the sum over in-links, s = A z, for the driver's loop.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel_args.hpp"
#include "core/staged_copies.hpp"
#include "itercl/device.hpp"
#include "itercl/error.hpp"
#include "itercl/pagerank.hpp"
#include "pagerank/pagerank_kernel.hpp"

namespace itercl::pagerank {

// What one multiplication enqueued or did: the driver reads the events' times once the iteration's
// last command has completed.
struct SpmvWork {
  std::vector<cl::Event> kernels, transfers;
  double host_s = 0;  // the hybrid's CPU rows
};

class SpmvFormat {
 public:
  virtual ~SpmvFormat() = default;
  // Enqueues s = A z on the device's queue. z holds n + 1 values (z[n] = 0); rows without in-links
  // may be left untouched (s is zero from the start). May block for the CPU's share (hybrid).
  virtual void multiply(const cl::Buffer& z, const cl::Buffer& s, SpmvWork& work) = 0;
  const PageRankFormatStats& stats() const { return stats_; }

 protected:
  PageRankFormatStats stats_;
};

// Builds `kernel.format` (resolved: no zeros or "auto") from the problem's in-links and uploads it, by the
// table's maker, adding the upload's time to `upload`. The kernels are built with `options` (defines()).
std::unique_ptr<SpmvFormat> make_spmv_format(const Device& device, const Problem& problem, const PageRankKernel& kernel,
                                             const std::string& options, Timings& upload);

// A read-only device buffer holding `values` (at least one element's room, so empty arrays are
// valid buffers), written through the staging chunks (a blocking copy) whose time is added to `upload`. Throws
// InputError naming `what` if it exceeds the device's largest allocation.
template <class T>
cl::Buffer upload_buffer(const Device& device, const std::vector<T>& values, const char* what, Timings& upload) {
  const std::size_t bytes = std::max<std::size_t>(values.size(), 1) * sizeof(T);
  if (bytes > device.info().max_allocation)
    throw InputError(std::string(what) + ": " + std::to_string(bytes) + " bytes; device '" + device.info().name +
                     "' allocates at most " + std::to_string(device.info().max_allocation) + " in one buffer");
  cl::Buffer buffer(device.context(), CL_MEM_READ_ONLY, bytes);
  upload.transfer_s += core::upload(device, values.data(), values.size() * sizeof(T), buffer).transfer_s;
  return buffer;
}

// Link positions (CSR offsets, csr_adaptive's block starts) as the kernels read them: 4-byte ints, or
// 8-byte longs where `options` chose wide offsets (pagerank_kernel.hpp's wide_offsets).
cl::Buffer upload_offsets(const Device& device, const std::vector<std::int64_t>& offsets, const std::string& options,
                          const char* what, Timings& upload);

// A weighted format's link values in the sums' precision, uploaded as upload_buffer does; a graph without
// weights gets no buffer (nullopt) and its kernels take none.
std::optional<cl::Buffer> upload_values(const Device& device, const std::vector<double>& values, Precision precision,
                                        bool weighted, const char* what, Timings& upload);

// Sets a sum kernel's arguments: `args` in its signature's order, then the link values when the graph is
// weighted (the kernels' LINK_VALUES, cl/pagerank_links.clh, always last).
template <class... Args>
void set_link_args(cl::Kernel& kernel, const std::optional<cl::Buffer>& values, Args&&... args) {
  if (values)
    set_args(kernel, std::forward<Args>(args)..., *values);
  else
    set_args(kernel, std::forward<Args>(args)...);
}

// Enqueues `kernel` over `items` work-items rounded up to whole groups of `work_group`, appending its
// event to `events`.
inline void launch(cl::CommandQueue& queue, const cl::Kernel& kernel, std::size_t items, int work_group,
                   std::vector<cl::Event>& events) {
  const auto wg = static_cast<std::size_t>(work_group);
  events.emplace_back();
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(std::max<std::size_t>((items + wg - 1) / wg, 1) * wg),
                             cl::NDRange(wg), nullptr, &events.back());
}

// Bytes of the link graph as CSR without values (offsets and in-link ids), the formats' yardstick.
inline std::uint64_t csr_bytes(const InLinks& links) {
  return (static_cast<std::uint64_t>(links.n_nodes) + 1 + static_cast<std::uint64_t>(links.n_links())) * 4;
}

}  // namespace itercl::pagerank
