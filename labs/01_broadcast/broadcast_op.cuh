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
  // TODO(ex6) begin, about 2 lines: m.def("name(arguments) -> result") for each,
  // in the signature language of PyTorch's native_functions.yaml.
  // TODO(ex6) end
}

// ---- Exercise 6b: the checks -------------------------------------------------
//
// The shape of a + b. Anything the kernel cannot do is a TORCH_CHECK failure
// (a RuntimeError in Python) naming the operator and what is wrong.
inline Shape checked_result_shape(const char* op, const at::Tensor& a, const at::Tensor& b) {
  // TODO(ex6) begin, about 14 lines: TORCH_CHECK(condition, op, ": ", what...)
  // for: both on one device; one dtype, float32 or float16; and the shapes,
  // through exercise 4's broadcast_shapes, whose std::invalid_argument
  // becomes a TORCH_CHECK failure with its message (a.sizes().vec() is a's
  // shape as a Shape).
  throw std::logic_error(std::string(op) + "(" + shape_to_string(a.sizes().vec()) + ", " +
                         shape_to_string(b.sizes().vec()) + "): exercise 6b is not written yet");
  // TODO(ex6) end
}

// ---- Exercise 6c: the launch -------------------------------------------------
//
// out = a + b on the device, for contiguous tensors; out may be a itself.
template <class T>
void add_on_device(at::Tensor& out, const at::Tensor& a, const at::Tensor& b) {
  // TODO(ex6) begin, about 8 lines: a DeviceGuard for out; DeviceInput<T>s
  // for a and b and a DeviceOutput<T> for out (cudalab/pytorch/device_tensor.hpp);
  // exercise 4's broadcast_add<T> with kOpBlockSize on
  // cudalab::pytorch::current_stream(); CUDA_CHECK_LAUNCH(); out's write_back().
  throw std::logic_error("add_on_device(" + shape_to_string(out.sizes().vec()) + ", " +
                         shape_to_string(a.sizes().vec()) + ", " +
                         shape_to_string(b.sizes().vec()) + "): exercise 6c is not written yet");
  // TODO(ex6) end
}

// ---- Exercise 6d: the operators ----------------------------------------------
//
// broadcast_add_op: a + b, in a new tensor. Non-contiguous inputs (a
// transpose, a slice with a step) are read through contiguous copies.
// broadcast_add_in_place_op: self += other, as self.add_(other): self keeps
// its shape, so other must broadcast to it, and self must be contiguous (a
// copy would not be self). It returns self.
inline at::Tensor broadcast_add_op(const at::Tensor& a, const at::Tensor& b) {
  // TODO(ex6) begin, about 18 lines: this function's body and
  // broadcast_add_'s. Here: the checked shape, the result from
  // at::empty(shape, a.options()), add_on_device<T> for the dtype through
  // cudalab::pytorch::with_element_type(a.scalar_type(), [&]<class T>() {...}).
  // The in-place one: also refuse a broadcast shape other than self's and a
  // non-contiguous self.
  throw std::logic_error("broadcast_add(" + shape_to_string(a.sizes().vec()) + ", " +
                         shape_to_string(b.sizes().vec()) + "): exercise 6d is not written yet");
}

inline at::Tensor& broadcast_add_in_place_op(at::Tensor&, const at::Tensor&) {
  throw std::logic_error("broadcast_add_in_place_op: exercise 6d is not written yet");
  // TODO(ex6) end
}

// ---- Exercise 6e: the implementations ----------------------------------------
//
// Which C++ function implements each operator of the schema, for the device
// this build serves (the TORCH_LIBRARY_IMPL blocks below).
inline void implement_broadcast_ops([[maybe_unused]] torch::Library& m) {
  // TODO(ex6) begin, about 2 lines: m.impl("name", &function) for each.
  // TODO(ex6) end
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
