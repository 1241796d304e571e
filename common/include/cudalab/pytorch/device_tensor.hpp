// A PyTorch tensor's elements where a lab's kernel can reach them, for a
// lab's custom operator (lab 01, exercise 6), compiled for either backend:
//
//   GPU build (nvcc)   CUDA tensors: the kernel uses the tensor's own memory
//                      and runs on PyTorch's current stream of its device.
//   emulator build     CPU tensors: their bytes are host memory, which the
//                      emulator rightly refuses as device memory, so inputs
//                      are copied into emulator device memory and the result
//                      is copied back; the kernel runs on the emulator's
//                      default stream (CPU tensors have no stream).
//
//   cudalab::pytorch::with_element_type(a.scalar_type(), [&]<class T>() {
//     const cudalab::pytorch::DeviceGuard guard(out);
//     const cudalab::pytorch::DeviceInput<T> a_device(a);   // a contiguous
//     cudalab::pytorch::DeviceOutput<T> out_device(out);    // out contiguous
//     my_kernel<<<blocks, threads, 0, cudalab::pytorch::current_stream()>>>(
//         out_device.data(), a_device.data(), ...);
//     CUDA_CHECK_LAUNCH();
//     out_device.write_back();
//   });
//
// T is the kernel's element type: float for torch.float32, __half for
// torch.float16 (the same 16 bits as at::Half).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"

#if CUDALAB_GPU
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace cudalab::pytorch {
inline namespace CUDALAB_BACKEND {

// Calls f.template operator()<T>() with the element type of `dtype` (a
// template lambda: [&]<class T>() { ... }); any other dtype is a
// RuntimeError in Python.
template <class F>
decltype(auto) with_element_type(at::ScalarType dtype, F&& f) {
  switch (dtype) {
    case at::kFloat:
      return std::forward<F>(f).template operator()<float>();
    case at::kHalf:
      return std::forward<F>(f).template operator()<__half>();
    default:
      TORCH_CHECK(false, "cudalab: dtype ", dtype, " is not supported (float32 and float16 are)");
  }
}

// The tensors a build of the operator is given: the dispatcher sends CUDA
// tensors to the GPU build and CPU tensors to the emulator build, so this
// only fails when the operator's own code passes the wrong tensor along.
inline void check_backend_and_layout(const at::Tensor& tensor) {
#if CUDALAB_GPU
  TORCH_CHECK(tensor.is_cuda(), "cudalab: the GPU build expects CUDA tensors, not ",
              tensor.device());
#else
  TORCH_CHECK(tensor.is_cpu(), "cudalab: the emulator build expects CPU tensors, not ",
              tensor.device());
#endif
  TORCH_CHECK(tensor.is_contiguous(),
              "cudalab: a kernel reads a tensor's elements in row-major order; call "
              ".contiguous() before handing it over");
}

// Makes the tensor's device the current CUDA device for the launch (a tensor
// on cuda:1 while cuda:0 is current); nothing to do on the emulator.
class DeviceGuard {
 public:
  explicit DeviceGuard([[maybe_unused]] const at::Tensor& tensor) {
#if CUDALAB_GPU
    guard_.emplace(tensor.device());
#endif
  }

 private:
#if CUDALAB_GPU
  std::optional<c10::cuda::CUDAGuard> guard_;
#endif
};

// The stream a kernel of the operator runs on: PyTorch's current stream of
// the current device (at::cuda::getCurrentCUDAStream(), what `with
// torch.cuda.stream(s):` sets), so that it is ordered after the work that
// produced its inputs; the emulator's default stream for CPU tensors.
inline cudaStream_t current_stream() {
#if CUDALAB_GPU
  return at::cuda::getCurrentCUDAStream();
#else
  return nullptr;
#endif
}

// A contiguous tensor's elements where a kernel can reach them: the tensor's
// own memory on the GPU; a copy in emulator device memory on the emulator.
template <class T>
class TensorOnDevice {
 public:
  explicit TensorOnDevice(const at::Tensor& tensor) {
    check_backend_and_layout(tensor);
    TORCH_CHECK(tensor.element_size() == sizeof(T), "cudalab: ", tensor.scalar_type(),
                " is not a tensor of ", sizeof(T), "-byte elements");
    auto* host = static_cast<T*>(tensor.data_ptr());
#if CUDALAB_GPU
    data_ = host;
#else
    copy_ = DeviceBuffer<T>(std::span<const T>(host, static_cast<std::size_t>(tensor.numel())));
    data_ = copy_.data();
#endif
  }

 protected:
  T* data_ = nullptr;
#if !CUDALAB_GPU
  DeviceBuffer<T> copy_;
#endif
};

// A contiguous tensor's elements for a kernel to read.
template <class T>
class DeviceInput : TensorOnDevice<T> {
 public:
  explicit DeviceInput(const at::Tensor& tensor) : TensorOnDevice<T>(tensor) {}
  const T* data() const { return this->data_; }
};

// A contiguous tensor's elements for a kernel to write (and read: an
// in-place operator's `self`). write_back() after the launch: the GPU build
// wrote the tensor itself; the emulator build copies its result into it.
template <class T>
class DeviceOutput : TensorOnDevice<T> {
 public:
  explicit DeviceOutput(at::Tensor& tensor) : TensorOnDevice<T>(tensor), tensor_(tensor) {}
  T* data() { return this->data_; }

  void write_back() {
#if !CUDALAB_GPU
    this->copy_.copy_to_host(std::span<T>(static_cast<T*>(tensor_.data_ptr()), this->copy_.size()));
#endif
  }

 private:
  at::Tensor& tensor_;
};

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::pytorch
