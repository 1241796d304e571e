// Host memory that releases itself: page-locked (cudaMallocHost), which the
// copy engines read and write while kernels run, or ordinary pageable
// memory, which a copy must first stage through a driver buffer (lab 03's
// comparison of the two).
//
//   cudalab::HostBuffer<float> in(n, cudalab::HostMemory::pinned);
//   CUDA_CHECK(cudaMemcpyAsync(device, in.data(), in.bytes(), cudaMemcpyHostToDevice, s));
//
// Allocation is checked and throws cudalab::CudaError; freeing is not (a
// destructor must not throw). At least one element is allocated, so data()
// is never null.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {

enum class HostMemory { pinned, pageable };

inline namespace CUDALAB_BACKEND {

template <class T>
class HostBuffer {
 public:
  HostBuffer(std::size_t count, HostMemory kind) : count_(count), kind_(kind) {
    const std::size_t allocated = std::max<std::size_t>(count, 1);
    if (kind == HostMemory::pinned) {
      void* memory = nullptr;
      CUDA_CHECK(cudaMallocHost(&memory, allocated * sizeof(T)));
      data_ = static_cast<T*>(memory);
    } else {
      pageable_.resize(allocated);
      data_ = pageable_.data();
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() {
    if (kind_ == HostMemory::pinned) static_cast<void>(cudaFreeHost(data_));
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  std::size_t count_;
  HostMemory kind_;
  T* data_ = nullptr;
  std::vector<T> pageable_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
