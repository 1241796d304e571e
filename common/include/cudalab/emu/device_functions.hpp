// The device-side vocabulary of CUDA for kernels compiled by the host
// compiler: barriers, warp intrinsics, atomics and the math intrinsics the
// labs use. Everything is declared in cudalab::emu::device_api; shim.hpp
// makes the names visible at global scope, where CUDA code expects them.
//
// Synchronising functions take a defaulted std::source_location so that a
// divergent-barrier report can name the line of each __syncthreads().
#pragma once

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "cudalab/emu/thread_state.hpp"

// Reports one atomic access made by instrumented code (hooks.cpp); its site
// is the caller's pc.
extern "C" void emulated_device_atomic_access(void* address, std::size_t bytes) noexcept;

namespace cudalab::emu {

// A kernel thread's time on the modelled clock, in nanoseconds (host code:
// the host's modelled time). Each read moves the thread on by a short step.
std::uint64_t modelled_timer_ns() noexcept;
// Moves the calling kernel thread's modelled time on by `ns`.
void modelled_sleep_ns(unsigned ns) noexcept;

namespace detail {

// Block-wide barrier. `predicate` feeds the __syncthreads_count/and/or
// variants; returns how many threads of the block passed a non-zero one.
int block_barrier(int predicate, const std::source_location& site);

enum class WarpOp : std::uint8_t {
  sync,
  shfl,
  shfl_up,
  shfl_down,
  shfl_xor,
  ballot,
  any,
  all,
  match_any,  // the lanes of the mask whose value has the same bits as this lane's
  match_all,  // the mask if every lane's value has the same bits, else 0
};

// One warp-collective operation: waits until every lane named in `mask` has
// reached a collective, then returns this lane's result (the shuffled bits,
// the ballot, or the vote). `argument` is the lane/delta/xor-mask of a
// shuffle, `width` its segment width.
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int argument,
                              int width, const std::source_location& site);

// Lanes of the caller's warp that have not exited.
unsigned active_lanes() noexcept;

// `p`'s offset in the block's shared window as the GPU numbers it (the
// block's first 1 KiB is the hardware's, so user shared memory starts at
// 1024 on sm_80 and later); a pointer outside the block's shared memory
// stops the block with a report, as no GPU offset is right for it.
std::size_t shared_window_offset(const void* p, const std::source_location& site);

// A shuffle moves the value's bytes. __half2 and __nv_bfloat162 count too:
// they declare their own copy operations, so they are not trivially
// copyable, but they are plain bytes, as on the GPU.
template <class T>
std::uint64_t to_bits(const T& v) noexcept {
  static_assert(sizeof(T) <= 8 && std::is_trivially_destructible_v<T>,
                "warp shuffles move values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const void*>(&v), sizeof(T));
  return bits;
}
template <class T>
T from_bits(std::uint64_t bits) noexcept {
  T v;
  std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
  return v;
}

}  // namespace detail

namespace device_api {

inline constexpr int warpSize = 32;

// ---- address spaces -------------------------------------------------------
inline std::size_t __cvta_generic_to_shared(
    const void* p, std::source_location site = std::source_location::current()) {
  return detail::shared_window_offset(p, site);
}

// ---- barriers -------------------------------------------------------------
inline void __syncthreads(std::source_location site = std::source_location::current()) {
  detail::block_barrier(0, site);
}
inline int __syncthreads_count(int predicate,
                               std::source_location site = std::source_location::current()) {
  return detail::block_barrier(predicate, site);
}
inline int __syncthreads_and(int predicate,
                             std::source_location site = std::source_location::current()) {
  return detail::block_barrier(predicate, site) ==
         static_cast<int>(detail::current_thread->block->block_dim.x *
                          detail::current_thread->block->block_dim.y *
                          detail::current_thread->block->block_dim.z);
}
inline int __syncthreads_or(int predicate,
                            std::source_location site = std::source_location::current()) {
  return detail::block_barrier(predicate, site) != 0;
}
inline void __threadfence() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ---- warp intrinsics --------------------------------------------------------
inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location site = std::source_location::current()) {
  detail::warp_collective(detail::WarpOp::sync, mask, 0, 0, warpSize, site);
}
inline unsigned __activemask() noexcept { return detail::active_lanes(); }

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize,
              std::source_location site = std::source_location::current()) {
  return detail::from_bits<T>(detail::warp_collective(detail::WarpOp::shfl, mask,
                                                      detail::to_bits(var), src_lane, width, site));
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                 std::source_location site = std::source_location::current()) {
  return detail::from_bits<T>(detail::warp_collective(
      detail::WarpOp::shfl_up, mask, detail::to_bits(var), static_cast<int>(delta), width, site));
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize,
                   std::source_location site = std::source_location::current()) {
  return detail::from_bits<T>(detail::warp_collective(
      detail::WarpOp::shfl_down, mask, detail::to_bits(var), static_cast<int>(delta), width, site));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize,
                  std::source_location site = std::source_location::current()) {
  return detail::from_bits<T>(detail::warp_collective(
      detail::WarpOp::shfl_xor, mask, detail::to_bits(var), lane_mask, width, site));
}
inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location site = std::source_location::current()) {
  return static_cast<unsigned>(
      detail::warp_collective(detail::WarpOp::ballot, mask, predicate != 0, 0, warpSize, site));
}
inline int __any_sync(unsigned mask, int predicate,
                      std::source_location site = std::source_location::current()) {
  return static_cast<int>(
      detail::warp_collective(detail::WarpOp::any, mask, predicate != 0, 0, warpSize, site));
}
inline int __all_sync(unsigned mask, int predicate,
                      std::source_location site = std::source_location::current()) {
  return static_cast<int>(
      detail::warp_collective(detail::WarpOp::all, mask, predicate != 0, 0, warpSize, site));
}

// __match_any_sync / __match_all_sync compare the values' bits, as the GPU's
// match.sync does (so a float -0.0 and +0.0 differ, and a NaN matches the
// same NaN); the GPU takes 32- and 64-bit types.
template <class T>
unsigned __match_any_sync(unsigned mask, T value,
                          std::source_location site = std::source_location::current()) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes 32- or 64-bit values");
  return static_cast<unsigned>(detail::warp_collective(detail::WarpOp::match_any, mask,
                                                       detail::to_bits(value), 0, warpSize, site));
}
template <class T>
unsigned __match_all_sync(unsigned mask, T value, int* pred,
                          std::source_location site = std::source_location::current()) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_all_sync takes 32- or 64-bit values");
  const auto matched = static_cast<unsigned>(detail::warp_collective(
      detail::WarpOp::match_all, mask, detail::to_bits(value), 0, warpSize, site));
  *pred = matched != 0;
  return matched;
}

// ---- atomics ------------------------------------------------------------------
// On plain pointers, to global or shared memory; in instrumented code each is
// checked and recorded as one atomic access (exempt from the race checks).
// The value parameter never takes part in deduction, so atomicAdd(int_ptr, 1u)
// converts as CUDA's overloads do.
// In code compiled with the emulator's instrumentation (cudalab_emu_instrument,
// where GCC defines __SANITIZE_THREAD__), the operation itself runs in an
// uninstrumented function and the access is reported once, as one atomic at
// the student's line: otherwise atomicMax's compare-exchange loop would show
// as an atomic load plus several compare-exchanges. The operations use the
// __atomic builtins, which expand in place: std::atomic_ref's members would
// not be inlined into an uninstrumented function and would be seen again.
#if defined(__SANITIZE_THREAD__)
#define CUDALAB_EMU_ATOMIC_SEEN(address) ::emulated_device_atomic_access(address, sizeof(*address))
#define CUDALAB_EMU_ATOMIC_UNSEEN __attribute__((noinline, no_sanitize("thread")))
#else
#define CUDALAB_EMU_ATOMIC_SEEN(address) (void)0
#define CUDALAB_EMU_ATOMIC_UNSEEN
#endif
#define CUDALAB_EMU_ATOMIC(name, body)                                                             \
  namespace unseen {                                                                               \
  template <class T>                                                                               \
  CUDALAB_EMU_ATOMIC_UNSEEN T name##_unseen(T* address, T val) noexcept {                          \
    body                                                                                           \
  }                                                                                                \
  }                                                                                                \
  template <class T>                                                                               \
  __attribute__((always_inline)) inline T name(T* address, std::type_identity_t<T> val) noexcept { \
    CUDALAB_EMU_ATOMIC_SEEN(address);                                                              \
    return unseen::name##_unseen<T>(address, val);                                                 \
  }

}  // namespace device_api
namespace detail {
template <class T, class F>
CUDALAB_EMU_ATOMIC_UNSEEN T atomic_update(T* address, F next) noexcept {
  T old;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  for (;;) {
    T desired = next(old);
    if (__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_RELAXED,
                                  __ATOMIC_RELAXED)) {
      return old;
    }
  }
}
}  // namespace detail
namespace device_api {

CUDALAB_EMU_ATOMIC(atomicAdd, {
  if constexpr (std::is_integral_v<T>) {
    return __atomic_fetch_add(address, val, __ATOMIC_RELAXED);
  } else {
    return detail::atomic_update(address, [val](T old) { return old + val; });
  }
})
CUDALAB_EMU_ATOMIC(atomicSub, {
  if constexpr (std::is_integral_v<T>) {
    return __atomic_fetch_sub(address, val, __ATOMIC_RELAXED);
  } else {
    return detail::atomic_update(address, [val](T old) { return old - val; });
  }
})
CUDALAB_EMU_ATOMIC(atomicExch, {
  T old;
  __atomic_exchange(address, &val, &old, __ATOMIC_RELAXED);
  return old;
})
CUDALAB_EMU_ATOMIC(atomicAnd, { return __atomic_fetch_and(address, val, __ATOMIC_RELAXED); })
CUDALAB_EMU_ATOMIC(atomicOr, { return __atomic_fetch_or(address, val, __ATOMIC_RELAXED); })
CUDALAB_EMU_ATOMIC(atomicXor, { return __atomic_fetch_xor(address, val, __ATOMIC_RELAXED); })
CUDALAB_EMU_ATOMIC(atomicMax, {
  return detail::atomic_update(address, [val](T old) { return old < val ? val : old; });
})
CUDALAB_EMU_ATOMIC(atomicMin, {
  return detail::atomic_update(address, [val](T old) { return val < old ? val : old; });
})
// ((old >= val) ? 0 : (old + 1)), as CUDA defines it.
CUDALAB_EMU_ATOMIC(atomicInc, {
  return detail::atomic_update(address, [val](T old) { return old >= val ? T{0} : T(old + 1); });
})
// (((old == 0) || (old > val)) ? val : (old - 1))
CUDALAB_EMU_ATOMIC(atomicDec, {
  return detail::atomic_update(address,
                               [val](T old) { return (old == 0 || old > val) ? val : T(old - 1); });
})
#undef CUDALAB_EMU_ATOMIC

namespace unseen {
template <class T>
CUDALAB_EMU_ATOMIC_UNSEEN T atomic_cas_unseen(T* address, T compare, T val) noexcept {
  __atomic_compare_exchange(address, &compare, &val, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;  // holds the old value whether or not the swap happened
}
}  // namespace unseen
template <class T>
__attribute__((always_inline)) inline T atomicCAS(T* address, std::type_identity_t<T> compare,
                                                  std::type_identity_t<T> val) noexcept {
  CUDALAB_EMU_ATOMIC_SEEN(address);
  return unseen::atomic_cas_unseen<T>(address, compare, val);
}
#undef CUDALAB_EMU_ATOMIC_SEEN
#undef CUDALAB_EMU_ATOMIC_UNSEEN

// ---- math intrinsics ------------------------------------------------------------
// The fast-math `__` versions compute the accurate result on the host; the
// labs compare against tolerances that allow the GPU's approximation.
// __expf, __logf, __log2f, __log10f, __exp10f, __powf, __sinf, __cosf,
// __tanf, __sincosf and exp10f are not defined here: glibc's <math.h>
// already declares them (as the accurate functions) at global scope.
inline float __fdividef(float x, float y) noexcept { return x / y; }
inline float fdividef(float x, float y) noexcept { return x / y; }
inline float rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) noexcept { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) noexcept { return 1.0f / std::cbrt(x); }
inline float __frcp_rn(float x) noexcept { return 1.0f / x; }
inline float __fsqrt_rn(float x) noexcept { return std::sqrt(x); }
inline float __frsqrt_rn(float x) noexcept { return 1.0f / std::sqrt(x); }
inline float __fadd_rn(float a, float b) noexcept { return a + b; }
inline float __fsub_rn(float a, float b) noexcept { return a - b; }
inline float __fmul_rn(float a, float b) noexcept { return a * b; }
inline float __fdiv_rn(float a, float b) noexcept { return a / b; }
inline float __fmaf_rn(float a, float b, float c) noexcept { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) noexcept { return a + b; }
inline double __dmul_rn(double a, double b) noexcept { return a * b; }
inline double __fma_rn(double a, double b, double c) noexcept { return std::fma(a, b, c); }
inline float __saturatef(float x) noexcept { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float normcdff(float x) noexcept { return 0.5f * std::erfc(-x / std::sqrt(2.0f)); }

inline int __float2int_rn(float x) noexcept { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) noexcept { return static_cast<int>(x); }
inline int __float2int_rd(float x) noexcept { return static_cast<int>(std::floor(x)); }
inline int __float2int_ru(float x) noexcept { return static_cast<int>(std::ceil(x)); }
inline unsigned __float2uint_rn(float x) noexcept {
  return static_cast<unsigned>(std::nearbyint(x));
}
inline float __int2float_rn(int x) noexcept { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned x) noexcept { return static_cast<float>(x); }
inline int __float_as_int(float x) noexcept { return std::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) noexcept { return std::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) noexcept { return std::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) noexcept { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) noexcept { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) noexcept { return std::bit_cast<double>(x); }

inline int __popc(unsigned x) noexcept { return std::popcount(x); }
inline int __popcll(unsigned long long x) noexcept { return std::popcount(x); }
inline int __clz(int x) noexcept { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __clzll(long long x) noexcept {
  return std::countl_zero(static_cast<unsigned long long>(x));
}
inline int __ffs(int x) noexcept {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1;
}
inline int __ffsll(long long x) noexcept {
  return x == 0 ? 0 : std::countr_zero(static_cast<unsigned long long>(x)) + 1;
}
inline unsigned __brev(unsigned x) noexcept {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mulhi(int a, int b) noexcept {
  return static_cast<int>((static_cast<long long>(a) * b) >> 32);
}
inline unsigned __umulhi(unsigned a, unsigned b) noexcept {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline int __mul24(int a, int b) noexcept { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) noexcept { return a * b; }

// CUDA's global min/max accept mixed arithmetic types.
template <class A, class B>
requires(std::is_arithmetic_v<A>&& std::is_arithmetic_v<B>) constexpr std::common_type_t<A, B> min(
    A a, B b) noexcept {
  using C = std::common_type_t<A, B>;
  return static_cast<C>(b) < static_cast<C>(a) ? static_cast<C>(b) : static_cast<C>(a);
}
template <class A, class B>
requires(std::is_arithmetic_v<A>&& std::is_arithmetic_v<B>) constexpr std::common_type_t<A, B> max(
    A a, B b) noexcept {
  using C = std::common_type_t<A, B>;
  return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}

template <class T>
T __ldg(const T* p) noexcept {
  return *p;
}

// clock64() reads the host's clock: what a stretch of a kernel costs on this
// machine. The modelled clock of the device model (cudaEventElapsedTime, the
// timeline) is read by cudalab::globaltimer_ns() (cudalab/device_time.hpp)
// and moved on by __nanosleep.
inline long long clock64() noexcept {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}
inline void __nanosleep(unsigned ns) noexcept { ::cudalab::emu::modelled_sleep_ns(ns); }

}  // namespace device_api
}  // namespace cudalab::emu
