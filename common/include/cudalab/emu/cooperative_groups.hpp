// CUDA's cooperative groups (<cooperative_groups.h>) for kernels compiled by
// the host compiler. A kernel file's `#include <cooperative_groups.h>`
// reaches this header through common/emu/cuda_include/, which the emulator
// build puts before the CUDA toolkit's headers (nvcc never sees it, and uses
// CUDA's own). The collectives (cg::reduce, cg::inclusive_scan, ...) are in
// cooperative_groups_reduce.hpp and cooperative_groups_scan.hpp.
//
// Every group is made of what the emulator already runs, so reports and
// traces are the usual ones:
//   thread_block          sync() is __syncthreads() (a divergent block.sync()
//                         is the divergent_barrier report __syncthreads gives)
//   thread_block_tile<N>  N = 1..32 lanes of one warp: its shuffles and votes
//                         are __shfl_*_sync & co with the tile's lanes as the
//                         mask and N as the width, exactly as CUDA's header
//                         does, so a sub-warp tile stays in its N-lane segment;
//                         N = 64..512: several warps, synchronised by an
//                         mbarrier (cooperative_groups_multi_warp.hpp)
//   coalesced_group       the lanes that reach one coalesced_threads() call
//                         together (common/emu/warp_coalesce.cpp)
//   grid_group            this_grid().sync() waits for every block of a
//                         cudaLaunchCooperativeKernel launch (grid_sync.cpp)
//   cluster_group         this_cluster(): cooperative_groups_cluster.hpp
// The arithmetic of each member follows CUDA 13.0's header line by line
// (ranks, masks, meta groups, ballots shifted to the tile), so results are
// the GPU's. What the emulator does not provide is a compile error that
// names it (the end of this file).
#pragma once

#include <vector_types.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "cudalab/emu/device_functions.hpp"
#include "cudalab/emu/thread_state.hpp"

namespace cudalab::emu::detail {

// The lanes of the caller's warp that reach this coalesced_threads() call
// together (warp_coalesce.cpp).
unsigned coalesced_lanes(const std::source_location& site);
// this_grid().sync() and is_valid() (grid_sync.cpp): only a cooperative
// launch has a grid barrier; elsewhere sync() is a grid_sync report.
void grid_sync(const std::source_location& site);
bool grid_is_valid() noexcept;

[[gnu::always_inline]] inline unsigned lane_in_warp() noexcept {
  return unseen_load(unseen_load(current_thread)->lane);
}
[[gnu::always_inline]] inline unsigned block_thread_rank() noexcept {
  return unseen_load(unseen_load(current_thread)->linear);
}
[[gnu::always_inline]] inline unsigned block_threads() noexcept {
  const dim3 b = block_dim();
  return b.x * b.y * b.z;
}
// The lanes of the caller's warp that exist: all 32 unless the block's last
// warp is partial. A tile's mask leaves the others out, which is what the
// GPU does with them (they are not there to take part).
[[gnu::always_inline]] inline unsigned existing_lanes() noexcept {
  const unsigned first = block_thread_rank() & ~31u;
  const unsigned count = block_threads() - first;
  return count >= 32 ? ~0u : (1u << count) - 1u;
}
// Lanes below the caller's (PTX's %lanemask_lt).
[[gnu::always_inline]] inline unsigned lanemask_lt() noexcept {
  return (1u << lane_in_warp()) - 1u;
}
// The lane of the n-th (from 1) set bit of `mask` at or above `base` (n > 0)
// or at or below it (n < 0); 0xffffffff if there is none. PTX's fns, as
// CUDA's __fns.
inline unsigned find_nth_set(unsigned mask, unsigned base, int n) noexcept {
  if (n > 0) {
    for (unsigned lane = base; lane < 32; ++lane) {
      if ((mask >> lane & 1u) && --n == 0) return lane;
    }
  } else if (n < 0) {
    for (int lane = static_cast<int>(base); lane >= 0; --lane) {
      if ((mask >> lane & 1u) && ++n == 0) return static_cast<unsigned>(lane);
    }
  }
  return 0xffffffffu;
}

// A shuffle of any trivially copyable value: the emulator's collective
// moves up to 8 bytes, so a larger value goes in 8-byte pieces, one
// collective each (CUDA's header splits it the same way, in 4-byte pieces).
template <class T, class Shuffle>
T shuffle_pieces(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cooperative groups shuffle trivially copyable values only");
  if constexpr (sizeof(T) <= 8) {
    return shuffle(value);
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (std::size_t at = 0; at < sizeof(T); at += 8) {
      std::uint64_t piece = 0;
      const std::size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
      std::memcpy(&piece, bytes + at, n);
      piece = shuffle(piece);
      std::memcpy(bytes + at, &piece, n);
    }
    T out;
    std::memcpy(&out, bytes, sizeof(T));
    return out;
  }
}

// CUDA's tiled_partition(parent, n) aborts the kernel on a size that is not a
// power of two from 1 to 32, or a parent it cannot partition; here an
// exception, which the engine reports as kernel_exception
// (cudaErrorLaunchFailure), naming the problem. Made in the library
// (cooperative_groups_errors.cpp), where building its message is not
// mistaken for the kernel's own accesses.
[[noreturn]] void bad_tile_size(unsigned size);
[[noreturn]] void bad_partition_parent();

template <class... T>
inline constexpr bool not_provided = false;

}  // namespace cudalab::emu::detail

namespace cooperative_groups {

class thread_group;
class thread_block;
class coalesced_group;
class grid_group;
template <unsigned int Size, class ParentT>
class thread_block_tile;

namespace details {
// The emulator's warp intrinsics, named in full: a kernel file may include
// <cooperative_groups.h> before cudalab/kernel.hpp makes them global.
namespace api = ::cudalab::emu::device_api;

// What CUDA's thread_group::get_type() answers.
inline constexpr unsigned int coalesced_group_id = 1;
inline constexpr unsigned int grid_group_id = 3;
inline constexpr unsigned int thread_block_id = 4;

// Reads a group's lane mask (reduce and scan need it, as in CUDA's header).
struct group_mask;
}  // namespace details

// A group whose kind is known only at run time: what a thread_block, a tile,
// a coalesced_group or a grid_group converts to, and what the runtime
// tiled_partition(parent, n) returns. It can sync and tell sizes and ranks.
class thread_group {
 public:
  void sync(std::source_location site = std::source_location::current()) const;
  unsigned long long size() const;
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const;
  unsigned int get_type() const { return type_; }

 protected:
  explicit thread_group(unsigned int type) : type_(type) {}
  friend struct details::group_mask;
  friend thread_group tiled_partition(const thread_group& parent, unsigned int tile_size);
  friend coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tile_size);

  // For coalesced_group_id (tiles and coalesced groups): CUDA's fields.
  unsigned int type_;
  unsigned int mask_ = 0;
  unsigned int size_ = 0;
  unsigned int meta_group_rank_ = 0;
  unsigned int meta_group_size_ = 1;
  bool is_tiled_ = false;
};

// ---- thread_block ---------------------------------------------------------
class thread_block : public thread_group {
 public:
  // A block-wide barrier: __syncthreads(), reported like it when divergent.
  static void sync(std::source_location site = std::source_location::current()) {
    ::cudalab::emu::detail::block_barrier(0, site);
  }
  static unsigned int size() { return ::cudalab::emu::detail::block_threads(); }
  static unsigned int num_threads() { return size(); }
  static unsigned int thread_rank() { return ::cudalab::emu::detail::block_thread_rank(); }
  static dim3 group_index() {
    const uint3 b = ::cudalab::emu::detail::block_idx();
    return dim3(b.x, b.y, b.z);
  }
  static dim3 thread_index() {
    const uint3 t = ::cudalab::emu::detail::thread_idx();
    return dim3(t.x, t.y, t.z);
  }
  static dim3 dim_threads() { return ::cudalab::emu::detail::block_dim(); }
  static dim3 group_dim() { return dim_threads(); }

  template <class... A>
  void barrier_arrive(A&&...) const {
    static_assert(::cudalab::emu::detail::not_provided<A...>,
                  "cooperative_groups::thread_block::barrier_arrive/barrier_wait are not "
                  "provided by the cudalab emulator: use block.sync()");
  }
  template <class... A>
  void barrier_wait(A&&...) const {
    static_assert(::cudalab::emu::detail::not_provided<A...>,
                  "cooperative_groups::thread_block::barrier_arrive/barrier_wait are not "
                  "provided by the cudalab emulator: use block.sync()");
  }

 private:
  friend thread_block this_thread_block();
  thread_block() : thread_group(details::thread_block_id) {}
};

inline thread_block this_thread_block() { return thread_block(); }

// ---- grid_group -------------------------------------------------------------
class grid_group : public thread_group {
 public:
  // True only in a kernel launched with cudaLaunchCooperativeKernel.
  bool is_valid() const { return ::cudalab::emu::detail::grid_is_valid(); }
  // Every thread of every block of the grid; outside a cooperative launch a
  // grid_sync report (the GPU traps there).
  void sync(std::source_location site = std::source_location::current()) const {
    ::cudalab::emu::detail::grid_sync(site);
  }
  static unsigned long long num_blocks() {
    const dim3 g = ::cudalab::emu::detail::grid_dim();
    return static_cast<unsigned long long>(g.x) * (g.y * g.z);
  }
  static unsigned long long num_threads() {
    return num_blocks() * ::cudalab::emu::detail::block_threads();
  }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long block_rank() {
    const uint3 b = ::cudalab::emu::detail::block_idx();
    const dim3 g = ::cudalab::emu::detail::grid_dim();
    return (static_cast<unsigned long long>(b.z) * g.y + b.y) * g.x + b.x;
  }
  static unsigned long long thread_rank() {
    return block_rank() * ::cudalab::emu::detail::block_threads() +
           ::cudalab::emu::detail::block_thread_rank();
  }
  static dim3 dim_blocks() { return ::cudalab::emu::detail::grid_dim(); }
  static dim3 group_dim() { return dim_blocks(); }
  static dim3 block_index() {
    const uint3 b = ::cudalab::emu::detail::block_idx();
    return dim3(b.x, b.y, b.z);
  }
  static dim3 dim_threads() {
    const dim3 g = ::cudalab::emu::detail::grid_dim(), b = ::cudalab::emu::detail::block_dim();
    return dim3(g.x * b.x, g.y * b.y, g.z * b.z);
  }
  static dim3 thread_index() {
    const uint3 b = ::cudalab::emu::detail::block_idx(), t = ::cudalab::emu::detail::thread_idx();
    const dim3 d = ::cudalab::emu::detail::block_dim();
    return dim3(b.x * d.x + t.x, b.y * d.y + t.y, b.z * d.z + t.z);
  }

  template <class... A>
  unsigned int barrier_arrive(A&&...) const {
    static_assert(::cudalab::emu::detail::not_provided<A...>,
                  "cooperative_groups::grid_group::barrier_arrive/barrier_wait are not provided "
                  "by the cudalab emulator: use grid.sync()");
    return 0;
  }
  template <class... A>
  void barrier_wait(A&&...) const {
    static_assert(::cudalab::emu::detail::not_provided<A...>,
                  "cooperative_groups::grid_group::barrier_arrive/barrier_wait are not provided "
                  "by the cudalab emulator: use grid.sync()");
  }

 private:
  friend grid_group this_grid();
  grid_group() : thread_group(details::grid_group_id) {}
};

inline grid_group this_grid() { return grid_group(); }

// ---- coalesced_group ----------------------------------------------------------
class coalesced_group : public thread_group {
 public:
  unsigned int num_threads() const { return size_; }
  unsigned int size() const { return num_threads(); }
  unsigned int thread_rank() const {
    return static_cast<unsigned>(std::popcount(mask_ & ::cudalab::emu::detail::lanemask_lt()));
  }
  unsigned int meta_group_rank() const { return meta_group_rank_; }
  unsigned int meta_group_size() const { return meta_group_size_; }
  void sync(std::source_location site = std::source_location::current()) const {
    details::api::__syncwarp(mask_, site);
  }

  template <class T>
  std::remove_cvref_t<T> shfl(T&& value, int src_rank,
                              std::source_location site = std::source_location::current()) const {
    const unsigned lane = src_rank == 0 ? static_cast<unsigned>(std::countr_zero(mask_))
                          : size() == 32
                              ? static_cast<unsigned>(src_rank)
                              : ::cudalab::emu::detail::find_nth_set(mask_, 0, src_rank + 1);
    return lane_shuffle(value, static_cast<int>(lane), site);
  }
  template <class T>
  std::remove_cvref_t<T> shfl_down(
      T&& value, unsigned int delta,
      std::source_location site = std::source_location::current()) const {
    using V = std::remove_cvref_t<T>;
    if (size() == 32) {
      return ::cudalab::emu::detail::shuffle_pieces<V>(value, [&](auto piece) {
        return details::api::__shfl_down_sync(0xffffffffu, piece, delta, 32, site);
      });
    }
    unsigned lane = ::cudalab::emu::detail::find_nth_set(
        mask_, ::cudalab::emu::detail::lane_in_warp(), static_cast<int>(delta) + 1);
    if (lane >= 32) lane = ::cudalab::emu::detail::lane_in_warp();
    return lane_shuffle(value, static_cast<int>(lane), site);
  }
  template <class T>
  std::remove_cvref_t<T> shfl_up(
      T&& value, int delta, std::source_location site = std::source_location::current()) const {
    using V = std::remove_cvref_t<T>;
    if (size() == 32) {
      return ::cudalab::emu::detail::shuffle_pieces<V>(value, [&](auto piece) {
        return details::api::__shfl_up_sync(0xffffffffu, piece, static_cast<unsigned>(delta), 32,
                                            site);
      });
    }
    unsigned lane = ::cudalab::emu::detail::find_nth_set(
        mask_, ::cudalab::emu::detail::lane_in_warp(), -(delta + 1));
    if (lane >= 32) lane = ::cudalab::emu::detail::lane_in_warp();
    return lane_shuffle(value, static_cast<int>(lane), site);
  }

  int any(int predicate, std::source_location site = std::source_location::current()) const {
    return details::api::__ballot_sync(mask_, predicate, site) != 0;
  }
  int all(int predicate, std::source_location site = std::source_location::current()) const {
    return details::api::__ballot_sync(mask_, predicate, site) == mask_;
  }
  unsigned int ballot(int predicate,
                      std::source_location site = std::source_location::current()) const {
    if (size() == 32) return details::api::__ballot_sync(0xffffffffu, predicate, site);
    return pack_lanes(details::api::__ballot_sync(mask_, predicate, site));
  }
  template <class T>
  unsigned int match_any(T value,
                         std::source_location site = std::source_location::current()) const {
    static_assert(std::is_arithmetic_v<T>, "match_any takes an arithmetic value");
    if (size() == 32) return details::api::__match_any_sync(0xffffffffu, value, site);
    return pack_lanes(details::api::__match_any_sync(mask_, value, site));
  }
  template <class T>
  unsigned int match_all(T value, int& pred,
                         std::source_location site = std::source_location::current()) const {
    static_assert(std::is_arithmetic_v<T>, "match_all takes an arithmetic value");
    if (size() == 32) return details::api::__match_all_sync(0xffffffffu, value, &pred, site);
    return pack_lanes(details::api::__match_all_sync(mask_, value, &pred, site));
  }

 protected:
  explicit coalesced_group(unsigned int mask) : thread_group(details::coalesced_group_id) {
    mask_ = mask;
    size_ = static_cast<unsigned>(std::popcount(mask));
  }

 private:
  friend coalesced_group coalesced_threads(std::source_location site);
  friend coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tile_size);
  friend struct details::group_mask;

  template <class T>
  std::remove_cvref_t<T> lane_shuffle(const T& value, int lane,
                                      const std::source_location& site) const {
    return ::cudalab::emu::detail::shuffle_pieces<std::remove_cvref_t<T>>(
        value, [&](auto piece) { return details::api::__shfl_sync(mask_, piece, lane, 32, site); });
  }
  // A warp-lane mask as a mask of group ranks (CUDA's _packLanes).
  unsigned int pack_lanes(unsigned int lanes) const {
    unsigned int pack = 0, rank = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!(mask_ >> lane & 1u)) continue;
      if (lanes >> lane & 1u) pack |= 1u << rank;
      ++rank;
    }
    return pack;
  }
};

// The lanes of this warp that run this call together (warp_coalesce.cpp).
inline coalesced_group coalesced_threads(
    std::source_location site = std::source_location::current()) {
  return coalesced_group(::cudalab::emu::detail::coalesced_lanes(site));
}

// ---- thread_block_tile<Size> ----------------------------------------------------
}  // namespace cooperative_groups

#include "cudalab/emu/cooperative_groups_multi_warp.hpp"  // NOLINT: after what it uses

namespace cooperative_groups {
namespace details {

template <unsigned int Size>
inline constexpr bool is_single_warp_tile_size = Size >= 1 && Size <= 32 &&
                                                 (Size & (Size - 1)) == 0;

// The Size-lane tile of the calling thread, within its warp, as CUDA's
// build_mask() makes it, less lanes a partial last warp does not have.
template <unsigned int Size>
[[gnu::always_inline]] inline unsigned tile_mask() noexcept {
  unsigned mask = 0xffffffffu;
  if constexpr (Size != 32) {
    mask = ((1u << Size) - 1u) << (::cudalab::emu::detail::lane_in_warp() & ~(Size - 1u));
  }
  return mask & ::cudalab::emu::detail::existing_lanes();
}

// Everything a tile of Size (1 to 32) lanes does; thread_block_tile<Size,
// Parent> adds only where it converts from and to.
template <unsigned int Size>
class tile_base : public thread_group {
  static_assert(is_single_warp_tile_size<Size>,
                "thread_block_tile<Size>: Size is 1, 2, 4, 8, 16, 32 or one of 64/128/256/512, as "
                "in CUDA");

 public:
  static unsigned int thread_rank() {
    return ::cudalab::emu::detail::block_thread_rank() & (Size - 1);
  }
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  unsigned int meta_group_rank() const { return meta_group_rank_; }
  unsigned int meta_group_size() const { return meta_group_size_; }

  void sync(std::source_location site = std::source_location::current()) const {
    details::api::__syncwarp(tile_mask<Size>(), site);
  }

  template <class T>
  std::remove_cvref_t<T> shfl(T&& value, int src_rank,
                              std::source_location site = std::source_location::current()) const {
    return ::cudalab::emu::detail::shuffle_pieces<std::remove_cvref_t<T>>(value, [&](auto piece) {
      return details::api::__shfl_sync(tile_mask<Size>(), piece, src_rank, Size, site);
    });
  }
  template <class T>
  std::remove_cvref_t<T> shfl_down(
      T&& value, unsigned int delta,
      std::source_location site = std::source_location::current()) const {
    return ::cudalab::emu::detail::shuffle_pieces<std::remove_cvref_t<T>>(value, [&](auto piece) {
      return details::api::__shfl_down_sync(tile_mask<Size>(), piece, delta, Size, site);
    });
  }
  template <class T>
  std::remove_cvref_t<T> shfl_up(
      T&& value, unsigned int delta,
      std::source_location site = std::source_location::current()) const {
    return ::cudalab::emu::detail::shuffle_pieces<std::remove_cvref_t<T>>(value, [&](auto piece) {
      return details::api::__shfl_up_sync(tile_mask<Size>(), piece, delta, Size, site);
    });
  }
  template <class T>
  std::remove_cvref_t<T> shfl_xor(
      T&& value, unsigned int lane_mask,
      std::source_location site = std::source_location::current()) const {
    return ::cudalab::emu::detail::shuffle_pieces<std::remove_cvref_t<T>>(value, [&](auto piece) {
      return details::api::__shfl_xor_sync(tile_mask<Size>(), piece, static_cast<int>(lane_mask),
                                           Size, site);
    });
  }

  int any(int predicate, std::source_location site = std::source_location::current()) const {
    return details::api::__ballot_sync(tile_mask<Size>(), predicate, site) != 0;
  }
  int all(int predicate, std::source_location site = std::source_location::current()) const {
    const unsigned mask = tile_mask<Size>();
    return details::api::__ballot_sync(mask, predicate, site) == mask;
  }
  // Bit r is the tile's rank r (the warp's ballot shifted down to the tile).
  unsigned int ballot(int predicate,
                      std::source_location site = std::source_location::current()) const {
    return details::api::__ballot_sync(tile_mask<Size>(), predicate, site) >> first_lane();
  }
  template <class T>
  unsigned int match_any(T value,
                         std::source_location site = std::source_location::current()) const {
    static_assert(std::is_arithmetic_v<T>, "match_any takes an arithmetic value");
    return details::api::__match_any_sync(tile_mask<Size>(), value, site) >> first_lane();
  }
  template <class T>
  unsigned int match_all(T value, int& pred,
                         std::source_location site = std::source_location::current()) const {
    static_assert(std::is_arithmetic_v<T>, "match_all takes an arithmetic value");
    return details::api::__match_all_sync(tile_mask<Size>(), value, &pred, site) >> first_lane();
  }

 protected:
  tile_base(unsigned int meta_group_rank, unsigned int meta_group_size)
      : thread_group(coalesced_group_id) {
    mask_ = tile_mask<Size>();
    size_ = Size;
    meta_group_rank_ = meta_group_rank;
    meta_group_size_ = meta_group_size;
    is_tiled_ = true;
  }

 private:
  static unsigned first_lane() { return ::cudalab::emu::detail::lane_in_warp() & ~(Size - 1u); }
};

// A tile of up to a warp, or of several warps (cooperative_groups_multi_warp.hpp).
template <unsigned int Size>
using tile_base_of =
    std::conditional_t<is_multi_warp_tile_size<Size>, multi_warp_tile_base<Size>, tile_base<Size>>;

}  // namespace details

template <unsigned int Size, class ParentT = void>
class thread_block_tile : public details::tile_base_of<Size> {
 public:
  // What tiled_partition<Size>(parent) makes: the tiles of `parent` in rank
  // order; meta_group_rank() is this tile's, meta_group_size() their number.
  // A multi-warp tile's construction syncs the parent, as in CUDA.
  explicit thread_block_tile(const ParentT& parent,
                             std::source_location site = std::source_location::current()) requires
      details::is_multi_warp_tile_size<Size>
      : details::tile_base_of<Size>(parent, static_cast<unsigned>(parent.thread_rank()) / Size,
                                    (static_cast<unsigned>(parent.size()) + Size - 1) / Size,
                                    site) {}
  explicit thread_block_tile(const ParentT& parent) requires(
      !details::is_multi_warp_tile_size<Size>)
      : details::tile_base_of<Size>(static_cast<unsigned>(parent.thread_rank()) / Size,
                                    (static_cast<unsigned>(parent.size()) + Size - 1) / Size) {}
};

// The tile without its parent's type, which every tile converts to.
template <unsigned int Size>
class thread_block_tile<Size, void> : public details::tile_base_of<Size> {
 public:
  template <class ParentT>
  thread_block_tile(const thread_block_tile<Size, ParentT>& tile)  // NOLINT: implicit, as in CUDA
      : details::tile_base_of<Size>(tile.meta_group_rank(), tile.meta_group_size()) {}

 private:
  friend thread_block_tile<1, void> this_thread();
  thread_block_tile() : details::tile_base_of<Size>(0, 1) {}
};

namespace details {
template <class T>
struct is_tile : std::false_type {};
template <unsigned int Size, class ParentT>
struct is_tile<thread_block_tile<Size, ParentT>> : std::true_type {};
}  // namespace details

template <unsigned int Size, class ParentT>
thread_block_tile<Size, ParentT> tiled_partition(const ParentT& parent) {
  static_assert(details::is_single_warp_tile_size<Size> || details::is_multi_warp_tile_size<Size>,
                "tiled_partition<Size>: Size is 1, 2, 4, 8, 16, 32 or one of 64/128/256/512, as in "
                "CUDA");
  if constexpr (details::is_tile<ParentT>::value && details::is_multi_warp_tile_size<Size>) {
    static_assert(Size < ParentT::num_threads(),
                  "Tile size bigger or equal to the parent group size (CUDA's message)");
  }
  static_assert(std::is_same_v<ParentT, thread_block> || details::is_tile<ParentT>::value,
                "tiled_partition<Size>(parent): the parent is a thread_block or a "
                "thread_block_tile, as in CUDA (a coalesced_group takes tiled_partition(g, n))");
  return thread_block_tile<Size, ParentT>(parent);
}

// The calling thread alone.
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(); }

// ---- runtime tiled_partition ------------------------------------------------------
// CUDA's thread_block::_get_tiled_threads and
// coalesced_group::_get_tiled_threads, member for member.
inline thread_group tiled_partition(const thread_group& parent, unsigned int tile_size) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0) {
    ::cudalab::emu::detail::bad_tile_size(tile_size);
  }
  if (parent.get_type() == details::coalesced_group_id) {
    return tiled_partition(static_cast<const coalesced_group&>(parent), tile_size);
  }
  if (parent.get_type() != details::thread_block_id) {
    ::cudalab::emu::detail::bad_partition_parent();
  }
  const unsigned rank = ::cudalab::emu::detail::block_thread_rank();
  const unsigned block = ::cudalab::emu::detail::block_threads();
  const unsigned base_offset = rank & ~(tile_size - 1);
  const unsigned length = block - base_offset < tile_size ? block - base_offset : tile_size;
  thread_group tile(details::coalesced_group_id);
  tile.mask_ = (0xffffffffu >> (32 - length))
               << (::cudalab::emu::detail::lane_in_warp() & ~(tile_size - 1));
  tile.size_ = static_cast<unsigned>(std::popcount(tile.mask_));
  tile.meta_group_size_ = (block + tile_size - 1) / tile_size;
  tile.meta_group_rank_ = rank / tile_size;
  tile.is_tiled_ = true;
  return tile;
}

inline thread_group tiled_partition(const thread_block& parent, unsigned int tile_size) {
  return tiled_partition(static_cast<const thread_group&>(parent), tile_size);
}

inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tile_size) {
  if (tile_size == 0 || tile_size > 32 || (tile_size & (tile_size - 1)) != 0) {
    ::cudalab::emu::detail::bad_tile_size(tile_size);
  }
  if (parent.size() <= tile_size) return parent;
  const unsigned rank = parent.thread_rank();
  if (parent.is_tiled_) {
    const unsigned base_offset = rank & ~(tile_size - 1);
    const unsigned length =
        parent.size() - base_offset < tile_size ? parent.size() - base_offset : tile_size;
    coalesced_group tile((0xffffffffu >> (32 - length))
                         << (::cudalab::emu::detail::lane_in_warp() & ~(tile_size - 1)));
    tile.meta_group_size_ = parent.size() / tile_size;
    tile.meta_group_rank_ = rank / tile_size;
    tile.is_tiled_ = true;
    return tile;
  }
  unsigned mask = 0, members = 0;
  int seen = static_cast<int>(rank / tile_size * tile_size);
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(parent.mask_ >> lane & 1u)) continue;
    if (seen <= 0 && members < tile_size) {
      mask |= 1u << lane;
      ++members;
    }
    --seen;
  }
  coalesced_group tile(mask);
  tile.meta_group_size_ = (parent.size() + tile_size - 1) / tile_size;
  tile.meta_group_rank_ = rank / tile_size;
  return tile;
}

// ---- thread_group's members, by kind (CUDA's switch on the group type) --------
inline void thread_group::sync(std::source_location site) const {
  switch (type_) {
    case details::coalesced_group_id:
      details::api::__syncwarp(mask_, site);
      break;
    case details::thread_block_id:
      thread_block::sync(site);
      break;
    case details::grid_group_id:
      ::cudalab::emu::detail::grid_sync(site);
      break;
    default:
      break;
  }
}
inline unsigned long long thread_group::size() const {
  switch (type_) {
    case details::coalesced_group_id:
      return size_;
    case details::thread_block_id:
      return thread_block::size();
    case details::grid_group_id:
      return grid_group::size();
    default:
      return 0;
  }
}
inline unsigned long long thread_group::thread_rank() const {
  switch (type_) {
    case details::coalesced_group_id:
      return static_cast<unsigned>(std::popcount(mask_ & ::cudalab::emu::detail::lanemask_lt()));
    case details::thread_block_id:
      return thread_block::thread_rank();
    case details::grid_group_id:
      return grid_group::thread_rank();
    default:
      return 0;
  }
}

namespace details {
struct group_mask {
  static unsigned int of(const thread_group& g) { return g.mask_; }
};
}  // namespace details

// ---- free functions ------------------------------------------------------------------
template <class GroupT>
void sync(const GroupT& group, std::source_location site = std::source_location::current()) {
  group.sync(site);
}
template <class GroupT>
auto thread_rank(const GroupT& group) -> decltype(group.thread_rank()) {
  return group.thread_rank();
}
template <class GroupT>
auto group_size(const GroupT& group) -> decltype(group.num_threads()) {
  return group.num_threads();
}

// ---- not provided: each a compile error that names it ------------------------------
#define CUDALAB_EMU_CG_NOT_PROVIDED(name, instead)                     \
  template <class... A>                                                \
  void name(A&&...) {                                                  \
    static_assert(::cudalab::emu::detail::not_provided<A...>,          \
                  "cooperative_groups::" #name                         \
                  " is not provided by the cudalab emulator" instead); \
  }
CUDALAB_EMU_CG_NOT_PROVIDED(memcpy_async, " (cudalab/async_copy.hpp has cp.async)")
CUDALAB_EMU_CG_NOT_PROVIDED(wait, "")
CUDALAB_EMU_CG_NOT_PROVIDED(wait_prior, "")
CUDALAB_EMU_CG_NOT_PROVIDED(this_multi_grid, " (removed in CUDA 13 too)")
CUDALAB_EMU_CG_NOT_PROVIDED(labeled_partition, " (match_any gives the same lanes)")
CUDALAB_EMU_CG_NOT_PROVIDED(binary_partition, " (ballot gives the same lanes)")
CUDALAB_EMU_CG_NOT_PROVIDED(invoke_one, "")
CUDALAB_EMU_CG_NOT_PROVIDED(invoke_one_broadcast, "")
CUDALAB_EMU_CG_NOT_PROVIDED(reduce_update_async,
                            " (needs cuda::atomic; use cg::reduce + atomicAdd)")
CUDALAB_EMU_CG_NOT_PROVIDED(reduce_store_async, " (needs cuda::atomic; use cg::reduce)")
CUDALAB_EMU_CG_NOT_PROVIDED(inclusive_scan_update, " (needs cuda::atomic)")
CUDALAB_EMU_CG_NOT_PROVIDED(exclusive_scan_update, " (needs cuda::atomic)")
#undef CUDALAB_EMU_CG_NOT_PROVIDED

// block_tile_memory: the scratch of CUDA's multi-warp tiles, which a block
// declares __shared__ and passes to this_thread_block(). From sm_80 on the
// GPU ignores it (its reserved shared memory serves), and so does the
// emulator, whose tiles keep their own (cooperative_groups_multi_warp.hpp).
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
  static_assert(MaxBlockSize >= 1 && MaxBlockSize <= 1024,
                "block_tile_memory<MaxBlockSize>: a block has at most 1024 threads");
};
template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) {
  return this_thread_block();
}

}  // namespace cooperative_groups

#include "cudalab/emu/cooperative_groups_cluster.hpp"  // NOLINT: after the groups it uses
