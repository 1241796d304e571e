// cudalab::emu::shared_array<T, N...>: a __shared__ array whose accesses the
// emulator traces (races within a barrier interval, bank conflicts).
//
// A plain `__shared__ float tile[32][33];` works under the emulator too (the
// shim makes __shared__ a `static thread_local`), but its accesses are
// invisible to the checks. Spell it
//
//   __shared__ cudalab::shared_array<float, 32, 33> tile;   // (32,33)
//   tile[ty][tx] = in[i];
//
// where cudalab::shared_array (cudalab/kernel.hpp) is the backend-neutral
// alias: this class under the emulator, exactly `float[32][33]` under nvcc.
// Indexing is bounds-checked per dimension when the bounds check is on; each
// element access is checked for alignment and made with memcpy, like a
// global_ptr's.
#pragma once

#include <cstddef>
#include <source_location>

#include "cudalab/emu/global_ptr.hpp"

namespace cudalab::emu {

namespace detail {

// The allocation that stands for "shared memory" in access reports.
const Allocation* shared_space() noexcept;

// Reports an index outside [0, extent) of a shared_array; returns false when
// the access must be dropped.
bool on_shared_index(std::ptrdiff_t index, std::size_t extent, std::size_t element_bytes,
                     const void* array_base, const std::source_location& site) noexcept;

template <std::size_t... N>
struct Product {
  static constexpr std::size_t value = (std::size_t{1} * ... * N);
};

// A row (or plane) of a multi-dimensional shared_array: what tile[i] is.
template <class T, std::size_t... Rest>
class shared_slice;

template <class T, std::size_t N>
class shared_slice<T, N> {
 public:
  shared_slice(T* base, bool valid) noexcept : base_(base), valid_(valid) {}
  ref<T> operator[](SiteIndex i) const noexcept {
    if (!checked(i)) return {scratch(), shared_space(), i.site};
    return {base_ + i.value, shared_space(), i.site};
  }

 private:
  bool checked(const SiteIndex& i) const noexcept {
    if (!valid_) return false;
    if (i.value >= 0 && static_cast<std::size_t>(i.value) < N) return true;
    return !access_hooks_on || on_shared_index(i.value, N, sizeof(T), base_, i.site);
  }
  // Where a dropped access goes, so nothing outside the array is touched.
  static T* scratch() noexcept {
    static thread_local T sink{};
    return &sink;
  }
  T* base_;
  bool valid_;
};

template <class T, std::size_t N, std::size_t... Rest>
class shared_slice<T, N, Rest...> {
 public:
  shared_slice(T* base, bool valid) noexcept : base_(base), valid_(valid) {}
  shared_slice<T, Rest...> operator[](SiteIndex i) const noexcept {
    bool in_bounds = i.value >= 0 && static_cast<std::size_t>(i.value) < N;
    if (!in_bounds && access_hooks_on) {
      in_bounds = on_shared_index(i.value, N, sizeof(T) * Product<Rest...>::value, base_, i.site);
    }
    return {base_ + (in_bounds ? i.value : 0) * Product<Rest...>::value, valid_ && in_bounds};
  }

 private:
  T* base_;
  bool valid_;
};

}  // namespace detail

// Trivial and aggregate on purpose: as a `static thread_local` it then needs
// no guard, and like real shared memory it starts with unspecified contents.
template <class T, std::size_t N, std::size_t... Rest>
struct shared_array {
  static constexpr std::size_t size = detail::Product<N, Rest...>::value;

  auto operator[](SiteIndex i) const noexcept {
    return detail::shared_slice<T, N, Rest...>(const_cast<T*>(storage), true)[i];
  }
  // Untraced raw view (e.g. to hand to a host-side helper).
  T* data() noexcept { return storage; }
  const T* data() const noexcept { return storage; }

  alignas(128) T storage[size];
};

}  // namespace cudalab::emu
