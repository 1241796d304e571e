// The operators of cg::reduce and cg::inclusive_scan/exclusive_scan, as CUDA
// 13.0's cooperative_groups/details/functional.h defines them (less and
// greater pick the second argument only when it is strictly smaller or
// larger, which decides which NaN or which of -0.0 and +0.0 a float
// reduction returns), and the shared checks of both collectives.
#pragma once

#include <type_traits>

#include "cudalab/emu/cooperative_groups.hpp"

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
  T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <class T>
struct greater {
  T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {

template <class T>
using remove_qual = std::remove_cv_t<std::remove_reference_t<T>>;

// The groups reduce and scan take: tiles of one warp and coalesced groups.
template <class G>
struct is_warp_group : std::false_type {};
template <unsigned int Size, class ParentT>
struct is_warp_group<thread_block_tile<Size, ParentT>> : std::true_type {};
template <>
struct is_warp_group<coalesced_group> : std::true_type {};

template <class Group, class Value, class Result>
constexpr void check_collective() {
  static_assert(is_warp_group<remove_qual<Group>>::value,
                "cg::reduce and cg::inclusive_scan/exclusive_scan take a thread_block_tile or a "
                "coalesced_group (CUDA: \"This group does not exclusively represent a tile\")");
  static_assert(std::is_same_v<remove_qual<Value>, remove_qual<Result>>,
                "cg::reduce / scan: the operator's result type differs from the value's (CUDA: "
                "\"Operator input and output types differ\")");
}

// The lane whose rank in `group` is the last (31 - clz of the mask).
inline unsigned last_lane(unsigned mask) {
  return 31u - static_cast<unsigned>(std::countl_zero(mask));
}

}  // namespace details
}  // namespace cooperative_groups
