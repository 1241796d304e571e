// cg::inclusive_scan and cg::exclusive_scan (<cooperative_groups/scan.h>) on
// the emulator: CUDA 13.0's algorithms (cooperative_groups/details/
// coalesced_scan.h and scan.h), step for step, over the emulator's shuffles,
// so every lane combines the same values in the same order as on the GPU
// and float results match bit for bit:
//   a tile, or a full coalesced group: Hillis-Steele, log2(size) rounds of
//     out = op(out, shfl_up(out, d)) for d = 1, 2, 4, ... where d <= rank;
//   a partial coalesced group: the same rounds, each lane finding the lane
//     d ranks below it by a search over the mask (CUDA's
//     inclusive_scan_non_contiguous);
//   exclusive: inclusive - value for integer plus; otherwise the inclusive
//     result shuffled up one rank, and rank 0 gets T{} (0, not the identity of
//     less or greater, as on the GPU).
#pragma once

#include <bit>
#include <source_location>
#include <utility>

#include "cudalab/emu/cooperative_groups_functional.hpp"

namespace cooperative_groups {
namespace details {

template <class Group, class T, class Op>
remove_qual<T> inclusive_scan_contiguous(const Group& group, const T& value, Op& op,
                                         const std::source_location& site) {
  remove_qual<T> out = value;
  for (unsigned d = 1; d < group.size(); d <<= 1) {
    remove_qual<T> below = group.shfl_up(out, d, site);
    if (d <= group.thread_rank()) out = op(out, below);
  }
  return out;
}

template <class T, class Op>
remove_qual<T> inclusive_scan_non_contiguous(const coalesced_group& group, const T& value, Op& op,
                                             const std::source_location& site) {
  const unsigned size = group.size();
  remove_qual<T> out = value;
  const unsigned mask = group_mask::of(group);
  const unsigned lanemask = ::cudalab::emu::detail::lanemask_lt() & mask;
  unsigned source = ::cudalab::emu::detail::lane_in_warp();
  const unsigned base = static_cast<unsigned>(std::countr_zero(mask));  // the lane of rank 0
  const unsigned rank = static_cast<unsigned>(std::popcount(lanemask));
  for (unsigned i = 1, j = 1; i < size; i <<= 1) {
    if (i <= rank) {
      source -= j;
      j = i;                             // the largest lane it can be
      unsigned begin = base + rank - i;  // the smallest
      // The lane i ranks below is in [begin, source]: a binary search.
      while (begin < source) {
        const unsigned half = (begin + source) >> 1;
        const unsigned half_mask = lanemask >> half;
        const auto d = static_cast<unsigned>(std::popcount(half_mask));
        if (d < i) {
          source = half - 1;
        } else if (i < d || !(half_mask & 1u)) {
          begin = half + 1;
        } else {
          begin = source = half;
        }
      }
    }
    remove_qual<T> below =
        ::cudalab::emu::detail::shuffle_pieces<remove_qual<T>>(out, [&](auto piece) {
          return api::__shfl_sync(mask, piece, static_cast<int>(source), 32, site);
        });
    if (i <= rank) out = op(out, below);
  }
  return out;
}

template <unsigned int Size, class ParentT, class T, class Op>
remove_qual<T> inclusive_scan_in(const thread_block_tile<Size, ParentT>& group, const T& value,
                                 Op& op, const std::source_location& site) {
  static_assert(!is_multi_warp_tile_size<Size>,
                "cg::inclusive_scan/exclusive_scan on a tile of more than 32 threads is not "
                "provided by the cudalab emulator (CUDA has it; cg::reduce is provided)");
  return inclusive_scan_contiguous(group, value, op, site);
}
template <class T, class Op>
remove_qual<T> inclusive_scan_in(const coalesced_group& group, const T& value, Op& op,
                                 const std::source_location& site) {
  if (group.size() == 32) return inclusive_scan_contiguous(group, value, op, site);
  return inclusive_scan_non_contiguous(group, value, op, site);
}

template <class Group, class T, class Op>
remove_qual<T> exclusive_from_inclusive(const Group& group, const remove_qual<T>& inclusive,
                                        const T& value, const std::source_location& site) {
  using V = remove_qual<T>;
  if constexpr (std::is_same_v<remove_qual<Op>, plus<V>> && std::is_integral_v<V>) {
    return inclusive - value;
  } else {
    V below = group.shfl_up(inclusive, 1, site);
    if (group.thread_rank() == 0) return V{};
    return below;
  }
}

}  // namespace details

template <class Group, class T, class Op>
auto inclusive_scan(const Group& group, T&& value, Op&& op,
                    std::source_location site = std::source_location::current())
    -> decltype(op(value, value)) {
  details::check_collective<Group, T, decltype(op(value, value))>();
  return details::inclusive_scan_in(group, value, op, site);
}
template <class Group, class T>
details::remove_qual<T> inclusive_scan(
    const Group& group, T&& value, std::source_location site = std::source_location::current()) {
  return inclusive_scan(group, std::forward<T>(value), plus<details::remove_qual<T>>(), site);
}

template <class Group, class T, class Op>
auto exclusive_scan(const Group& group, T&& value, Op&& op,
                    std::source_location site = std::source_location::current())
    -> decltype(op(value, value)) {
  details::check_collective<Group, T, decltype(op(value, value))>();
  const details::remove_qual<T> inclusive = details::inclusive_scan_in(group, value, op, site);
  return details::exclusive_from_inclusive<Group, T, Op>(group, inclusive, value, site);
}
template <class Group, class T>
details::remove_qual<T> exclusive_scan(
    const Group& group, T&& value, std::source_location site = std::source_location::current()) {
  return exclusive_scan(group, std::forward<T>(value), plus<details::remove_qual<T>>(), site);
}

}  // namespace cooperative_groups
