// cudalab::emu::global_ptr<T>: the emulator's traced pointer to device memory.
//
// Under nvcc cudalab::global_ptr<T> is plain T*. Under the emulator it is this
// class: it carries the allocation it points into (looked up once, when it is
// made from a T*), and every element access goes through a small proxy that
// reports the access -- address, size, read or write, and the source line of
// the student's expression -- to the checks and the recorder.
//
//   global_ptr<float> p = device_ptr;   // registry lookup happens here, once
//   float x = p[i];                     // read  (traced, site = this line)
//   p[i] = x;                           // write
//   p[i] += x;                          // read + write
//   atomicAdd(&p[i], x);                // &p[i] is a global_ptr again
//
// Every traced access is checked for alignment first (a GPU faults on a
// misaligned one) and then made with memcpy, so a misaligned float4 never
// reaches an aligned vector instruction of the host.
//
// Differences from T* that a kernel author sees (see docs/emulator.md):
//   * `auto v = p[i];` makes `v` a proxy that aliases memory; write
//     `float v = p[i];` (as one would to be explicit anyway).
//   * member access through the proxy (`p[i].x`, `p->x` for float4) does not
//     compile; load the element first: `float4 v = p[i]; ... v.x ...`.
//   * passing `p[i]` to printf or to a template deducing T needs a cast.
#pragma once

#include <bit>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

namespace cudalab::emu {

// An entry of the device-memory registry (defined in the library). Opaque to
// kernels; the recorder exposes its base and size.
struct Allocation;

namespace detail {

enum AccessFlags : unsigned {
  kRead = 1u,
  kWrite = 2u,
  kAtomic = 4u,     // read-modify-write by an atomic: exempt from race checks
  kShared = 8u,     // shared memory (a shared_array), not global memory
  kConstant = 16u,  // a __constant__ variable read by name (constant_memory.hpp)
};

// True while a check or a recording wants to see accesses. One predictable
// branch per access when everything is off.
extern bool access_hooks_on;

// Reports one access. Returns false when the access must not touch memory
// (out of bounds, freed, unknown pointer): the read yields T{} and the write
// is dropped, so a planted bug is reported instead of crashing the host. An
// address that is not a multiple of `alignment` is a fault that stops the
// calling CUDA thread's block: then on_access does not return (in a kernel).
bool on_access(const Allocation* allocation, const void* address, std::size_t bytes,
               std::size_t alignment, unsigned flags, const std::source_location& site) noexcept;

// True when `address` is not a multiple of `alignment` (a power of two): the
// GPU faults on such an access, whether or not any check is on.
inline bool misaligned(const void* address, std::size_t alignment) noexcept {
  return (reinterpret_cast<std::uintptr_t>(address) & (alignment - 1)) != 0;
}

// The live allocation containing p (nullptr if none). Takes a lock: called
// when a global_ptr is made from a raw pointer, not per access.
const Allocation* find_allocation(const void* p) noexcept;

}  // namespace detail

// An index or offset that remembers where in the source it was written.
// operator[] and operator+ cannot take a defaulted std::source_location, but a
// converting constructor can: the conversion happens at the student's
// expression, so `current()` names that expression's file:line. (`*p` works
// the same way through DerefSite below.)
struct SiteIndex {
  std::ptrdiff_t value;
  std::source_location site;

  template <class I>
  requires std::is_convertible_v<I, std::ptrdiff_t> SiteIndex(
      I i, std::source_location where = std::source_location::current())
  noexcept : value(static_cast<std::ptrdiff_t>(i)), site(where) {}
};

template <class T>
class global_ptr;

// A reference to one element of device (or traced shared) memory.
template <class T>
class ref {
 public:
  using value_type = std::remove_cv_t<T>;
  static_assert(std::is_trivially_copyable_v<value_type>,
                "device memory holds trivially copyable types");

  ref(T* address, const Allocation* allocation, std::source_location site) noexcept
      : address_(address), allocation_(allocation), site_(site) {}

  // Read.
  operator value_type() const noexcept { return load(); }
  // Read and convert, for element types whose own conversion is user-defined:
  // static_cast<float>(half_ptr[i]) (implicitly that would be two conversions).
  template <class U>
  requires(!std::is_same_v<U, value_type> && std::is_convertible_v<value_type, U>) explicit
  operator U() const noexcept {
    return static_cast<U>(load());
  }
  value_type load() const noexcept {
    if (detail::access_hooks_on || detail::misaligned(address_, alignof(T))) [[unlikely]] {
      if (!detail::on_access(allocation_, address_, sizeof(T), alignof(T), detail::kRead, site_)) {
        return value_type{};
      }
    }
    // Byte copies: `*address_` on a float4 is an aligned SSE move on x86-64.
    alignas(value_type) unsigned char bytes[sizeof(value_type)];
    std::memcpy(bytes, address_, sizeof bytes);
    return std::bit_cast<value_type>(bytes);
  }

  // Write.
  void store(const value_type& v) const noexcept requires(!std::is_const_v<T>) {
    if (detail::access_hooks_on || detail::misaligned(address_, alignof(T))) [[unlikely]] {
      if (!detail::on_access(allocation_, address_, sizeof(T), alignof(T), detail::kWrite, site_)) {
        return;
      }
    }
    std::memcpy(address_, &v, sizeof(T));
  }
  const ref& operator=(const value_type& v) const noexcept requires(!std::is_const_v<T>) {
    store(v);
    return *this;
  }
  // p[i] = q[j] reads q[j] and writes p[i] (not a rebinding of the proxy).
  const ref& operator=(const ref& other) const noexcept requires(!std::is_const_v<T>) {
    store(other.load());
    return *this;
  }
  template <class U>
  const ref& operator=(const ref<U>& other) const noexcept requires(!std::is_const_v<T>) {
    store(static_cast<value_type>(other.load()));
    return *this;
  }

  // Compound assignment: one read, one write (two trace records, like the
  // load and store a GPU issues).
#define CUDALAB_EMU_COMPOUND(op)                                                       \
  template <class U>                                                                   \
  const ref& operator op##=(const U& v) const noexcept requires(!std::is_const_v<T>) { \
    value_type x = load();                                                             \
    x op## = v;                                                                        \
    store(x);                                                                          \
    return *this;                                                                      \
  }
  CUDALAB_EMU_COMPOUND(+)
  CUDALAB_EMU_COMPOUND(-)
  CUDALAB_EMU_COMPOUND(*)
  CUDALAB_EMU_COMPOUND(/)
  CUDALAB_EMU_COMPOUND(%)
  CUDALAB_EMU_COMPOUND(&)
  CUDALAB_EMU_COMPOUND(|)
  CUDALAB_EMU_COMPOUND(^)
  CUDALAB_EMU_COMPOUND(<<)
  CUDALAB_EMU_COMPOUND(>>)
#undef CUDALAB_EMU_COMPOUND

  const ref& operator++() const noexcept { return *this += 1; }
  const ref& operator--() const noexcept { return *this -= 1; }
  value_type operator++(int) const noexcept {
    value_type old = load();
    store(old + 1);
    return old;
  }
  value_type operator--(int) const noexcept {
    value_type old = load();
    store(old - 1);
    return old;
  }

  // &p[i] is a traced pointer, so atomicAdd(&p[i], v) works as in CUDA.
  global_ptr<T> operator&() const noexcept { return global_ptr<T>(address_, allocation_); }

  T* address() const noexcept { return address_; }
  const Allocation* allocation() const noexcept { return allocation_; }
  const std::source_location& site() const noexcept { return site_; }

 private:
  T* address_;
  const Allocation* allocation_;
  std::source_location site_;
};

// `*p` at the student's expression: a unary operator cannot take a defaulted
// std::source_location, but the conversion of its operand to this type can
// (global_ptr's operator* is a friend taking a DerefSite).
template <class T>
struct DerefSite {
  const global_ptr<T>& pointer;
  std::source_location site;

  DerefSite(const global_ptr<T>& p,
            std::source_location where = std::source_location::current()) noexcept
      : pointer(p), site(where) {}
};

// A traced pointer into device memory: T* plus the allocation it points into.
template <class T>
class global_ptr {
 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;

  global_ptr() noexcept = default;
  global_ptr(std::nullptr_t) noexcept {}
  // From a raw device pointer (kernel arguments, cudaMalloc results): looks
  // the allocation up once.
  global_ptr(T* p) noexcept : ptr_(p), allocation_(p ? detail::find_allocation(p) : nullptr) {}
  // global_ptr<float> -> global_ptr<const float>, like T* -> const T*.
  template <class U>
  requires(std::is_convertible_v<U*, T*> && !std::is_same_v<U, T>)
      global_ptr(const global_ptr<U>& other)
  noexcept : ptr_(other.get()), allocation_(other.allocation()) {}
  // Used by the library (reinterpret_global, &p[i]); keeps the allocation.
  global_ptr(T* p, const Allocation* allocation) noexcept : ptr_(p), allocation_(allocation) {}

  ref<T> operator[](SiteIndex i) const noexcept { return {ptr_ + i.value, allocation_, i.site}; }
  friend ref<T> operator*(DerefSite<T> p) noexcept {
    return {p.pointer.ptr_, p.pointer.allocation_, p.site};
  }
  // `p->x` would reach the member through a raw pointer, past the checks and
  // the trace, so it does not compile (on the GPU it is fine).
  template <class U = T>
  U* operator->() const noexcept {
    static_assert(sizeof(U) == 0,
                  "cudalab::global_ptr: p->member is not traced by the emulator. Load the "
                  "element first (`T v = *p; ... v.member`) and store it whole (`*p = v;`).");
    return ptr_;
  }

  global_ptr operator+(SiteIndex n) const noexcept { return {ptr_ + n.value, allocation_}; }
  global_ptr operator-(SiteIndex n) const noexcept { return {ptr_ - n.value, allocation_}; }
  std::ptrdiff_t operator-(const global_ptr& other) const noexcept { return ptr_ - other.ptr_; }
  friend global_ptr operator+(std::ptrdiff_t n, const global_ptr& p) noexcept { return p + n; }
  global_ptr& operator+=(SiteIndex n) noexcept { return *this = *this + n; }
  global_ptr& operator-=(SiteIndex n) noexcept { return *this = *this - n; }
  global_ptr& operator++() noexcept { return *this += 1; }
  global_ptr& operator--() noexcept { return *this -= 1; }
  global_ptr operator++(int) noexcept {
    global_ptr old = *this;
    ++*this;
    return old;
  }
  global_ptr operator--(int) noexcept {
    global_ptr old = *this;
    --*this;
    return old;
  }

  friend bool operator==(const global_ptr& a, const global_ptr& b) noexcept {
    return a.ptr_ == b.ptr_;
  }
  friend auto operator<=>(const global_ptr& a, const global_ptr& b) noexcept {
    return a.ptr_ <=> b.ptr_;
  }
  friend bool operator==(const global_ptr& a, std::nullptr_t) noexcept { return !a.ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

  // The raw pointer. Accesses through it are neither traced nor checked.
  T* get() const noexcept { return ptr_; }
  const Allocation* allocation() const noexcept { return allocation_; }

 private:
  T* ptr_ = nullptr;
  const Allocation* allocation_ = nullptr;
};

// View global memory as another type, keeping the allocation (and so the
// trace and the bounds): reinterpret_global<float4>(p)[i] is one 16-byte
// access, as `reinterpret_cast<float4*>(p)[i]` is on the GPU.
template <class To, class From>
global_ptr<To> reinterpret_global(global_ptr<From> p) noexcept {
  return global_ptr<To>(reinterpret_cast<To*>(p.get()), p.allocation());
}

// __ldg(p + i): a read-only load, traced like p[i].
template <class T>
std::remove_cv_t<T> __ldg(global_ptr<T> p,
                          std::source_location site = std::source_location::current()) noexcept {
  return ref<T>(p.get(), p.allocation(), site).load();
}

}  // namespace cudalab::emu
