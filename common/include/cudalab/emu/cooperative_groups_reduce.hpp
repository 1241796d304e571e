// cg::reduce (<cooperative_groups/reduce.h>) on the emulator: CUDA 13.0's
// algorithm (cooperative_groups/details/coalesced_reduce.h), step for step,
// over the emulator's shuffles, so float results match the GPU's bit for bit:
//   a tile of Size lanes, or a full coalesced group: a butterfly, log2(Size)
//     rounds of out = op(out, shfl_xor(out, m)) for m = Size/2, ..., 2, 1;
//     every lane ends with the same value (a + b and b + a are the same
//     float);
//   a multi-warp tile (64 to 512 threads): each warp's butterfly, then a
//     butterfly over the warps' results (cooperative_groups_multi_warp.hpp),
//     as CUDA's multi_warp_collectives_helper;
//   a partial coalesced group: the inclusive scan of scan.h, then every lane
//     takes the last rank's result.
// On sm_80 and later the GPU computes integer plus/less/greater/and/or/xor
// of int and unsigned on tiles of 16 or 32 lanes and on coalesced groups
// with one redux.sync instruction instead; those operations are associative
// and commutative, so the butterfly gives the same bits.
#pragma once

#include <source_location>

#include "cudalab/emu/cooperative_groups_functional.hpp"
#include "cudalab/emu/cooperative_groups_scan.hpp"

namespace cooperative_groups {
namespace details {

template <unsigned int Size, class Xor, class T, class Op>
remove_qual<T> butterfly(const T& value, Op& op, Xor shuffle_xor) {
  remove_qual<T> out = value;
  for (unsigned m = Size >> 1; m > 0; m >>= 1) out = op(out, shuffle_xor(out, m));
  return out;
}

template <unsigned int Size, class ParentT, class T, class Op>
remove_qual<T> reduce_in(const thread_block_tile<Size, ParentT>& group, const T& value, Op& op,
                         const std::source_location& site) {
  using V = remove_qual<T>;
  if constexpr (is_multi_warp_tile_size<Size>) {
    return group.template reduce_over_warps<V>(
        [&] {
          return butterfly<32>(value, op, [&](const V& v, unsigned m) {
            return ::cudalab::emu::detail::shuffle_pieces<V>(v, [&](auto piece) {
              return api::__shfl_xor_sync(::cudalab::emu::detail::existing_lanes(), piece,
                                          static_cast<int>(m), 32, site);
            });
          });
        },
        op, site);
  } else {
    return butterfly<Size>(value, op,
                           [&](const V& v, unsigned m) { return group.shfl_xor(v, m, site); });
  }
}
template <class T, class Op>
remove_qual<T> reduce_in(const coalesced_group& group, const T& value, Op& op,
                         const std::source_location& site) {
  using V = remove_qual<T>;
  if (group.size() == 32) {  // CUDA treats it as a tile of 32
    return butterfly<32>(value, op, [&](const V& v, unsigned m) {
      return ::cudalab::emu::detail::shuffle_pieces<V>(v, [&](auto piece) {
        return api::__shfl_xor_sync(0xffffffffu, piece, static_cast<int>(m), 32, site);
      });
    });
  }
  const V scanned = inclusive_scan_non_contiguous(group, value, op, site);
  const unsigned mask = group_mask::of(group);
  return ::cudalab::emu::detail::shuffle_pieces<V>(scanned, [&](auto piece) {
    return api::__shfl_sync(mask, piece, static_cast<int>(last_lane(mask)), 32, site);
  });
}

}  // namespace details

template <class Group, class T, class Op>
auto reduce(const Group& group, T&& value, Op&& op,
            std::source_location site = std::source_location::current())
    -> decltype(op(value, value)) {
  details::check_collective<Group, T, decltype(op(value, value))>();
  return details::reduce_in(group, value, op, site);
}

}  // namespace cooperative_groups
