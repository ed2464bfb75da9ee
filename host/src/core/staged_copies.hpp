// Copies between host memory and the device at the bus's rate, through the device's two pinned staging
// chunks (internal): no pinned copy of the whole is made, and each chunk crosses while the next is prepared.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "itercl/device.hpp"
#include "itercl/rows.hpp"
#include "itercl/timing.hpp"

namespace itercl::core {

// pack_column_major of all of `rows` (ld = rows.rows()) into `out`, a block of rows on each core: how a
// staging chunk is filled.
void pack_columns_on_all_cores(const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift, void* out);

// Rows [0, rows.rows()) of `rows`, less `shift` per column, in `precision`, into `out` column-major with
// ld = rows.rows() (the layout of pack_column_major). The rows are packed on all cores into the device's
// two pinned staging chunks, kept from one call to the next, and each chunk's copy runs while the next is
// packed, so the call takes about as long as the slower of the two and no copy of the whole is made.
// Returns the copies' transfer time and the call's wall time. Blocks until the copies are done.
Timings upload_columns(const Device& device, const RowsView& rows, Precision precision, const Eigen::RowVectorXd& shift,
                       const cl::Buffer& out);

// `bytes` bytes from `in` (ordinary host memory) into `out` from `offset`, a chunk at a time through the
// staging chunks, each copied in on all cores while the one before crosses. Returns the copies' transfer
// time and the call's wall time. Blocks until done.
Timings upload(const Device& device, const void* in, std::size_t bytes, const cl::Buffer& out, std::size_t offset = 0);

// Where a download's copies go: the device's queue (no `queue`), or another queue of the device's context,
// after the events `after` (of any queue), so that the copies overlap the kernels enqueued meanwhile on
// the device's queue.
struct CopyQueue {
  cl::CommandQueue* queue = nullptr;
  std::vector<cl::Event> after;
};

// Takes the chunks of download() as they arrive: consume(first byte, chunk, its bytes), in order. Each chunk
// holds whole values of any type up to 8 bytes.
using ChunkConsumer = std::function<void(std::size_t, const void*, std::size_t)>;

// download(), each chunk handed to `consume` instead of copied: for a caller that converts or rearranges the
// values on their way out, with no copy of the whole in between.
Timings download_chunks(const Device& device, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes,
                        const ChunkConsumer& consume, const CopyQueue& on = {});

// `bytes` bytes of `buffer` from `offset` into `out` (ordinary host memory), a chunk at a time through the
// staging chunks, each copied out on all cores while the next crosses. Returns the copies' transfer time and
// the call's wall time. Blocks until done.
Timings download(const Device& device, const cl::Buffer& buffer, std::size_t offset, std::size_t bytes, void* out,
                 const CopyQueue& on = {});

}  // namespace itercl::core
