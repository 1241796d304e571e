// CUDA's multi-warp tiles (thread_block_tile<64>, <128>, <256>, <512>) on
// the emulator; cudalab/emu/cooperative_groups.hpp includes this header and
// makes thread_block_tile<Size> derive from multi_warp_tile_base<Size> when
// Size is more than a warp.
//
// CUDA 13.0 gives a multi-warp tile thread_rank, num_threads/size,
// meta_group_rank/size, sync, shfl, any and all, and lets cg::reduce and the
// scans take it; it has no shfl_up/down/xor, ballot or match_* (so neither
// has this class: they do not compile). Its header keeps, per block, one
// barrier per tile size and one 8-byte slot per warp for the collectives, in
// shared memory (the block_tile_memory the caller declares, or from sm_80
// on memory the hardware reserves). The emulator does the same with an
// mbarrier per tile and a slot per warp in the block's shared memory
// (counted against the block's static shared memory, which the GPU's
// reserved memory is not), so waiting, hangs and the race check are the
// mbarrier's (common/emu/mbarrier.cpp). Like CUDA's, tiled_partition resets
// the tile's barrier and then synchronises the parent group.
#pragma once

#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "cudalab/emu/mbarrier.hpp"
#include "cudalab/emu/shared_memory.hpp"

namespace cooperative_groups::details {

template <unsigned int Size>
inline constexpr bool is_multi_warp_tile_size =
    Size == 64 || Size == 128 || Size == 256 || Size == 512;

// One block's scratch for the tiles of one size.
template <unsigned int Size>
struct multi_warp_scratch {
  std::uint64_t barriers[1024 / Size];       // an mbarrier per tile of the block
  unsigned long long warp_slots[1024 / 32];  // a collective's value per warp
};

template <unsigned int Size>
class multi_warp_tile_base {
  static_assert(is_multi_warp_tile_size<Size>,
                "thread_block_tile<Size>: Size must be 1, 2, 4, 8, 16, 32 or one of 64/128/256/512 "
                "(CUDA: \"Size must be one of 64/128/256/512\")");
  static constexpr unsigned warps = Size / 32;

 public:
  static unsigned int thread_rank() {
    return ::cudalab::emu::detail::block_thread_rank() & (Size - 1);
  }
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  unsigned int meta_group_rank() const { return meta_group_rank_; }
  unsigned int meta_group_size() const { return meta_group_size_; }

  // Every thread of the tile arrives, then waits for the others.
  void sync(std::source_location site = std::source_location::current()) const {
    std::uint64_t* barrier = my_barrier();
    const std::uint64_t token = ::cudalab::emu::mbarrier_arrive(barrier, 1, 0, false, site);
    ::cudalab::emu::mbarrier_wait_token(barrier, token, site);
  }

  // The value of the thread of rank `src_rank`: it leaves it in its warp's
  // slot, which every thread reads after a sync (CUDA's shfl_impl).
  template <class T>
  std::remove_cvref_t<T> shfl(T&& value, unsigned int src_rank,
                              std::source_location site = std::source_location::current()) const {
    using V = std::remove_cvref_t<T>;
    static_assert(std::is_trivially_copyable_v<V> && sizeof(V) <= 8,
                  "Collectives with tiles larger than 32 threads are limited to types smaller "
                  "then 8 bytes (CUDA's message)");
    unsigned long long& slot = warp_slot(src_rank / 32 % warps);
    if (thread_rank() == src_rank % Size) std::memcpy(&slot, &value, sizeof(V));
    sync(site);
    V out;
    std::memcpy(&out, &slot, sizeof(V));
    sync(site);  // the slot may be written again
    return out;
  }

  int any(int predicate, std::source_location site = std::source_location::current()) const {
    return combine_warp_votes(
        [&] { return api::__ballot_sync(warp_lanes(), predicate, site) != 0u; },
        [](bool a, bool b) { return a || b; }, site);
  }
  int all(int predicate, std::source_location site = std::source_location::current()) const {
    return combine_warp_votes(
        [&] {
          const unsigned lanes = warp_lanes();
          return api::__ballot_sync(lanes, predicate, site) == lanes;
        },
        [](bool a, bool b) { return a && b; }, site);
  }

  // cg::reduce on this tile (cooperative_groups_reduce.hpp): each warp's
  // butterfly, then the warps' results combined as CUDA's last-arriving warp
  // does, lane w of a butterfly over the warps holding warp w's result.
  template <class V, class WarpReduce, class Op>
  V reduce_over_warps(WarpReduce warp_reduce, Op& op, const std::source_location& site) const {
    static_assert(std::is_trivially_copyable_v<V> && sizeof(V) <= 8,
                  "Collectives with tiles larger than 32 threads are limited to types smaller "
                  "then 8 bytes (CUDA's message)");
    const V mine = warp_reduce();
    if (::cudalab::emu::detail::lane_in_warp() == 0) {
      std::memcpy(&warp_slot(thread_rank() / 32), &mine, sizeof(V));
    }
    sync(site);
    V lanes[warps];
    for (unsigned w = 0; w < warps; ++w) std::memcpy(&lanes[w], &warp_slot(w), sizeof(V));
    sync(site);
    for (unsigned m = warps >> 1; m > 0; m >>= 1) {
      V next[warps];
      for (unsigned w = 0; w < warps; ++w) next[w] = op(lanes[w], lanes[w ^ m]);
      std::memcpy(lanes, next, sizeof lanes);
    }
    return lanes[thread_rank() / 32];
  }

 protected:
  // The constructor every thread of the parent calls: the first thread of
  // each tile makes its barrier expect the tile's threads (fewer in a
  // block's partial last tile), then the parent syncs so no thread arrives
  // before.
  template <class ParentT>
  multi_warp_tile_base(const ParentT& parent, unsigned int meta_group_rank,
                       unsigned int meta_group_size, std::source_location site)
      : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size) {
    if (thread_rank() == 0) {
      const unsigned first = ::cudalab::emu::detail::block_thread_rank();
      const unsigned block = ::cudalab::emu::detail::block_threads();
      const unsigned count = block - first < Size ? block - first : Size;
      ::cudalab::emu::mbarrier_init(my_barrier(), count, site);
    }
    parent.sync(site);
  }
  // A conversion (to thread_block_tile<Size>): the same tile, whose barrier
  // is ready (CUDA resets and syncs again; the emulator need not).
  multi_warp_tile_base(unsigned int meta_group_rank, unsigned int meta_group_size)
      : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size) {}

 private:
  static multi_warp_scratch<Size>& scratch() {
    return ::cudalab::emu::static_shared<multi_warp_scratch<Size>>([] {});
  }
  static std::uint64_t* my_barrier() {
    return &scratch().barriers[::cudalab::emu::detail::block_thread_rank() / Size];
  }
  // The slot of warp `warp` (0 .. Size/32 - 1) of the caller's tile.
  static unsigned long long& warp_slot(unsigned warp) {
    const unsigned first_warp = (::cudalab::emu::detail::block_thread_rank() & ~(Size - 1)) / 32;
    return scratch().warp_slots[first_warp + warp];
  }
  static unsigned warp_lanes() { return ::cudalab::emu::detail::existing_lanes(); }

  template <class WarpVote, class Combine>
  int combine_warp_votes(WarpVote warp_vote, Combine combine,
                         const std::source_location& site) const {
    const bool mine = warp_vote();
    if (::cudalab::emu::detail::lane_in_warp() == 0) warp_slot(thread_rank() / 32) = mine;
    sync(site);
    bool result = warp_slot(0) != 0;
    for (unsigned w = 1; w < warps; ++w) result = combine(result, warp_slot(w) != 0);
    sync(site);
    return result;
  }

  unsigned int meta_group_rank_;
  unsigned int meta_group_size_;
};

}  // namespace cooperative_groups::details
