// The emulator's notion of "the CUDA thread running right now".
//
// Every CUDA thread of a launch runs on a fiber; a host worker thread runs
// one block at a time and switches between that block's fibers. The builtins
// (threadIdx, blockIdx, ...) read the state of the current CUDA thread
// through one per-OS-thread pointer, which the scheduler updates on every
// switch. Fibers never migrate between OS threads, so the pointer (and any
// `static thread_local` standing in for __shared__) always belongs to the
// block being run.
#pragma once

#include <vector_types.h>

#include <cstdint>

namespace cudalab::emu::detail {

// What all threads of one block share and the kernel may read.
struct BlockInfo {
  uint3 block_idx{};
  dim3 block_dim{1, 1, 1};
  dim3 grid_dim{1, 1, 1};
  std::uint64_t block_linear = 0;  // blockIdx.x + blockIdx.y*gridDim.x + ...
};

class BlockRun;  // the engine's per-block state (scheduler, barrier, warps)

// One CUDA thread. The first members are read inline by the builtins.
struct ThreadState {
  uint3 thread_idx{};
  const BlockInfo* block = nullptr;
  unsigned linear = 0;  // threadIdx.x + threadIdx.y*blockDim.x + ...
  unsigned warp = 0;    // linear / 32
  unsigned lane = 0;    // linear % 32
  BlockRun* run = nullptr;
  // The fiber stack this thread runs on: instrumented accesses to it (locals
  // whose address escapes) are the thread's own business, not device memory.
  std::uintptr_t stack_low = 0;
  std::uintptr_t stack_bytes = 0;
};

// The CUDA thread whose code is executing on this OS thread. Outside a
// kernel it points at a host placeholder (index 0 everywhere, no block run).
extern __thread ThreadState* current_thread __attribute__((tls_model("initial-exec")));

// A load the compiler's thread-sanitizer instrumentation does not see: an
// instrumented kernel (cudalab_emu_instrument) reads threadIdx & co through
// these, so that the builtins cost a load, not a hook call each. An asm
// operand is opaque to the instrumentation; elsewhere a plain load.
template <class T>
[[gnu::always_inline]] inline T unseen_load(const T& from) noexcept {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8);
  T value;
#if defined(__SANITIZE_THREAD__) && defined(__x86_64__)
  if constexpr (sizeof(T) == 8) {
    asm("movq %1, %0" : "=r"(value) : "m"(from));
  } else {
    asm("movl %1, %0" : "=r"(value) : "m"(from));
  }
#elif defined(__SANITIZE_THREAD__) && defined(__aarch64__)
  if constexpr (sizeof(T) == 8) {
    asm("ldr %x0, %1" : "=r"(value) : "m"(from));
  } else {
    asm("ldr %w0, %1" : "=r"(value) : "m"(from));
  }
#else
  value = from;  // the hooks accept it as emulator state, only slower
#endif
  return value;
}

[[gnu::always_inline]] inline uint3 thread_idx() noexcept {
  const ThreadState* t = unseen_load(current_thread);
  return {unseen_load(t->thread_idx.x), unseen_load(t->thread_idx.y), unseen_load(t->thread_idx.z)};
}
[[gnu::always_inline]] inline const BlockInfo* block_info() noexcept {
  return unseen_load(unseen_load(current_thread)->block);
}
[[gnu::always_inline]] inline uint3 block_idx() noexcept {
  const BlockInfo* b = block_info();
  return {unseen_load(b->block_idx.x), unseen_load(b->block_idx.y), unseen_load(b->block_idx.z)};
}
[[gnu::always_inline]] inline dim3 block_dim() noexcept {
  const BlockInfo* b = block_info();
  return {unseen_load(b->block_dim.x), unseen_load(b->block_dim.y), unseen_load(b->block_dim.z)};
}
[[gnu::always_inline]] inline dim3 grid_dim() noexcept {
  const BlockInfo* b = block_info();
  return {unseen_load(b->grid_dim.x), unseen_load(b->grid_dim.y), unseen_load(b->grid_dim.z)};
}

}  // namespace cudalab::emu::detail
