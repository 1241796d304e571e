// `__shared__` variables declared at namespace scope, in the emulator build.
// tools/emu_rewrite.py turns
//   __shared__ float tile[32][33];   into  static shared_at_namespace<float[32][33], Site> tile;
//   extern __shared__ float buf[];   into  static dynamic_shared_at_namespace<float> buf;
// (Site: a type unique to the declaration). Each object is empty; every use
// reaches the copy of the block that runs now, as on the GPU: tile[i][j],
// buf[i], passing the name as a pointer, and for a scalar, reading, assigning
// and taking its address. Not provided: sizeof(name), which is the wrapper's
// size, and member access on a scalar of class type; declare those in the
// kernel instead, where the rewrite makes the name a plain reference.
#pragma once

#include <cstddef>
#include <type_traits>

#include "cudalab/emu/launch.hpp"

#include "cudalab/emu/shared_memory.hpp"

namespace cudalab::emu {

// T: the declared type, e.g. float[32][33] or int. Align: from __align__ or alignas.
template <class T, class Site, std::size_t Align = alignof(T)>
class shared_at_namespace {
 public:
  T& get() const noexcept {
    return static_cast<T&>(static_shared<std::remove_cv_t<T>, Align>(Site{}));
  }

  // An array: name[i] and name as a pointer to its first element.
  decltype(auto) operator[](std::ptrdiff_t i) const noexcept requires std::is_array_v<T> {
    return get()[i];
  }
  operator std::remove_extent_t<T>*() const noexcept requires std::is_array_v<T> { return get(); }

  // A scalar: reads, assignments and &name.
  operator T&() const noexcept requires(!std::is_array_v<T>) { return get(); }
  template <class Value>
  const shared_at_namespace& operator=(Value&& value) const noexcept requires(!std::is_array_v<T>) {
    get() = static_cast<Value&&>(value);
    return *this;
  }
  T* operator&() const noexcept requires(!std::is_array_v<T>) { return &get(); }
  template <class Value>
  const shared_at_namespace& operator+=(const Value& value) const noexcept
      requires(!std::is_array_v<T>) {
    get() = get() + value;
    return *this;
  }
  template <class Value>
  const shared_at_namespace& operator-=(const Value& value) const noexcept
      requires(!std::is_array_v<T>) {
    get() = get() - value;
    return *this;
  }
  const shared_at_namespace& operator++() const noexcept requires(!std::is_array_v<T>) {
    return *this += 1;
  }
  const shared_at_namespace& operator--() const noexcept requires(!std::is_array_v<T>) {
    return *this -= 1;
  }
};

// Element: the type of buf[i], e.g. float (or float[32] for `buf[][32]`).
template <class Element>
class dynamic_shared_at_namespace {
 public:
  Element* get() const noexcept { return static_cast<Element*>(dynamic_shared_memory()); }
  Element& operator[](std::ptrdiff_t i) const noexcept { return get()[i]; }
  operator Element*() const noexcept { return get(); }
};

}  // namespace cudalab::emu
