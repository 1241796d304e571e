// Internal: the checks every checked access makes (uninitialised reads,
// races within a block and between blocks), inline for the two paths that
// make them: on_access_at (checks.cpp; the hooks' general case) and the
// hooks' path for a global access to an allocation they have cached
// (hooks.cpp). Only the common case is here: what a check
// reports is built by the report_* functions (checks.cpp), out of line, so
// that the per-access path carries no message-building code and its frame.
#pragma once

#include <atomic>
#include <cstdint>

#include "block_run.hpp"
#include "cudalab/emu/access_hooks.hpp"

namespace cudalab::emu::detail {

[[gnu::cold, gnu::noinline]] void report_uninitialised(BlockRun& run, const Allocation& a,
                                                       const void* address, std::size_t bytes,
                                                       unsigned flags, SiteRef site);
[[gnu::cold, gnu::noinline]] void report_intra_block_race(BlockRun& run, const Allocation* a,
                                                          const void* address, std::size_t bytes,
                                                          unsigned flags, SiteRef site,
                                                          std::uintptr_t word, const char* conflict,
                                                          const WordShadow::Access& other);
[[gnu::cold, gnu::noinline]] void report_inter_block_race(BlockRun& run, const Allocation& a,
                                                          const void* address, std::size_t bytes,
                                                          unsigned flags, SiteRef site,
                                                          std::uintptr_t word,
                                                          std::uint64_t other_block);

[[gnu::always_inline]] inline void check_initialised(BlockRun& run, const Allocation& a,
                                                     const void* address, std::size_t bytes,
                                                     unsigned flags, SiteRef site) {
  if (!a.is_initialised(reinterpret_cast<std::uintptr_t>(address), bytes)) [[unlikely]] {
    report_uninitialised(run, a, address, bytes, flags, site);
  }
}

// Two accesses of one block are ordered if a barrier separates them, or if
// both lanes are in one warp and a warp collective completed in between.
inline bool ordered(const BlockRun& run, unsigned other, std::uint32_t other_syncs) {
  const ThreadState& me = *current_thread;
  if (run.threads[other].warp != me.warp) return false;
  return run.warps[me.warp].syncs != other_syncs;
}

// The access of the entry's current interval that one by this thread
// (`me1`: its linear index + 1) conflicts with, and `how`, or nullptr.
[[gnu::always_inline]] inline const WordShadow::Access* conflicting_access(
    const BlockRun& run, const WordShadow& w, unsigned flags, std::uint8_t mask, std::uint16_t me1,
    const char** how) {
  auto conflicts = [&](const WordShadow::Access& other) {
    return other.thread && other.thread != me1 && (other.mask & mask) &&
           !ordered(run, other.thread - 1u, other.warp_syncs);
  };
  if (conflicts(w.writer)) [[unlikely]] {
    *how = (flags & kWrite) ? "write-after-write" : "read-after-write";
    return &w.writer;
  }
  if (flags & kWrite) {
    for (const auto& r : w.readers) {
      if (conflicts(r)) [[unlikely]] {
        *how = "write-after-read";
        return &r;
      }
    }
  }
  return nullptr;
}

// Records the access in the word's entry, the first of its interval or not.
[[gnu::always_inline]] inline void record_in_entry(BlockRun& run, WordShadow& w, unsigned flags,
                                                   SiteRef site, std::uint8_t mask,
                                                   std::uint16_t me1) {
  const std::uint32_t syncs = run.warps[current_thread->warp].syncs;
  if (!run.shadow.is_current(w)) {
    // The first access to the word in this interval: nothing else to keep.
    run.shadow.begin(w);
    WordShadow::Access& slot = (flags & kWrite) ? w.writer : w.readers[0];
    slot = WordShadow::Access{me1, mask, syncs, site};
    return;
  }
  const WordShadow::Access mine{me1, mask, syncs, site};
  if (flags & kWrite) {
    if (w.writer.thread == me1) mask |= w.writer.mask;
    w.writer = mine;
    w.writer.mask = mask;
  } else if (w.readers[0].thread == 0 || w.readers[0].thread == me1) {
    w.readers[0] = mine;
  } else {
    w.readers[1] = mine;
  }
}

// One word of an access: `mask` says which of its bytes the access covers.
[[gnu::always_inline]] inline void check_intra_block_race_word(BlockRun& run, const Allocation* a,
                                                               const void* address,
                                                               std::size_t bytes, unsigned flags,
                                                               SiteRef site, std::uintptr_t word,
                                                               std::uint8_t mask) {
  const std::uint16_t me1 = static_cast<std::uint16_t>(current_thread->linear + 1);
  WordShadow& w = run.shadow.at(word);
  const char* how = nullptr;
  if (run.shadow.is_current(w)) {
    if (const WordShadow::Access* other = conflicting_access(run, w, flags, mask, me1, &how))
        [[unlikely]] {
      report_intra_block_race(run, a, address, bytes, flags, site, word, how, *other);
    }
  }
  record_in_entry(run, w, flags, site, mask, me1);
}

// The same for a whole word whose entry `w` is, where nothing conflicts;
// false, having changed nothing, otherwise (then the caller runs
// check_intra_block_race_word). Calls nothing, so that the hooks' fast path
// that uses it needs no call frame.
[[gnu::always_inline]] inline bool check_whole_word_if_unconflicted(BlockRun& run, WordShadow& w,
                                                                    unsigned flags, SiteRef site) {
  const std::uint16_t me1 = static_cast<std::uint16_t>(current_thread->linear + 1);
  const char* how = nullptr;
  if (run.shadow.is_current(w) && conflicting_access(run, w, flags, 0xf, me1, &how)) [[unlikely]] {
    return false;
  }
  record_in_entry(run, w, flags, site, 0xf, me1);
  return true;
}

// `whole_words`: the caller knows the access covers whole words (aligned to
// its size of 4, 8 or 16 bytes), so the masks are constants.
[[gnu::always_inline]] inline void check_intra_block_race(BlockRun& run, const Allocation* a,
                                                          const void* address, std::size_t bytes,
                                                          unsigned flags, SiteRef site,
                                                          bool whole_words = false) {
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  const std::uintptr_t end = p + bytes;
  if (whole_words && bytes == 4) {  // the common float or int
    check_intra_block_race_word(run, a, address, bytes, flags, site, p, 0xf);
    return;
  }
  if (whole_words) {
    for (std::uintptr_t word = p; word < end; word += 4) {
      check_intra_block_race_word(run, a, address, bytes, flags, site, word, 0xf);
    }
    return;
  }
  if ((p & 3) + bytes <= 4) [[likely]] {  // within one word, as every aligned access of <= 4 bytes
    const unsigned low = p & 3;
    const auto mask = static_cast<std::uint8_t>(((1u << (low + bytes)) - 1u) & ~((1u << low) - 1u));
    check_intra_block_race_word(run, a, address, bytes, flags, site, p - low, mask);
    return;
  }
  for (std::uintptr_t word = p & ~std::uintptr_t{3}; word < end; word += 4) {
    // The bytes of this word that the access covers: [low, high) of 0..4.
    const unsigned low = p > word ? static_cast<unsigned>(p - word) : 0u;
    const unsigned high = end < word + 4 ? static_cast<unsigned>(end - word) : 4u;
    const std::uint8_t mask = static_cast<std::uint8_t>(((1u << high) - 1u) & ~((1u << low) - 1u));
    check_intra_block_race_word(run, a, address, bytes, flags, site, word, mask);
  }
}

// What the inter-block check tags this block's writes with.
inline std::uint64_t inter_block_tag(const BlockRun& run) {
  return (run.race_phase << 40) | (run.info.block_linear + 1);
}

// The inter-block check of one word this block writes (`mine`: its tag):
// the tag of another block of the same launch phase that wrote the word
// before, else 0; the word is this block's from now on.
[[gnu::always_inline]] inline std::uint64_t other_block_writer(std::atomic<std::uint64_t>* shadow,
                                                               const Allocation& a,
                                                               std::uintptr_t word,
                                                               std::uint64_t mine) {
  std::atomic<std::uint64_t>& last = shadow[(word - a.base) / 4];
  // This block wrote the word before: nothing to compare, nothing to store.
  if (last.load(std::memory_order_relaxed) == mine) return 0;
  const std::uint64_t old = last.exchange(mine, std::memory_order_relaxed);
  if (old != 0 && old != mine && (old >> 40) == (mine >> 40)) [[unlikely]]
    return old;
  return 0;
}

// The block a tag of other_block_writer names.
inline std::uint64_t block_of_tag(std::uint64_t tag) {
  return (tag & ((std::uint64_t{1} << 40) - 1)) - 1;
}

[[gnu::always_inline]] inline void check_inter_block_race(BlockRun& run, Allocation& a,
                                                          const void* address, std::size_t bytes,
                                                          unsigned flags, SiteRef site) {
  // Word granularity: sub-word stores (half, char) by neighbouring blocks
  // would share a word without racing, so they are not checked.
  if (bytes < 4) return;
  const auto p = reinterpret_cast<std::uintptr_t>(address);
  std::atomic<std::uint64_t>* shadow = a.writer_shadow();
  const std::uint64_t mine = inter_block_tag(run);
  for (std::uintptr_t word = p & ~std::uintptr_t{3}; word < p + bytes; word += 4) {
    if (const std::uint64_t other = other_block_writer(shadow, a, word, mine)) [[unlikely]] {
      report_inter_block_race(run, a, address, bytes, flags, site, word, block_of_tag(other));
      return;
    }
  }
}

// The access into the block's trace, for the analyses at its end.
[[gnu::always_inline]] inline void trace_access(BlockRun& run, std::uintptr_t address,
                                                std::size_t bytes, unsigned flags, SiteRef site) {
  run.trace.push_back(RawAccess{address, site, static_cast<std::uint16_t>(current_thread->linear),
                                static_cast<std::uint8_t>(bytes),
                                static_cast<std::uint8_t>(flags)});
}

}  // namespace cudalab::emu::detail
