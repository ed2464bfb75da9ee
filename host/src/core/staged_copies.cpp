#include "core/staged_copies.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <mutex>
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

enum class Direction { to_device, to_host };

// Moves `chunks` chunks through the device's two staging chunks, one crossing the bus while the host works
// on the other: `host(c, staging)` fills chunk c (to_device) or empties it (to_host), and `cross(c, staging,
// event)` enqueues its copy on `queue` (the device's, or another of its context). To the device a staging
// chunk is filled again once its last copy is done; to the host chunk c + 1 crosses while c is emptied.
// Returns the copies' transfer time and the call's wall time; blocks until all are done.
template <class Host, class Cross>
Timings pump_chunks(const Device& device, cl::CommandQueue& queue, std::size_t chunks, Direction direction, Host host,
                    Cross cross) {
  Stopwatch wall;
  Timings t;
  if (chunks == 0) return t;
  std::lock_guard lock(device.state().staging_mutex);  // one copy at a time through the device's two chunks
  std::array<PinnedHostBuffer, 2>& staging = staging_chunks(device);
  std::array<cl::Event, 2> crossed;
  const auto enqueue = [&](std::size_t c) {
    cross(c, staging[c % 2].data(), crossed[c % 2]);
    queue.flush();
  };
  if (direction == Direction::to_device) {
    std::vector<cl::Event> copies;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (crossed[c % 2]()) crossed[c % 2].wait();  // the chunk is free again once its copy is done
      host(c, staging[c % 2].data());
      enqueue(c);
      copies.push_back(crossed[c % 2]);
    }
    cl::Event::waitForEvents(copies);
    for (const cl::Event& e : copies) t.transfer_s += event_seconds(e);
  } else {
    enqueue(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      crossed[c % 2].wait();
      t.transfer_s += event_seconds(crossed[c % 2]);
      if (c + 1 < chunks) enqueue(c + 1);  // the next chunk crosses while this one is copied out
      host(c, staging[c % 2].data());
    }
  }
  t.wall_s = wall.seconds();
  return t;
}

// A plain copy of `size` bytes on all cores: how a chunk of ordinary memory enters or leaves a staging chunk.
void copy_on_all_cores(void* to, const void* from, std::size_t size) {
  parallel_blocks(size, worker_count(size / 4), [&](std::size_t begin, std::size_t end, int) {
    std::memcpy(static_cast<unsigned char*>(to) + begin, static_cast<const unsigned char*>(from) + begin, end - begin);
  });
}

constexpr std::size_t kChunk = Device::State::kStagingBytes;

}  // namespace

Timings upload_columns(const Device& device, const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift,
                       const cl::Buffer& out) {
  const Eigen::Index n = rows.rows(), dim = rows.cols();
  const std::size_t value = real_size(precision);
  if (n == 0 || dim == 0) return {};
  // Whole rows a chunk: each chunk is dim column pieces of `rows` values, one rectangle of the buffer.
  const Eigen::Index chunk_rows = std::max<Eigen::Index>(1, static_cast<Eigen::Index>(kChunk / (value * dim)));
  const auto first_row = [&](std::size_t c) { return static_cast<Eigen::Index>(c) * chunk_rows; };
  const auto count = [&](std::size_t c) { return std::min(chunk_rows, n - first_row(c)); };
  return pump_chunks(
      device, device.queue(), static_cast<std::size_t>((n + chunk_rows - 1) / chunk_rows), Direction::to_device,
      [&](std::size_t c, void* packed) {
        pack_columns_on_all_cores(rows.block(first_row(c), count(c)), precision, shift, packed);
      },
      [&](std::size_t c, void* packed, cl::Event& copied) {
        // dim pieces of count values, at column j's rows [first, first + count) of the buffer.
        const auto ucount = static_cast<std::size_t>(count(c));
        const cl::array<cl::size_type, 3> at{static_cast<cl::size_type>(first_row(c)) * value, 0, 0}, from{0, 0, 0},
            region{ucount * value, static_cast<cl::size_type>(dim), 1};
        device.queue().enqueueWriteBufferRect(out, CL_FALSE, at, from, region, static_cast<cl::size_type>(n) * value, 0,
                                              ucount * value, 0, packed, nullptr, &copied);
      });
}

Timings upload(const Device& device, const void* in, std::size_t bytes, const cl::Buffer& out, std::size_t offset) {
  const auto size = [bytes](std::size_t c) { return std::min(kChunk, bytes - c * kChunk); };
  return pump_chunks(
      device, device.queue(), (bytes + kChunk - 1) / kChunk, Direction::to_device,
      [&](std::size_t c, void* to) {
        copy_on_all_cores(to, static_cast<const unsigned char*>(in) + c * kChunk, size(c));
      },
      [&](std::size_t c, void* from, cl::Event& copied) {
        device.queue().enqueueWriteBuffer(out, CL_FALSE, offset + c * kChunk, size(c), from, nullptr, &copied);
      });
}

Timings download_chunks(const Device& device, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes,
                        const ChunkConsumer& consume, const CopyQueue& on) {
  const auto size = [bytes](std::size_t c) { return std::min(kChunk, bytes - c * kChunk); };
  cl::CommandQueue& queue = on.queue ? *on.queue : device.queue();
  const std::vector<cl::Event>* after = on.after.empty() ? nullptr : &on.after;
  return pump_chunks(
      device, queue, (bytes + kChunk - 1) / kChunk, Direction::to_host,
      [&](std::size_t c, const void* from) { consume(c * kChunk, from, size(c)); },
      [&](std::size_t c, void* to, cl::Event& read) {
        queue.enqueueReadBuffer(buffer, CL_FALSE, offset + c * kChunk, size(c), to, after, &read);
      });
}

Timings download(const Device& device, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes, void* out,
                 const CopyQueue& on) {
  return download_chunks(
      device, buffer, offset, bytes,
      [out](std::size_t at, const void* from, std::size_t size) {
        copy_on_all_cores(static_cast<unsigned char*>(out) + at, from, size);
      },
      on);
}

}  // namespace itercl::core
