// Lab 01, exercise 6: exercise 4's kernel as a PyTorch operator.
//
//   the lecture, in Python:   a += b.expand_as(a)
//   with this operator:       torch.ops.cudalab.broadcast_add_(a, b)      # a += b, in place
//                             c = torch.ops.cudalab.broadcast_add(a, b)   # c = a + b
//
// The parts, in the order of PyTorch's custom-operator tutorial:
//   6a  the schema: TORCH_LIBRARY(cudalab, m) names the operators and their
//       signatures, once, for every device;
//   6b  the checks: TORCH_CHECK turns a wrong call into a Python RuntimeError
//       before anything is written;
//   6c  the launch of exercise 4's broadcast_add on the tensors' elements, on
//       PyTorch's current stream;
//   6d  the two operators;
//   6e  their registration for a device: TORCH_LIBRARY_IMPL(cudalab, CUDA, m)
//       and TORCH_LIBRARY_IMPL(cudalab, CPU, m).
//
// This file is compiled twice (cmake/CudalabTorchOp.cmake), into one library
// that Python loads with torch.ops.load_library: by nvcc for CUDA tensors
// (CUDALAB_GPU is 1; only where PyTorch has CUDA), and by the host compiler
// for CPU tensors, whose operator runs the very same kernel on cudalab's
// emulator (CUDALAB_GPU is 0). cudalab/pytorch/device_tensor.hpp hides that
// difference: on the GPU a kernel reads a CUDA tensor where it is; on the
// emulator a CPU tensor is copied into emulator device memory and back.
#pragma once

// PyTorch's headers come first: the emulator's shim (through
// broadcast_nd.cuh) defines CUDA's keywords for the host compiler.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <stdexcept>

#include "broadcast_nd.cuh"
#include "cudalab/check.hpp"
#include "cudalab/pytorch/device_tensor.hpp"

namespace lab01 {
inline namespace CUDALAB_BACKEND {

constexpr int kOpBlockSize = 256;

// ---- Exercise 6a: the schema -------------------------------------------------
//
// broadcast_add(Tensor a, Tensor b) -> Tensor, and the in-place
// broadcast_add_, whose `Tensor(a!) self` says that it writes self and
// returns it (the trailing underscore is PyTorch's name for in-place).
inline void define_broadcast_ops([[maybe_unused]] torch::Library& m) {
  m.def("broadcast_add(Tensor a, Tensor b) -> Tensor");
  m.def("broadcast_add_(Tensor(a!) self, Tensor other) -> Tensor(a!)");
}

// ---- Exercise 6b: the checks -------------------------------------------------
//
// The shape of a + b. Anything the kernel cannot do is a TORCH_CHECK failure
// (a RuntimeError in Python) naming the operator and what is wrong.
inline Shape checked_result_shape(const char* op, const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(), op, ": the tensors are on different devices, ", a.device(),
              " and ", b.device());
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), op, ": the dtypes differ, ", a.scalar_type(),
              " and ", b.scalar_type());
  TORCH_CHECK(a.scalar_type() == at::kFloat || a.scalar_type() == at::kHalf, op, ": dtype ",
              a.scalar_type(), " is not supported (float32 and float16 are)");
  // Exercise 4's broadcast_shapes says which dimension does not match (and
  // refuses more than kMaxRank dimensions).
  try {
    return broadcast_shapes(a.sizes().vec(), b.sizes().vec());
  } catch (const std::invalid_argument& error) {
    TORCH_CHECK(false, op, ": ", error.what());
  }
}

// ---- Exercise 6c: the launch -------------------------------------------------
//
// out = a + b on the device, for contiguous tensors; out may be a itself.
template <class T>
void add_on_device(at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  const cudalab::pytorch::DeviceGuard guard(out);
  const cudalab::pytorch::DeviceInput<T> a_device(a);
  const cudalab::pytorch::DeviceInput<T> b_device(b);
  cudalab::pytorch::DeviceOutput<T> out_device(out);
  broadcast_add<T>(out_device.data(), a_device.data(), a.sizes().vec(), b_device.data(),
                   b.sizes().vec(), kOpBlockSize, cudalab::pytorch::current_stream());
  CUDA_CHECK_LAUNCH();
  out_device.write_back();
}

// ---- Exercise 6d: the operators ----------------------------------------------
//
// broadcast_add_op: a + b, in a new tensor. Non-contiguous inputs (a
// transpose, a slice with a step) are read through contiguous copies.
// broadcast_add_in_place_op: self += other, as self.add_(other): self keeps
// its shape, so other must broadcast to it, and self must be contiguous (a
// copy would not be self). It returns self.
inline at::Tensor broadcast_add_op(const at::Tensor& a, const at::Tensor& b) {
  const Shape shape = checked_result_shape("broadcast_add", a, b);
  at::Tensor out = at::empty(shape, a.options());
  cudalab::pytorch::with_element_type(
      a.scalar_type(), [&]<class T>() { add_on_device<T>(out, a.contiguous(), b.contiguous()); });
  return out;
}

inline at::Tensor& broadcast_add_in_place_op(at::Tensor& self, const at::Tensor& other) {
  const Shape shape = checked_result_shape("broadcast_add_", self, other);
  TORCH_CHECK(shape == self.sizes().vec(), "broadcast_add_: self of shape ",
              shape_to_string(self.sizes().vec()), " cannot hold the broadcast shape ",
              shape_to_string(shape));
  TORCH_CHECK(self.is_contiguous(),
              "broadcast_add_: self must be contiguous (a transpose or a slice with a step is "
              "not); use self.copy_(torch.ops.cudalab.broadcast_add(self, other)) instead");
  cudalab::pytorch::with_element_type(
      self.scalar_type(), [&]<class T>() { add_on_device<T>(self, self, other.contiguous()); });
  return self;
}

// ---- Exercise 6e: the implementations ----------------------------------------
//
// Which C++ function implements each operator of the schema, for the device
// this build serves (the TORCH_LIBRARY_IMPL blocks below).
inline void implement_broadcast_ops([[maybe_unused]] torch::Library& m) {
  m.impl("broadcast_add", &broadcast_add_op);
  m.impl("broadcast_add_", &broadcast_add_in_place_op);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab01

#if CUDALAB_GPU
TORCH_LIBRARY_IMPL(cudalab, CUDA, m) { lab01::implement_broadcast_ops(m); }
#else
// Every build of the library has its emulator half, so the schema is
// registered here: once per library, as PyTorch requires.
TORCH_LIBRARY(cudalab, m) { lab01::define_broadcast_ops(m); }
TORCH_LIBRARY_IMPL(cudalab, CPU, m) { lab01::implement_broadcast_ops(m); }
#endif
