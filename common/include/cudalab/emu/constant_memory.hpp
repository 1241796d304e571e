// `__constant__` variables and the symbol API in the emulator build
// (docs/emulator.md, "Constant memory and pitched memory").
//
// tools/emu_rewrite.py turns `__constant__ float table[256];` at namespace
// scope into `static constant_symbol<float[256], Site> table{"table", ...};`.
// The object holds no data: every device has a constant bank (one device
// allocation, constant_memory.cpp) where each variable has the same offset,
// and every use of the name reaches the copy of the device the calling kernel
// runs on (host code: the current device), as each GPU loads its own copy of
// a module's constant data. sizeof(name) is sizeof(T), as under nvcc. The
// copy is read-only through the name: a store is a compile error, as nvcc
// rejects it.
#pragma once

#include <driver_types.h>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

// What the GPU gives a module's __constant__ variables (cudaDeviceProp::totalConstMem).
inline constexpr std::size_t kConstantBytesPerModule = 64 * 1024;

namespace detail {
struct ConstantVariable;  // constant_memory.cpp
// Places a declaration in the constant banks (the initial bytes, if any, in
// every device's copy). A declaration that does not fit in the 64 KiB of its
// file is registered without a place, and that is said on stderr at once.
ConstantVariable* register_constant(const char* name, const char* file, unsigned line,
                                    std::size_t bytes, std::size_t alignment,
                                    const void* initial) noexcept;
// The copy the calling CUDA thread's device holds (host code: the current
// device's). Throws std::length_error, naming the variable, for one without a place.
const void* constant_address(const ConstantVariable* variable);
// A `__device__` variable at namespace scope (the rewrite registers it), so
// that the symbol API accepts it, as the GPU does. One copy for every device.
bool register_device_symbol(const void* address, std::size_t bytes, const char* name) noexcept;

cudaError_t memcpy_to_symbol(const ConstantVariable* variable, const void* symbol, const void* src,
                             std::size_t count, std::size_t offset, cudaMemcpyKind kind,
                             cudaStream_t stream, bool async);
cudaError_t memcpy_from_symbol(void* dst, const ConstantVariable* variable, const void* symbol,
                               std::size_t count, std::size_t offset, cudaMemcpyKind kind,
                               cudaStream_t stream, bool async);
cudaError_t get_symbol_address(void** address, const ConstantVariable* variable,
                               const void* symbol);
cudaError_t get_symbol_size(std::size_t* size, const ConstantVariable* variable,
                            const void* symbol);
}  // namespace detail

// T: the declared type (float[256], int, a struct); Site: a type unique to
// the declaration; Align: from __align__ or alignas.
template <class T, class Site, std::size_t Align = alignof(T)>
class alignas(Align) constant_symbol {
  static_assert(std::is_trivially_copyable_v<std::remove_all_extents_t<T>>,
                "a __constant__ variable must be of a trivially copyable type: the GPU copies "
                "its bytes (cudaMemcpyToSymbol)");
  static_assert(sizeof(T) <= kConstantBytesPerModule,
                "this __constant__ variable is larger than the GPU's 64 KiB of constant memory "
                "(nvcc refuses it too): put the data in global memory (cudaMalloc)");

 public:
  constant_symbol(const char* name, const char* file, unsigned line) noexcept {
    variable_ = detail::register_constant(name, file, line, sizeof(T), Align, nullptr);
  }
  constant_symbol(const char* name, const char* file, unsigned line, const T& initial) noexcept {
    variable_ =
        detail::register_constant(name, file, line, sizeof(T), Align, std::addressof(initial));
  }
  constant_symbol(const constant_symbol&) = delete;
  constant_symbol& operator=(const constant_symbol&) = delete;

  // Not instrumented (it only finds the copy): the caller's load from the
  // reference it returns is the traced constant-memory access.
  [[gnu::no_sanitize("thread"), gnu::noinline]] const T& get() const {
    return *static_cast<const T*>(detail::constant_address(variable_));
  }

  // An array: name[i] (read-only) and name as a pointer to its first element.
  decltype(auto) operator[](std::ptrdiff_t i) const requires std::is_array_v<T> { return get()[i]; }
  operator const std::remove_extent_t<T>*() const requires std::is_array_v<T> { return get(); }
  // A scalar: reads.
  operator const T&() const requires(!std::is_array_v<T>) { return get(); }
  const T* operator&() const { return std::addressof(get()); }

  template <class Value>
  void operator=(Value&&) const {
    static_assert(sizeof(Value) == 0,
                  "a __constant__ variable is read-only in device code (nvcc rejects the store "
                  "too): fill it from the host with cudaMemcpyToSymbol");
  }

  detail::ConstantVariable* variable() const noexcept { return variable_; }

 private:
  static inline detail::ConstantVariable* variable_ = nullptr;
  // Only for sizeof(name); the copies live in the devices' constant banks.
  unsigned char size_as_declared_[sizeof(T)];
};

namespace detail {
template <class T>
struct is_constant_symbol : std::false_type {};
template <class T, class Site, std::size_t Align>
struct is_constant_symbol<constant_symbol<T, Site, Align>> : std::true_type {};

// The registered variable of `symbol`, or nullptr when it is anything else
// (then its address is looked up: a __device__ variable, or not a symbol).
template <class T>
const ConstantVariable* variable_of(const T& symbol) noexcept {
  if constexpr (is_constant_symbol<T>::value) {
    return symbol.variable();
  } else {
    return nullptr;
  }
}
}  // namespace detail

// CUDA's C API takes the symbol as `const void*` (declared from the table
// runtime_api.def, in runtime.hpp) and its C++ overloads (cuda_runtime.h) as
// `const T&`: these templates, the table's rows for this header.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t count,
                               std::size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return detail::memcpy_to_symbol(detail::variable_of(symbol), std::addressof(symbol), src, count,
                                  offset, kind, nullptr, false);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, std::size_t count,
                                    std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                    cudaStream_t stream = nullptr) {
  return detail::memcpy_to_symbol(detail::variable_of(symbol), std::addressof(symbol), src, count,
                                  offset, kind, stream, true);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t count,
                                 std::size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return detail::memcpy_from_symbol(dst, detail::variable_of(symbol), std::addressof(symbol), count,
                                    offset, kind, nullptr, false);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t count,
                                      std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                      cudaStream_t stream = nullptr) {
  return detail::memcpy_from_symbol(dst, detail::variable_of(symbol), std::addressof(symbol), count,
                                    offset, kind, stream, true);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** address, const T& symbol) {
  return detail::get_symbol_address(address, detail::variable_of(symbol), std::addressof(symbol));
}
template <class T>
cudaError_t cudaGetSymbolSize(std::size_t* size, const T& symbol) {
  return detail::get_symbol_size(size, detail::variable_of(symbol), std::addressof(symbol));
}

}  // namespace cudalab::emu
