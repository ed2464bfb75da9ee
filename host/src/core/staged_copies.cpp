#include "core/staged_copies.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "core/device_data.hpp"
#include "core/device_state.hpp"
#include "core/parallel.hpp"

namespace itercl::core {

void pack_columns_on_all_cores(const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift, void* out) {
  const auto n = static_cast<std::size_t>(rows.rows());
  auto* bytes = static_cast<unsigned char*>(out);
  parallel_blocks(
      n, worker_count(n * static_cast<std::size_t>(rows.cols())), [&](std::size_t begin, std::size_t end, int) {
        pack_column_major(rows.block(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin)),
                          precision, bytes + begin * real_size(precision), shift, rows.rows());
      });
}

namespace {

// The device's staging chunks, made at the first use; the caller holds the device's staging lock.
std::array<PinnedHostBuffer, 2>& staging_chunks(const Device& device) {
  std::array<PinnedHostBuffer, 2>& staging = device.state().staging;
  for (PinnedHostBuffer& s : staging)
    if (s.size() < Device::State::kStagingBytes) s = PinnedHostBuffer(device, Device::State::kStagingBytes);
  return staging;
}

}  // namespace

Timings upload_columns(const Device& device, const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift,
                       const cl::Buffer& out) {
  Stopwatch wall;
  Timings t;
  const Eigen::Index n = rows.rows(), dim = rows.cols();
  const std::size_t value = real_size(precision);
  if (n == 0 || dim == 0) return t;
  std::lock_guard lock(device.state().staging_mutex);  // one copy at a time through the device's two chunks
  std::array<PinnedHostBuffer, 2>& staging = staging_chunks(device);
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
    auto* packed = static_cast<unsigned char*>(staging[s].data());
    const auto ucount = static_cast<std::size_t>(count);
    pack_columns_on_all_cores(rows.block(first, count), precision, shift, packed);
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

Timings upload(const Device& device, const void* in, std::size_t bytes, const cl::Buffer& out, std::size_t offset) {
  Stopwatch wall;
  Timings t;
  if (bytes == 0) return t;
  std::lock_guard lock(device.state().staging_mutex);
  std::array<PinnedHostBuffer, 2>& staging = staging_chunks(device);
  constexpr std::size_t kChunk = Device::State::kStagingBytes;
  cl::CommandQueue& queue = device.queue();
  std::array<cl::Event, 2> copied;
  std::vector<cl::Event> copies;
  for (std::size_t at = 0, c = 0; at < bytes; at += kChunk, ++c) {
    const std::size_t s = c % 2, size = std::min(kChunk, bytes - at);
    if (copied[s]()) copied[s].wait();  // the chunk is free again once its copy is done
    auto* to = static_cast<unsigned char*>(staging[s].data());
    const auto* from = static_cast<const unsigned char*>(in) + at;
    parallel_blocks(size, worker_count(size / 4), [&](std::size_t begin, std::size_t end, int) {
      std::memcpy(to + begin, from + begin, end - begin);
    });
    queue.enqueueWriteBuffer(out, CL_FALSE, offset + at, size, to, nullptr, &copied[s]);
    queue.flush();
    copies.push_back(copied[s]);
  }
  cl::Event::waitForEvents(copies);
  for (const cl::Event& e : copies) t.transfer_s += event_seconds(e);
  t.wall_s = wall.seconds();
  return t;
}

Timings download(const Device& device, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes, void* out) {
  Stopwatch wall;
  Timings t;
  if (bytes == 0) return t;
  std::lock_guard lock(device.state().staging_mutex);
  std::array<PinnedHostBuffer, 2>& staging = staging_chunks(device);
  constexpr std::size_t kChunk = Device::State::kStagingBytes;
  cl::CommandQueue& queue = device.queue();
  const std::size_t chunks = (bytes + kChunk - 1) / kChunk;
  std::array<cl::Event, 2> read;
  auto enqueue = [&](std::size_t c) {
    const std::size_t at = c * kChunk, size = std::min(kChunk, bytes - at);
    queue.enqueueReadBuffer(buffer, CL_FALSE, offset + at, size, staging[c % 2].data(), nullptr, &read[c % 2]);
    queue.flush();
  };
  enqueue(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    read[c % 2].wait();
    t.transfer_s += event_seconds(read[c % 2]);
    if (c + 1 < chunks) enqueue(c + 1);  // the next chunk crosses while this one is copied out
    const std::size_t at = c * kChunk, size = std::min(kChunk, bytes - at);
    const auto* from = static_cast<const unsigned char*>(staging[c % 2].data());
    auto* to = static_cast<unsigned char*>(out) + at;
    parallel_blocks(size, worker_count(size / 4), [&](std::size_t begin, std::size_t end, int) {
      std::memcpy(to + begin, from + begin, end - begin);
    });
  }
  t.wall_s = wall.seconds();
  return t;
}

}  // namespace itercl::core
