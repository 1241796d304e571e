// Internal: the initialisation shadow's bytes (one per byte of device
// memory, 1 once written), read and written by several workers at once, so
// through relaxed atomics.
//
// An access of 2, 4, 8 or 16 bytes is aligned to its size (a misaligned one
// is reported and never happens), and so are its shadow bytes (the shadow is
// at least 16-byte aligned, its allocation 256-byte aligned), so one wide
// relaxed load or store covers them: one instruction instead of a loop of
// byte accesses on every checked access. x86-64 and AArch64 make a wide
// access to bytes that other threads access singly atomic per byte, which is
// all the shadow needs; the wide path is taken only where aligned.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace cudalab::emu::detail {

inline constexpr std::uint64_t kShadowSetBytes = 0x0101010101010101ull;

// Whether every one of the `n` shadow bytes at `p` is set.
inline bool shadow_bytes_set(const std::uint8_t* p, std::size_t n) noexcept {
  const bool aligned = (reinterpret_cast<std::uintptr_t>(p) & (n - 1)) == 0;
  if (aligned) {
    switch (n) {
      case 1:
        return __atomic_load_n(p, __ATOMIC_RELAXED) != 0;
      case 2:
        return __atomic_load_n(reinterpret_cast<const std::uint16_t*>(p), __ATOMIC_RELAXED) ==
               static_cast<std::uint16_t>(kShadowSetBytes);
      case 4:
        return __atomic_load_n(reinterpret_cast<const std::uint32_t*>(p), __ATOMIC_RELAXED) ==
               static_cast<std::uint32_t>(kShadowSetBytes);
      case 8:
        return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(p), __ATOMIC_RELAXED) ==
               kShadowSetBytes;
      case 16: {
        const auto* q = reinterpret_cast<const std::uint64_t*>(p);
        return __atomic_load_n(q, __ATOMIC_RELAXED) == kShadowSetBytes &&
               __atomic_load_n(q + 1, __ATOMIC_RELAXED) == kShadowSetBytes;
      }
      default:
        break;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!__atomic_load_n(p + i, __ATOMIC_RELAXED)) return false;
  }
  return true;
}

// Sets the `n` shadow bytes at `p`.
inline void set_shadow_bytes(std::uint8_t* p, std::size_t n) noexcept {
  const bool aligned = (reinterpret_cast<std::uintptr_t>(p) & (n - 1)) == 0;
  if (aligned) {
    switch (n) {
      case 1:
        __atomic_store_n(p, 1, __ATOMIC_RELAXED);
        return;
      case 2:
        __atomic_store_n(reinterpret_cast<std::uint16_t*>(p),
                         static_cast<std::uint16_t>(kShadowSetBytes), __ATOMIC_RELAXED);
        return;
      case 4:
        __atomic_store_n(reinterpret_cast<std::uint32_t*>(p),
                         static_cast<std::uint32_t>(kShadowSetBytes), __ATOMIC_RELAXED);
        return;
      case 8:
        __atomic_store_n(reinterpret_cast<std::uint64_t*>(p), kShadowSetBytes, __ATOMIC_RELAXED);
        return;
      case 16:
        __atomic_store_n(reinterpret_cast<std::uint64_t*>(p), kShadowSetBytes, __ATOMIC_RELAXED);
        __atomic_store_n(reinterpret_cast<std::uint64_t*>(p) + 1, kShadowSetBytes,
                         __ATOMIC_RELAXED);
        return;
      default:
        break;
    }
  }
  for (std::size_t i = 0; i < n; ++i) __atomic_store_n(p + i, 1, __ATOMIC_RELAXED);
}

}  // namespace cudalab::emu::detail
