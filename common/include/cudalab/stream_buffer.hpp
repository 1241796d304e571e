// StreamBuffer<T>: device memory that lives in a stream's order.
//
//   cudalab::StreamBuffer<float> scratch(count, stream);  // cudaMallocAsync on `stream`
//   ... kernels and copies on `stream` use scratch.data() ...
//   // destructor: cudaFreeAsync on `stream`, after the work queued before it
//
// For scratch space inside a sequence of stream-ordered work: unlike
// DeviceBuffer (cudaMalloc/cudaFree, which may synchronise the device), it
// neither waits nor makes anyone wait, and the pool hands the same block
// back on the next call. Use the memory only from work on `stream` (or
// ordered after it). Move-only; zero elements allocate nothing.
#pragma once

#include <cstddef>
#include <utility>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

template <class T>
class StreamBuffer {
 public:
  StreamBuffer(std::size_t count, cudaStream_t stream) : size_(count), stream_(stream) {
    if (count > 0) CUDA_CHECK(cudaMallocAsync(&data_, count * sizeof(T), stream));
  }
  ~StreamBuffer() {
    if (data_ != nullptr) static_cast<void>(cudaFreeAsync(data_, stream_));
  }
  StreamBuffer(StreamBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(other.size_), stream_(other.stream_) {}
  StreamBuffer& operator=(StreamBuffer&&) = delete;
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
