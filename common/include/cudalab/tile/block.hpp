// Block<T, Dims...>: a tile of values held by one program's threads, and the
// element-wise part of the language (arange, full, broadcasting, arithmetic,
// comparisons, where, math, casts).
//
// Layout: the elements of a block are numbered row-major (e = r * N + c for
// an [M, N] block) and element e lives in a register of thread e % kThreads,
// in slot e / kThreads. Consecutive elements are on consecutive threads, so
// a load or store of consecutive addresses is coalesced by construction: a
// warp's request covers 32 consecutive elements. A block smaller than the
// program leaves the threads past its size idle (valid() is false).
// Element-wise operations between blocks of one shape are register
// operations; broadcasting a [M, 1] or [1, N] block to [M, N] moves values
// between threads through shared memory (except [1, N] with N a multiple of
// kThreads, where each thread already holds its columns).
#pragma once

#include <cmath>
#include <type_traits>
#include <utility>

#include "cudalab/tile/program.hpp"

namespace cudalab::tile {
inline namespace CUDALAB_BACKEND {

namespace detail {

constexpr bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// A block's shape; every block type (Block, IndexBlock) checks its shape here.
template <int... Dims>
struct ShapeOf {
  static_assert(sizeof...(Dims) == 1 || sizeof...(Dims) == 2,
                "tile::Block: a block has one or two dimensions, e.g. Block<float, 1024> or "
                "Block<float, 64, 32>");
  static_assert((is_power_of_two(Dims) && ...),
                "tile::Block: every dimension must be a power of two (Triton's rule too); cover "
                "a size like 781 with a 1024-element block and a mask");
  static constexpr int rank = sizeof...(Dims);
  static constexpr int size = (1 * ... * Dims);
};

// The element of an [Ms, Ns] block that element e of its stretch to [M, N]
// stands for.
template <int M, int N, int Ms, int Ns>
__device__ inline int stretch_source(int e) {
  static_assert((Ms == M || Ms == 1) && (Ns == N || Ns == 1),
                "tile::broadcast_to: only a dimension of 1 stretches");
  const int r = Ms == 1 ? 0 : e / N;
  const int c = Ns == 1 ? 0 : e % N;
  return r * Ns + c;
}

// tl.maximum and tl.minimum's rule, also the reductions': NaN wins.
template <class X, class Y>
__device__ inline X nan_max(X x, Y y) {
  return x != x ? x : (y != y || y > x) ? X(y) : x;
}
template <class X, class Y>
__device__ inline X nan_min(X x, Y y) {
  return x != x ? x : (y != y || y < x) ? X(y) : x;
}

}  // namespace detail

template <class T, int... Dims>
class Block {
 public:
  using value_type = T;
  static constexpr int rank = sizeof...(Dims);
  static constexpr int size = detail::ShapeOf<Dims...>::size;
  static constexpr int dims[rank] = {Dims...};
  static constexpr int columns = dims[rank - 1];  // the last dimension
  // Elements per thread: the registers one thread holds.
  static constexpr int per_thread = size >= kThreads ? size / kThreads : 1;

  // The flat (row-major) index of slot i of this thread.
  __device__ static int element(int i) { return thread_rank() + i * kThreads; }
  // Whether slot i holds an element (false on threads past a small block).
  __device__ static bool valid(int /*slot*/) { return size >= kThreads || thread_rank() < size; }
  // The row and column of slot i of a two-dimensional block.
  __device__ static int row(int i) { return element(i) / columns; }
  __device__ static int column(int i) { return element(i) % columns; }

  T v[per_thread] = {};  // this thread's elements, slot by slot
};

template <class B>
inline constexpr bool is_block = false;
template <class T, int... Dims>
inline constexpr bool is_block<Block<T, Dims...>> = true;

// A block whose element e is index_value(e): what tl.arange and the index
// arithmetic built on it (offsets, masks) compute. Nothing is stored: each
// thread computes the elements it needs where it needs them, so stretching
// one ([M, 1] to [M, N]) moves nothing between threads, where a Block's
// stretch goes through shared memory. Combined with a Block, it becomes one.
template <class IndexValue, int... Dims>
class IndexBlock {
 public:
  using value_type = decltype(std::declval<IndexValue>()(0));
  static constexpr int rank = sizeof...(Dims);
  static constexpr int size = detail::ShapeOf<Dims...>::size;
  static constexpr int dims[rank] = {Dims...};

  IndexValue index_value;

  __device__ value_type operator[](int e) const { return index_value(e); }
  // The values this thread holds as a Block.
  __device__ operator Block<value_type, Dims...>() const {  // NOLINT: a block where one is wanted
    Block<value_type, Dims...> out;
    for (int i = 0; i < out.per_thread; ++i) out.v[i] = index_value(out.element(i));
    return out;
  }
};

template <class B>
inline constexpr bool is_index_block = false;
template <class F, int... Dims>
inline constexpr bool is_index_block<IndexBlock<F, Dims...>> = true;
template <class B>
inline constexpr bool is_block_like = is_block<B> || is_index_block<B>;

template <int... Dims, class F>
__device__ inline IndexBlock<F, Dims...> index_block(F index_value) {
  return {index_value};
}

// The values of any block this thread holds, as a Block.
template <class T, int... Dims>
__device__ inline const Block<T, Dims...>& materialize(const Block<T, Dims...>& x) {
  return x;
}
template <class F, int... Dims>
__device__ inline auto materialize(const IndexBlock<F, Dims...>& x) {
  return static_cast<Block<typename IndexBlock<F, Dims...>::value_type, Dims...>>(x);
}

// ---- creation -------------------------------------------------------------------

namespace detail {
struct Identity {
  __device__ int operator()(int e) const { return e; }
};
}  // namespace detail

// tl.arange(0, N): the block [0, 1, ..., N - 1] of int (an IndexBlock).
template <int N>
__device__ inline IndexBlock<detail::Identity, N> arange() {
  return {detail::Identity{}};
}

// tl.full(shape, value) and tl.zeros(shape).
template <class T, int... Dims>
__device__ inline Block<T, Dims...> full(T value) {
  Block<T, Dims...> out;
  for (int i = 0; i < out.per_thread; ++i) out.v[i] = value;
  return out;
}
template <class T, int... Dims>
__device__ inline Block<T, Dims...> zeros() {
  return full<T, Dims...>(T(0));
}

// ---- shapes -----------------------------------------------------------------------

// x[:, None] and x[None, :]: a one-dimensional block as a column [N, 1] or a
// row [1, N]. The flat order is unchanged, so no element moves.
template <class T, int N>
__device__ inline Block<T, N, 1> as_column(const Block<T, N>& x) {
  Block<T, N, 1> out;
  for (int i = 0; i < out.per_thread; ++i) out.v[i] = x.v[i];
  return out;
}
template <class T, int N>
__device__ inline Block<T, 1, N> as_row(const Block<T, N>& x) {
  Block<T, 1, N> out;
  for (int i = 0; i < out.per_thread; ++i) out.v[i] = x.v[i];
  return out;
}
template <class F, int N>
__device__ inline IndexBlock<F, N, 1> as_column(const IndexBlock<F, N>& x) {
  return {x.index_value};
}
template <class F, int N>
__device__ inline IndexBlock<F, 1, N> as_row(const IndexBlock<F, N>& x) {
  return {x.index_value};
}

namespace detail {

// The shape two blocks broadcast to (numpy's rule: align the last
// dimensions; a dimension of 1 stretches).
template <class A, class B>
struct Broadcast;
template <int M, int N>
struct Broadcast<ShapeOf<M>, ShapeOf<N>> {
  static_assert(M == N || M == 1 || N == 1, "tile: shapes [M] and [N] cannot broadcast");
  using type = ShapeOf<(M > N ? M : N)>;
};
template <int M, int N, int K>
struct Broadcast<ShapeOf<M, N>, ShapeOf<K>> : Broadcast<ShapeOf<M, N>, ShapeOf<1, K>> {};
template <int K, int M, int N>
struct Broadcast<ShapeOf<K>, ShapeOf<M, N>> : Broadcast<ShapeOf<1, K>, ShapeOf<M, N>> {};
template <int M1, int N1, int M2, int N2>
struct Broadcast<ShapeOf<M1, N1>, ShapeOf<M2, N2>> {
  static_assert((M1 == M2 || M1 == 1 || M2 == 1) && (N1 == N2 || N1 == 1 || N2 == 1),
                "tile: these two block shapes cannot broadcast (each dimension must match or "
                "be 1)");
  using type = ShapeOf<(M1 > M2 ? M1 : M2), (N1 > N2 ? N1 : N2)>;
};

template <class T, class Shape>
struct BlockOf;
template <class T, int... Dims>
struct BlockOf<T, ShapeOf<Dims...>> {
  using type = Block<T, Dims...>;
};

// dest element e <- src element source_of(e), for any layouts: through the
// program's shared memory (every source element written once, then each
// thread reads what it needs).
template <class Dest, class T, int... S, class SourceOf>
__device__ inline Dest gather(const Block<T, S...>& src, SourceOf source_of) {
  Dest out;
  if constexpr (kThreads == 1) {
    for (int e = 0; e < Dest::size; ++e) out.v[e] = src.v[source_of(e)];
  } else {
    using Src = Block<T, S...>;
    T* shared = scratch<T, Src::size>();
    for (int i = 0; i < Src::per_thread; ++i) {
      if (src.valid(i)) shared[src.element(i)] = src.v[i];
    }
    sync_program();
    for (int i = 0; i < Dest::per_thread; ++i) {
      if (out.valid(i)) out.v[i] = shared[source_of(out.element(i))];
    }
    sync_program();
  }
  return out;
}

}  // namespace detail

// The block x stretched to Dims... (broadcast_to in Triton and numpy).
template <int... Dims, class T, int... S>
__device__ inline Block<T, Dims...> broadcast_to(const Block<T, S...>& x) {
  using Dest = Block<T, Dims...>;
  using Src = Block<T, S...>;
  if constexpr (std::is_same_v<Dest, Src>) {
    return x;
  } else if constexpr (Src::rank == 1 && Dest::rank == 2) {
    return broadcast_to<Dims...>(as_row(x));
  } else if constexpr (Src::rank == 1) {
    static_assert(Src::size == 1, "tile::broadcast_to: only a dimension of 1 stretches");
    return detail::gather<Dest>(x, [](int) { return 0; });
  } else {
    constexpr int M = Dest::dims[0], N = Dest::dims[1];
    constexpr int Ms = Src::dims[0], Ns = Src::dims[1];
    if constexpr (Ms == 1 && Ns == N && N % kThreads == 0) {
      // Each thread's columns repeat every N / kThreads slots: no element moves.
      Dest out;
      for (int i = 0; i < Dest::per_thread; ++i) out.v[i] = x.v[i % Src::per_thread];
      return out;
    } else {
      return detail::gather<Dest>(x, [](int e) { return detail::stretch_source<M, N, Ms, Ns>(e); });
    }
  }
}

// An IndexBlock stretched: each element computed from the source element it
// stands for; nothing moves.
template <int... Dims, class F, int... S>
__device__ inline auto broadcast_to(const IndexBlock<F, S...>& x) {
  using Src = IndexBlock<F, S...>;
  if constexpr (sizeof...(Dims) == sizeof...(S) && ((Dims == S) && ...)) {
    return x;
  } else if constexpr (Src::rank == 1 && sizeof...(Dims) == 2) {
    return broadcast_to<Dims...>(as_row(x));
  } else if constexpr (Src::rank == 1) {
    static_assert(Src::size == 1, "tile::broadcast_to: only a dimension of 1 stretches");
    return index_block<Dims...>([x](int) { return x.index_value(0); });
  } else {
    constexpr int dest[] = {Dims...};
    constexpr int M = dest[0], N = dest[1];
    constexpr int Ms = Src::dims[0], Ns = Src::dims[1];
    return index_block<Dims...>(
        [x](int e) { return x.index_value(detail::stretch_source<M, N, Ms, Ns>(e)); });
  }
}

// ---- element-wise ------------------------------------------------------------------

namespace detail {

template <class X>
struct Operand {  // a scalar: the same value in every element
  static constexpr bool block = false;
  static constexpr bool stored = false;
  __device__ static X at(const X& x, int) { return x; }
  __device__ static X value(const X& x, int) { return x; }
};
template <class T, int... Dims>
struct Operand<Block<T, Dims...>> {
  static constexpr bool block = true;
  static constexpr bool stored = true;
  using shape = ShapeOf<Dims...>;
  __device__ static T at(const Block<T, Dims...>& x, int i) { return x.v[i]; }
};
template <class F, int... Dims>
struct Operand<IndexBlock<F, Dims...>> {
  static constexpr bool block = true;
  static constexpr bool stored = false;
  using shape = ShapeOf<Dims...>;
  using X = IndexBlock<F, Dims...>;
  // Slot i of this thread, in the block layout.
  __device__ static auto at(const X& x, int i) {
    return x.index_value(thread_rank() + i * kThreads);
  }
  __device__ static auto value(const X& x, int e) { return x.index_value(e); }
};

template <class X, int... D>
__device__ inline auto broadcast_to_shape(const X& x, ShapeOf<D...>) {
  return broadcast_to<D...>(x);
}

// An operand of an element-wise operation brought to Shape (a scalar stays).
template <class T, class Shape>
__device__ inline auto stretched(const T& x) {
  if constexpr (is_block_like<T>) {
    return broadcast_to_shape(x, Shape{});
  } else {
    return x;
  }
}

template <class F, class Shape>
struct IndexBlockOf;
template <class F, int... Dims>
struct IndexBlockOf<F, ShapeOf<Dims...>> {
  using type = IndexBlock<F, Dims...>;
};

template <class A, class B>
struct ResultShape;  // of an element-wise operation on A and B
template <class A, class B>
requires(Operand<A>::block&& Operand<B>::block) struct ResultShape<A, B> {
  using type = typename Broadcast<typename Operand<A>::shape, typename Operand<B>::shape>::type;
};
template <class A, class B>
requires(Operand<A>::block && !Operand<B>::block) struct ResultShape<A, B> {
  using type = typename Operand<A>::shape;
};
template <class A, class B>
requires(!Operand<A>::block && Operand<B>::block) struct ResultShape<A, B> {
  using type = typename Operand<B>::shape;
};
template <class A, class B>
requires(!Operand<A>::block &&
         !Operand<B>::block) struct ResultShape<A, B> {  // two scalars (where's x and y): they
                                                         // stretch to anything
  using type = ShapeOf<1>;
};

}  // namespace detail

// f applied element by element: map(f, x) and zip(f, x, y) (blocks of
// broadcastable shapes, or a block and a scalar).
template <class F, class T, int... Dims>
__device__ inline auto map(F f, const Block<T, Dims...>& x) {
  Block<decltype(f(x.v[0])), Dims...> out;
  for (int i = 0; i < out.per_thread; ++i) out.v[i] = f(x.v[i]);
  return out;
}

template <class F, class G, int... Dims>
__device__ inline auto map(F f, const IndexBlock<G, Dims...>& x) {
  return index_block<Dims...>([f, x](int e) { return f(x.index_value(e)); });
}

// An element-wise operation on index blocks and scalars is an index block;
// with a Block in it, a Block.
template <class F, class A, class B>
requires(is_block_like<A> || is_block_like<B>) __device__
    inline auto zip(F f, const A& a, const B& b) {
  using Shape = typename detail::ResultShape<A, B>::type;
  const auto aa = detail::stretched<A, Shape>(a);
  const auto bb = detail::stretched<B, Shape>(b);
  using AA = std::remove_cv_t<decltype(aa)>;
  using BB = std::remove_cv_t<decltype(bb)>;
  if constexpr (!detail::Operand<AA>::stored && !detail::Operand<BB>::stored) {
    const auto index_value = [f, aa, bb](int e) {
      return f(detail::Operand<AA>::value(aa, e), detail::Operand<BB>::value(bb, e));
    };
    return typename detail::IndexBlockOf<decltype(index_value), Shape>::type{index_value};
  } else {
    using R = decltype(f(detail::Operand<AA>::at(aa, 0), detail::Operand<BB>::at(bb, 0)));
    typename detail::BlockOf<R, Shape>::type out;
    for (int i = 0; i < out.per_thread; ++i) {
      out.v[i] = f(detail::Operand<AA>::at(aa, i), detail::Operand<BB>::at(bb, i));
    }
    return out;
  }
}

#define CUDALAB_TILE_BINARY(op)                                                                   \
  template <class A, class B>                                                                     \
  requires(is_block_like<A> || is_block_like<B>) __device__ inline auto operator op(const A& a,   \
                                                                                    const B& b) { \
    return zip([](auto x, auto y) { return x op y; }, a, b);                                      \
  }
CUDALAB_TILE_BINARY(+)
CUDALAB_TILE_BINARY(-)
CUDALAB_TILE_BINARY(*)
CUDALAB_TILE_BINARY(/)
CUDALAB_TILE_BINARY(%)
CUDALAB_TILE_BINARY(<)
CUDALAB_TILE_BINARY(<=)
CUDALAB_TILE_BINARY(>)
CUDALAB_TILE_BINARY(>=)
CUDALAB_TILE_BINARY(==)
CUDALAB_TILE_BINARY(!=)
#undef CUDALAB_TILE_BINARY

// Masks combine with & and | (and stay bool); int blocks take them bitwise.
#define CUDALAB_TILE_BITWISE(op)                                                                  \
  template <class A, class B>                                                                     \
  requires(is_block_like<A> || is_block_like<B>) __device__ inline auto operator op(const A& a,   \
                                                                                    const B& b) { \
    return zip(                                                                                   \
        [](auto x, auto y) {                                                                      \
          if constexpr (std::is_same_v<decltype(x), bool> && std::is_same_v<decltype(y), bool>) { \
            return static_cast<bool>(x op y);                                                     \
          } else {                                                                                \
            return x op y;                                                                        \
          }                                                                                       \
        },                                                                                        \
        a, b);                                                                                    \
  }
CUDALAB_TILE_BITWISE(&)
CUDALAB_TILE_BITWISE(|)
#undef CUDALAB_TILE_BITWISE

template <class T, int... Dims>
__device__ inline Block<T, Dims...> operator-(const Block<T, Dims...>& x) {
  return map([](T v) { return T(-v); }, x);
}
template <int... Dims>
__device__ inline Block<bool, Dims...> operator!(const Block<bool, Dims...>& x) {
  return map([](bool v) { return !v; }, x);
}
template <class F, int... Dims>
__device__ inline auto operator-(const IndexBlock<F, Dims...>& x) {
  return map([](auto v) { return decltype(v)(-v); }, x);
}
template <class F, int... Dims>
__device__ inline auto operator!(const IndexBlock<F, Dims...>& x) {
  return map([](auto v) { return !v; }, x);
}

// x += y and friends keep x's shape and type (y broadcasts to it).
#define CUDALAB_TILE_ASSIGN(op)                                                           \
  template <class T, int... Dims, class Y>                                                \
  __device__ inline Block<T, Dims...>& operator op##=(Block<T, Dims...>& x, const Y& y) { \
    const auto yy = detail::stretched<Y, detail::ShapeOf<Dims...>>(y);                    \
    using YY = std::remove_cv_t<decltype(yy)>;                                            \
    for (int i = 0; i < x.per_thread; ++i) {                                              \
      x.v[i] = static_cast<T>(x.v[i] op detail::Operand<YY>::at(yy, i));                  \
    }                                                                                     \
    return x;                                                                             \
  }
CUDALAB_TILE_ASSIGN(+)
CUDALAB_TILE_ASSIGN(-)
CUDALAB_TILE_ASSIGN(*)
CUDALAB_TILE_ASSIGN(/)
#undef CUDALAB_TILE_ASSIGN

// tl.where(condition, x, y): x where the condition holds, else y.
// The result has x's element type (y's when x is a scalar), and the shape
// all three broadcast to.
template <class C, class X, class Y>
requires(is_block_like<C>) __device__
    inline auto where(const C& condition, const X& x, const Y& y) {
  using XY = typename detail::ResultShape<X, Y>::type;
  using Shape = typename detail::Broadcast<typename detail::Operand<C>::shape, XY>::type;
  const auto cc = detail::stretched<C, Shape>(condition);
  const auto xx = detail::stretched<X, Shape>(x);
  const auto yy = detail::stretched<Y, Shape>(y);
  using CC = std::remove_cv_t<decltype(cc)>;
  using XX = std::remove_cv_t<decltype(xx)>;
  using YY = std::remove_cv_t<decltype(yy)>;
  using R = std::conditional_t<is_block_like<X>, decltype(detail::Operand<XX>::at(xx, 0)),
                               decltype(detail::Operand<YY>::at(yy, 0))>;
  if constexpr (!detail::Operand<CC>::stored && !detail::Operand<XX>::stored &&
                !detail::Operand<YY>::stored) {
    const auto index_value = [cc, xx, yy](int e) {
      return detail::Operand<CC>::value(cc, e) ? static_cast<R>(detail::Operand<XX>::value(xx, e))
                                               : static_cast<R>(detail::Operand<YY>::value(yy, e));
    };
    return typename detail::IndexBlockOf<decltype(index_value), Shape>::type{index_value};
  } else {
    typename detail::BlockOf<R, Shape>::type out;
    for (int i = 0; i < out.per_thread; ++i) {
      out.v[i] = detail::Operand<CC>::at(cc, i) ? static_cast<R>(detail::Operand<XX>::at(xx, i))
                                                : static_cast<R>(detail::Operand<YY>::at(yy, i));
    }
    return out;
  }
}

// tl.maximum / tl.minimum (NaN-propagating, as Triton's default).
template <class A, class B>
requires(is_block_like<A> || is_block_like<B>) __device__
    inline auto maximum(const A& a, const B& b) {
  return zip([](auto x, auto y) { return detail::nan_max(x, y); }, a, b);
}
template <class A, class B>
requires(is_block_like<A> || is_block_like<B>) __device__
    inline auto minimum(const A& a, const B& b) {
  return zip([](auto x, auto y) { return detail::nan_min(x, y); }, a, b);
}

// Math on float blocks, with the CUDA math library's functions.
#define CUDALAB_TILE_MATH(name, fn)                                              \
  template <int... Dims>                                                         \
  __device__ inline Block<float, Dims...> name(const Block<float, Dims...>& x) { \
    return map([](float v) { return fn(v); }, x);                                \
  }
CUDALAB_TILE_MATH(sqrt, sqrtf)
CUDALAB_TILE_MATH(exp, expf)
CUDALAB_TILE_MATH(exp2, exp2f)
CUDALAB_TILE_MATH(log, logf)
CUDALAB_TILE_MATH(abs, fabsf)
#undef CUDALAB_TILE_MATH

// x.to(dtype): each element converted (to __half and __nv_bfloat16 with
// round-to-nearest-even, as Triton's default).
template <class U, class T, int... Dims>
__device__ inline Block<U, Dims...> cast(const Block<T, Dims...>& x) {
  Block<U, Dims...> out;
  for (int i = 0; i < out.per_thread; ++i) {
    if constexpr (std::is_same_v<U, __half> && !std::is_same_v<T, __half>) {
      out.v[i] = __float2half_rn(static_cast<float>(x.v[i]));
    } else if constexpr (std::is_same_v<U, __nv_bfloat16> && !std::is_same_v<T, __nv_bfloat16>) {
      out.v[i] = __float2bfloat16_rn(static_cast<float>(x.v[i]));
    } else {
      out.v[i] = static_cast<U>(x.v[i]);
    }
  }
  return out;
}

// Math and casts of an index block: of its values, as a Block.
template <class U, class F, int... Dims>
__device__ inline auto cast(const IndexBlock<F, Dims...>& x) {
  return cast<U>(materialize(x));
}
#define CUDALAB_TILE_MATH_OF_INDEX(name)                         \
  template <class F, int... Dims>                                \
  __device__ inline auto name(const IndexBlock<F, Dims...>& x) { \
    return name(cast<float>(materialize(x)));                    \
  }
CUDALAB_TILE_MATH_OF_INDEX(sqrt)
CUDALAB_TILE_MATH_OF_INDEX(exp)
CUDALAB_TILE_MATH_OF_INDEX(exp2)
CUDALAB_TILE_MATH_OF_INDEX(log)
CUDALAB_TILE_MATH_OF_INDEX(abs)
#undef CUDALAB_TILE_MATH_OF_INDEX

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::tile
