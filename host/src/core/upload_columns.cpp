#include "core/upload_columns.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "core/device_data.hpp"
#include "core/device_state.hpp"
#include "core/parallel.hpp"

namespace itercl::core {

Timings upload_columns(const Device& device, const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift,
                       const cl::Buffer& out) {
  Stopwatch wall;
  Timings t;
  const Eigen::Index n = rows.rows(), dim = rows.cols();
  const std::size_t value = real_size(precision);
  if (n == 0 || dim == 0) return t;
  Device::State& state = device.state();
  std::lock_guard lock(state.staging_mutex);  // one upload at a time through the device's two chunks
  std::array<PinnedHostBuffer, 2>& staging = state.staging;
  for (PinnedHostBuffer& s : staging)
    if (s.size() < Device::State::kStagingBytes) s = PinnedHostBuffer(device, Device::State::kStagingBytes);
  // Whole rows a chunk: each chunk is dim column pieces of `rows` values, one rectangle of the buffer.
  const Eigen::Index chunk_rows =
      std::max<Eigen::Index>(1, static_cast<Eigen::Index>(Device::State::kStagingBytes / (value * dim)));
  cl::CommandQueue& queue = device.queue();
  std::array<cl::Event, 2> copied;
  std::vector<cl::Event> copies;
  for (Eigen::Index first = 0, c = 0; first < n; first += chunk_rows, ++c) {
    const auto s = static_cast<std::size_t>(c % 2);
    if (copied[s]()) copied[s].wait();  // the chunk is free again once its last copy is done
    const Eigen::Index count = std::min(chunk_rows, n - first);
    const RowsView chunk = rows.block(first, count);
    auto* packed = static_cast<unsigned char*>(staging[s].data());
    const auto ucount = static_cast<std::size_t>(count);
    parallel_blocks(ucount, worker_count(ucount * static_cast<std::size_t>(dim)),
                    [&](std::size_t begin, std::size_t end, int) {
                      pack_column_major(chunk.block(static_cast<Eigen::Index>(begin),
                                                    static_cast<Eigen::Index>(end - begin)),
                                        precision, packed + begin * value, shift, count);
                    });
    // dim pieces of count values, at column j's rows [first, first + count) of the buffer.
    const cl::array<cl::size_type, 3> at{static_cast<cl::size_type>(first) * value, 0, 0}, from{0, 0, 0},
        region{ucount * value, static_cast<cl::size_type>(dim), 1};
    queue.enqueueWriteBufferRect(out, CL_FALSE, at, from, region, static_cast<cl::size_type>(n) * value, 0,
                                 ucount * value, 0, packed, nullptr, &copied[s]);
    queue.flush();
    copies.push_back(copied[s]);
  }
  cl::Event::waitForEvents(copies);
  for (const cl::Event& e : copies) t.transfer_s += event_seconds(e);
  t.wall_s = wall.seconds();
  return t;
}

}  // namespace itercl::core
