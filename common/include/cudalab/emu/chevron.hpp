// What a triple-chevron launch is in the emulator build. tools/emu_rewrite.py
// turns the student's
//   k<<<grid, block, shared_bytes, stream>>>(args...)
// into
//   ::cudalab::emu::launch_chevron(k, ::cudalab::emu::ChevronConfig{grid, block, shared_bytes,
//                                                                  stream}, args...)
// which ends in detail::launch_with_arguments (launch.hpp).
#pragma once

#include <driver_types.h>
#include <vector_types.h>

#include <concepts>
#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

#include "cudalab/emu/launch.hpp"

namespace cudalab::emu {

namespace detail {
template <class... Values>
concept wrong_number_of_launch_values = (sizeof...(Values) < 2) || (sizeof...(Values) > 4);
}  // namespace detail

// The values between <<< and >>>. Constructors rather than an aggregate: the
// grid, block and byte count convert from any integer as nvcc converts them
// (list-initialisation would reject `int bytes` as narrowing), and a launch
// with fewer than two or more than four values is a compile error that says so.
struct ChevronConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = 0;
  // Where the launch is written (the default argument is evaluated there):
  // reports about a queued launch name this line.
  std::source_location site;

  template <std::convertible_to<dim3> Grid, std::convertible_to<dim3> Block,
            std::convertible_to<std::size_t> Bytes = std::size_t>
  ChevronConfig(const Grid& grid, const Block& block, const Bytes& shared_bytes = 0,
                cudaStream_t stream = 0,
                std::source_location site = std::source_location::current())
      : grid(grid), block(block), shared_bytes(shared_bytes), stream(stream), site(site) {}

  template <class... Values>
  ChevronConfig(const Values&...) requires detail::wrong_number_of_launch_values<Values...> {
    static_assert(sizeof...(Values) < 0,
                  "a launch is kernel<<<grid, block[, shared_bytes[, stream]]>>>(arguments): "
                  "two to four values between <<< and >>>");
  }
};

// A kernel that is not a template, or a template with its arguments written
// out (k<float, 4><<<...>>>): the arguments convert to its parameter types.
template <class... Params, class... Args>
void launch_chevron(void (*kernel)(Params...), ChevronConfig config, Args&&... args) {
  const detail::LaunchSite site(config.site);
  detail::launch_with_arguments(kernel, config.grid, config.block, config.shared_bytes,
                                config.stream, std::forward<Args>(args)...);
}

namespace detail {
// Reached from ChevronConfig only through a conversion, so that the overload
// above wins wherever both apply.
struct DeducedKernelConfig {
  ChevronConfig config;
  DeducedKernelConfig(ChevronConfig config) : config(config) {}  // NOLINT: implicit on purpose
};
}  // namespace detail

// A kernel template whose template arguments CUDA deduces from the call
// (`template <class T> __global__ void k(T*)` launched as `k<<<1, 1>>>(p)`):
// the specialisation whose parameters are exactly the arguments' types, decayed.
// A template whose parameters differ from them (`const T*` for a `float*`
// argument) matches neither overload: write its template arguments out,
// `k<float><<<1, 1>>>(p)`, which is also valid CUDA. The compiler then names
// this parameter:
template <class... Args>
void launch_chevron(
    void (*if_this_fails_write_the_kernel_template_arguments_out)(std::decay_t<Args>...),
    detail::DeducedKernelConfig deduced, Args&&... args) {
  launch_chevron(if_this_fails_write_the_kernel_template_arguments_out, deduced.config,
                 std::forward<Args>(args)...);
}

}  // namespace cudalab::emu
