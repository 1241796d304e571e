// Where a block's shared memory lies, as shared-window offsets
// (__cvta_generic_to_shared): the static __shared__ declarations and the
// dynamic part, for a few layouts. shared_layout.cuh holds the kernels as
// plain CUDA, compiled for the emulator (shared_layout_emu.cpp, rewritten and
// instrumented) and by nvcc (shared_layout_gpu.cu); test_shared_layout.cpp
// expects the same offsets from both, the ones the H200 gave.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace shared_layout {

enum class Layout {
  one_char,                       // __shared__ char s[1]; then the dynamic part
  seventeen_chars,                // char s[17]
  one_hundred_twenty_nine_chars,  // char s[129]
  char_float_double,              // char a[3], float b[5], double c[1]
  dynamic_only,                   // no static declaration
};

// The offsets of the layout's static declarations in declaration order,
// then the dynamic part's.
std::vector<std::size_t> offsets_on_emulator(Layout layout);
std::vector<std::size_t> offsets_on_gpu(Layout layout);
// "" when there is a GPU; otherwise why the GPU side is skipped.
std::string gpu_unavailable_reason();

}  // namespace shared_layout
