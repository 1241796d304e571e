// DeviceBuffer<T>: an array in GPU global memory that frees itself.
//
//   DeviceBuffer<float> x(host_values);     // cudaMalloc + copy up
//   DeviceBuffer<float> y(x.size());        // cudaMalloc, contents undefined
//   launch(kernel, shape, x.data(), y.data(), y.size());
//   std::vector<float> result = y.copy_to_host();
//
// Move-only, like std::unique_ptr: two owners of one allocation would free it
// twice. Sizes are element counts; bytes() is the allocation in bytes. A
// buffer of zero elements is allowed and allocates nothing (data() is null).
// Every CUDA call is checked and throws cudalab::CudaError; a copy whose sizes
// do not match throws std::invalid_argument before touching either side.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

template <class T>
class DeviceBuffer {
  // Copying to and from the device is a byte copy.
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer holds trivially copyable types");

 public:
  DeviceBuffer() = default;

  // `count` elements, uninitialised (as cudaMalloc leaves them).
  explicit DeviceBuffer(std::size_t count) : size_(count) {
    if (count == 0) return;
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
      throw std::invalid_argument("DeviceBuffer: " + std::to_string(count) + " elements of " +
                                  std::to_string(sizeof(T)) + " bytes overflow size_t");
    }
    void* memory = nullptr;
    CUDA_CHECK(cudaMalloc(&memory, bytes()));
    data_ = static_cast<T*>(memory);
  }

  // A device copy of `host`.
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) {
    copy_from_host(host);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(std::span<const T>(host)) {}

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  // Never throws: a failing cudaFree here (say, after the context died from an
  // earlier fault) has already been reported by the call that saw the fault.
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

  void copy_from_host(std::span<const T> host) {
    require_same_size("copy_from_host", host.size());
    if (empty()) return;
    CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }

  void copy_to_host(std::span<T> host) const {
    require_same_size("copy_to_host", host.size());
    if (empty()) return;
    CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }

  std::vector<T> copy_to_host() const {
    std::vector<T> host(size_);
    copy_to_host(std::span<T>(host));
    return host;
  }

  // Sets every byte to `byte_value` (cudaMemset): 0 gives zeros for integers
  // and floats alike; 0xFF gives NaNs for floats, handy as "not yet written".
  void fill_bytes(int byte_value) {
    if (empty()) return;
    CUDA_CHECK(cudaMemset(data_, byte_value, bytes()));
  }

 private:
  void require_same_size(const char* operation, std::size_t host_size) const {
    if (host_size == size_) return;
    throw std::invalid_argument("DeviceBuffer::" + std::string(operation) +
                                ": the device buffer has " + std::to_string(size_) +
                                " elements but the host side has " + std::to_string(host_size));
  }

  void release() noexcept {
    if (data_ != nullptr) {
      static_cast<void>(cudaFree(data_));
      data_ = nullptr;
    }
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
