// Shared memory declared the way CUDA declares it, for the instrumented
// emulator build. The source rewrite (tools/emu_rewrite.py) turns
//
//   __shared__ float tile[32][33];
//   extern __shared__ float buffer[];
//
// into
//
//   float (&tile)[32][33] = ::cudalab::emu::static_shared<float[32][33]>([] {});
//   float* const buffer = static_cast<float*>(::cudalab::emu::dynamic_shared_memory());
//
// The lambda's type names the declaration (each template instantiation gets
// its own): every block has one copy of it, in the block's shared-memory
// arena, at an offset fixed per launch in first-use order, after which the
// dynamic part follows. Instrumented accesses into the arena are shared
// memory accesses: checked for races and uninitialised reads, and analysed
// for bank conflicts. Contents are unspecified at block start (poisoned:
// 0xff bytes).
#pragma once

#include <cstddef>

namespace cudalab::emu {

namespace detail {
// The current block's copy of the declaration `key` (bytes, alignment).
// Declarations beyond the 48 KiB static limit fail the launch.
void* static_shared_slot(const void* key, std::size_t bytes, std::size_t alignment) noexcept;
}  // namespace detail

template <class T, std::size_t Align = alignof(T), class Site>
T& static_shared(Site) noexcept {
  static_assert(Align != 0 && (Align & (Align - 1)) == 0,
                "static_shared: alignment must be a power of two");
  // One object per instantiation (per declaration): its address is the key.
  static constexpr char declaration = 0;
  constexpr std::size_t alignment = Align < alignof(T) ? alignof(T) : Align;
  return *static_cast<T*>(detail::static_shared_slot(&declaration, sizeof(T), alignment));
}

// The current block's dynamic shared memory (the third launch argument, in
// bytes); defined in the emulator library, declared in launch.hpp too.
void* dynamic_shared_memory() noexcept;

}  // namespace cudalab::emu
