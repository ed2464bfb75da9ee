// Page-locked host memory for the per-iteration copies (internal).
#pragma once

#include <cstddef>

#include "itercl/device.hpp"

namespace itercl {

// A CL_MEM_ALLOC_HOST_PTR buffer mapped once for the object's lifetime. On discrete GPUs such memory is
// page-locked, so reads and writes through it run at full bus speed with no staging copy by the driver;
// on CPU devices it is ordinary memory.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  PinnedHostBuffer(const Device& device, std::size_t bytes)
      : queue_(device.queue()), buffer_(device.context(), CL_MEM_ALLOC_HOST_PTR, bytes ? bytes : 1) {
    data_ = queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes ? bytes : 1);
    bytes_ = bytes;
  }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer(PinnedHostBuffer&& o) noexcept { *this = std::move(o); }
  PinnedHostBuffer& operator=(PinnedHostBuffer&& o) noexcept {
    release();
    std::swap(queue_, o.queue_), std::swap(buffer_, o.buffer_), std::swap(data_, o.data_), std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~PinnedHostBuffer() { release(); }

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void release() noexcept {
    if (!data_) return;
    try {
      queue_.enqueueUnmapMemObject(buffer_, data_);
      queue_.finish();
    } catch (...) {  // a destructor never throws; the context's release reclaims the mapping
    }
    data_ = nullptr;
  }

  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace itercl
