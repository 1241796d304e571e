// Moving blocks between global memory and registers.
//
//   tl.load(x_ptr + offs, mask=offs < n, other=0)   tile::load(x, offs, offs < n, 0.0f)
//   tl.store(y_ptr + offs, y, mask=offs < n)        tile::store(y, offs, values, offs < n)
//
// Each thread loads or stores the elements it holds (element e on thread
// e % kThreads), so offsets that grow by one from element to element give
// each warp one request over consecutive addresses. A masked-out element is
// never read or written: its address is not even formed into an access, so
// offsets past the end of an array are harmless under a mask (the emulator
// checks every access that is made).
//
// The second form, Triton's block pointers (make_block_ptr, advance): a
// window of a two-dimensional tensor whose loads pad outside the tensor and
// whose stores skip it, without a mask written by hand.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudalab/tile/block.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

namespace detail {

// The element ptr[offset], checked in the interpreter: with no CUDA threads
// the emulator cannot watch the access, so the interpreter refuses one
// outside every device allocation (as the emulator would report it) rather
// than touch host memory it does not own.
template <class T>
__device__ inline T& element_at(T* ptr, std::int64_t offset, [[maybe_unused]] const char* what) {
#if CUDALAB_INTERPRET
  const auto* address = ptr + offset;
  if (::cudalab::emu::device_bytes_from(address) < sizeof(T)) {
    throw std::out_of_range(std::string("tile::") + what + ": element offset " +
                            std::to_string(offset) +
                            " lies outside every device allocation (out of bounds; is a mask "
                            "missing?)");
  }
#endif
  return ptr[offset];
}

}  // namespace detail

namespace detail {

template <class Offsets>
using ShapeOfBlock = typename Operand<Offsets>::shape;

template <class Offsets>
inline constexpr bool integer_offsets = std::is_integral_v<
    std::remove_cv_t<decltype(Operand<Offsets>::at(std::declval<Offsets>(), 0))>>;

}  // namespace detail

// Every element: ptr[offsets]. Offsets (and masks, and stored values) may be
// Blocks or index blocks (arange arithmetic); a mask or a value broadcasts
// to the offsets' shape.
template <class T, class Offsets>
requires(is_block_like<Offsets>) __device__ inline auto load(T* ptr, const Offsets& offsets) {
  static_assert(detail::integer_offsets<Offsets>, "tile::load: offsets must be integers");
  const auto o = materialize(offsets);
  typename detail::BlockOf<std::remove_cv_t<T>, detail::ShapeOfBlock<Offsets>>::type out;
  for (int i = 0; i < out.per_thread; ++i) {
    if (out.valid(i)) out.v[i] = detail::element_at(ptr, o.v[i], "load");
  }
  return out;
}

// ptr[offsets] where mask holds, else `other` (0 unless given).
template <class T, class Offsets, class Mask>
requires(is_block_like<Offsets>&& is_block_like<Mask>) __device__
    inline auto load(T* ptr, const Offsets& offsets, const Mask& mask,
                     std::remove_cv_t<T> other = std::remove_cv_t<T>(0)) {
  static_assert(detail::integer_offsets<Offsets>, "tile::load: offsets must be integers");
  using Shape = detail::ShapeOfBlock<Offsets>;
  // Every address and mask bit first, then the loads: all of them in flight at once.
  const auto o = materialize(offsets);
  const auto m = materialize(detail::stretched<Mask, Shape>(mask));
  typename detail::BlockOf<std::remove_cv_t<T>, Shape>::type out;
  for (int i = 0; i < out.per_thread; ++i) {
    out.v[i] = other;
    if (out.valid(i) && m.v[i]) out.v[i] = detail::element_at(ptr, o.v[i], "load");
  }
  return out;
}

// ptr[offsets] = values, each value converted to T (as tl.store does).
template <class T, class Offsets, class Values>
requires(is_block_like<Offsets>&& is_block_like<Values>) __device__
    inline void store(T* ptr, const Offsets& offsets, const Values& values) {
  static_assert(detail::integer_offsets<Offsets>, "tile::store: offsets must be integers");
  using Shape = detail::ShapeOfBlock<Offsets>;
  const auto o = materialize(offsets);
  const auto v = materialize(detail::stretched<Values, Shape>(values));
  for (int i = 0; i < o.per_thread; ++i) {
    if (o.valid(i)) detail::element_at(ptr, o.v[i], "store") = static_cast<T>(v.v[i]);
  }
}

// ptr[offsets] = values where mask holds.
template <class T, class Offsets, class Values, class Mask>
requires(is_block_like<Offsets>&& is_block_like<Values>&& is_block_like<Mask>) __device__
    inline void store(T* ptr, const Offsets& offsets, const Values& values, const Mask& mask) {
  static_assert(detail::integer_offsets<Offsets>, "tile::store: offsets must be integers");
  using Shape = detail::ShapeOfBlock<Offsets>;
  const auto o = materialize(offsets);
  const auto v = materialize(detail::stretched<Values, Shape>(values));
  const auto m = materialize(detail::stretched<Mask, Shape>(mask));
  for (int i = 0; i < o.per_thread; ++i) {
    if (o.valid(i) && m.v[i]) detail::element_at(ptr, o.v[i], "store") = static_cast<T>(v.v[i]);
  }
}

// ---- block pointers ---------------------------------------------------------------

// What an element outside the tensor reads as.
enum class Padding { zero, nan };

// A [BM, BN] window at (row, column) of a rows x columns tensor whose element
// (r, c) is base[r * row_stride + c * column_stride].
template <class T, int BM, int BN>
struct BlockPtr {
  T* base;
  int rows, columns;
  int row_stride, column_stride;
  int row, column;  // the window's first element
};

// tl.make_block_ptr(base, shape=(rows, columns), strides=(row_stride,
// column_stride), offsets=(row, column), block_shape=(BM, BN)).
template <int BM, int BN, class T>
__device__ inline BlockPtr<T, BM, BN> make_block_ptr(T* base, int rows, int columns, int row_stride,
                                                     int column_stride, int row, int column) {
  return {base, rows, columns, row_stride, column_stride, row, column};
}

// tl.advance(ptr, (rows, columns)): the window moved.
template <class T, int BM, int BN>
__device__ inline BlockPtr<T, BM, BN> advance(BlockPtr<T, BM, BN> ptr, int rows, int columns) {
  ptr.row += rows;
  ptr.column += columns;
  return ptr;
}

namespace detail {

// Whether element (r, c) of the window lies in the tensor, and its address.
template <class T, int BM, int BN>
__device__ inline bool window_element(const BlockPtr<T, BM, BN>& ptr, int e, T** address) {
  const int r = ptr.row + e / BN;
  const int c = ptr.column + e % BN;
  if (r < 0 || r >= ptr.rows || c < 0 || c >= ptr.columns) return false;
  *address =
      &element_at(ptr.base, std::int64_t{r} * ptr.row_stride + std::int64_t{c} * ptr.column_stride,
                  "load/store through a block pointer");
  return true;
}

}  // namespace detail

// tl.load(block_ptr, boundary_check=(0, 1), padding_option=...).
template <class T, int BM, int BN>
__device__ inline Block<std::remove_cv_t<T>, BM, BN> load(const BlockPtr<T, BM, BN>& ptr,
                                                          Padding padding = Padding::zero) {
  using U = std::remove_cv_t<T>;
  U pad = U(0);
  if constexpr (!std::is_integral_v<U>) {
    if (padding == Padding::nan) pad = U(NAN);
  }
  Block<U, BM, BN> out;
  for (int i = 0; i < out.per_thread; ++i) {
    T* address = nullptr;
    out.v[i] = pad;
    if (out.valid(i) && detail::window_element(ptr, out.element(i), &address)) {
      out.v[i] = *address;
    }
  }
  return out;
}

// tl.store(block_ptr, values, boundary_check=(0, 1)).
template <class T, int BM, int BN, class V>
__device__ inline void store(const BlockPtr<T, BM, BN>& ptr, const Block<V, BM, BN>& values) {
  for (int i = 0; i < values.per_thread; ++i) {
    T* address = nullptr;
    if (values.valid(i) && detail::window_element(ptr, values.element(i), &address)) {
      *address = static_cast<T>(values.v[i]);
    }
  }
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
