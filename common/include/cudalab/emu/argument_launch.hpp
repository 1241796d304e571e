// Launching a kernel from an array of pointers to its arguments, as
// cudaLaunchKernel(func, grid, block, args, shared_bytes, stream) and a
// graph's kernel node (cudaKernelNodeParams::kernelParams) do: the runtime
// gets only the kernel's address and `void**`, so each kernel registers how
// to read its parameters from such an array. tools/emu_rewrite.py makes
// every __global__ kernel's body start by taking the address of
// launchable_from_arguments<kernel>; taking it instantiates the variable
// with the kernel (with each instantiation of a template kernel), and its
// initialiser registers the kernel before main.
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// cuda_runtime.h's overload for a kernel named with its type.
template <class... Params>
cudaError_t cudaLaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                             std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return ::cudalab::emu::cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args,
                                          shared_bytes, stream);
}

}  // namespace cudalab::emu

namespace cudalab::emu::detail {

struct ArgumentLaunch {
  // Launches the kernel with its arguments read from `args[i]`, each a
  // pointer to a value of parameter i's type (copied, as a launch copies).
  void (*launch)(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                 void** args) = nullptr;
  const std::size_t* parameter_bytes = nullptr;  // sizeof of each parameter's type
  std::size_t parameter_count = 0;
};

// Both in argument_launch.cpp. The kernel's entry; nullptr for an address
// no kernel registered (not a kernel, or code the rewrite never saw).
bool register_argument_launch(const void* kernel, ArgumentLaunch how);
const ArgumentLaunch* argument_launch_of(const void* kernel) noexcept;

template <auto Kernel, class... Params>
bool register_launch_from_arguments(void (*)(Params...)) {
  // One more element than parameters: a kernel without any has an array too.
  static constexpr std::size_t bytes[] = {sizeof(std::remove_cvref_t<Params>)..., 0};
  auto launch = [](dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                   void** args) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      launch_with_arguments(Kernel, grid, block, shared_bytes, stream,
                            *static_cast<const std::remove_cvref_t<Params>*>(args[I])...);
    }
    (std::index_sequence_for<Params...>{});
  };
  return register_argument_launch(reinterpret_cast<const void*>(Kernel),
                                  ArgumentLaunch{launch, bytes, sizeof...(Params)});
}

template <auto Kernel>
inline const bool launchable_from_arguments = register_launch_from_arguments<Kernel>(Kernel);

}  // namespace cudalab::emu::detail
