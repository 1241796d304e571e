// Internal: the intra-block race check's state, one entry per 4-byte word a
// block touched in its current barrier interval (checks.cpp reads and
// writes the entries; engine.cpp starts blocks and intervals).
//
// Laid out for the common case: a block touches a few compact stretches of
// memory (its slice of each array, its shared arena). Memory is cut into
// pages of 8 KiB; the first word a block touches in a page anchors a window
// of flat entries for it there, in the slot the page's number chooses, and
// a word inside it is found by a shift and two compares. The windows'
// memory is handed out in the order the block claims them, so every block
// reuses the same few buffers, warm in the cache. A word outside its
// page's window, or of a page whose slot another page holds, or past the
// last buffer, goes to an open-addressing table. Nothing is emptied between
// blocks or barrier intervals: every entry carries the interval it belongs
// to, and an interval number is never reused without wiping.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine.hpp"

namespace cudalab::emu::detail {

// The last writer and up to two distinct readers of one word within the
// current barrier interval.
struct WordShadow {
  struct Access {
    std::uint16_t thread = 0;  // thread + 1; 0: none
    std::uint8_t mask = 0;     // bytes of the word it touched
    std::uint32_t warp_syncs = 0;
    SiteRef site;
  };
  std::uint32_t interval = 0;  // RaceShadow's interval this entry belongs to; other: empty
  Access writer;
  Access readers[2];
};

class RaceShadow {
 public:
  // A new block: every entry is stale, and the slots take pages afresh. The
  // windows' memory is made by the first block that checks races on this
  // worker, so no access ever waits for an allocation.
  void start_block(bool checking_races) {
    if (checking_races && !buffers_[0]) {
      for (auto& b : buffers_) b = std::make_unique<WordShadow[]>(kWindowWords);
    }
    for (PageSlot& s : slots_) s.page = kNoPage;
    claimed_ = 0;
    overflow_.clear();
    next_interval();
  }
  // A barrier completed: the accesses before it are ordered with those after.
  void next_interval() {
    if (++interval_ == 0) wipe();  // wrapped: an old entry could look current
  }

  // The entry of the 4-byte word at `word`: what touched it in this
  // interval if `is_current`, else nothing did (and its fields are stale:
  // start it with `begin`).
  WordShadow& at(std::uintptr_t word) {
    const std::uintptr_t page = word >> kPageShift;
    PageSlot& slot = slots_[slot_of(page)];
    const std::uintptr_t index = (word - slot.low) >> 2;
    if (slot.page == page && index < kWindowWords) [[likely]] {
      return slot.entries[index];
    }
    return claim_or_overflow(slot, page, word);
  }
  // The same where the word's page already has its window in this block,
  // else nullptr (and nothing claimed): what a path that must not call out
  // of line (the hooks' fast path) looks up.
  WordShadow* in_window(std::uintptr_t word) {
    const std::uintptr_t page = word >> kPageShift;
    PageSlot& slot = slots_[slot_of(page)];
    const std::uintptr_t index = (word - slot.low) >> 2;
    if (slot.page == page && index < kWindowWords) [[likely]] {
      return &slot.entries[index];
    }
    return nullptr;
  }
  bool is_current(const WordShadow& w) const { return w.interval == interval_; }
  // Makes a stale entry the current interval's, with nothing in it.
  void begin(WordShadow& w) const {
    w.interval = interval_;
    w.writer.thread = 0;
    w.readers[0].thread = 0;
    w.readers[1].thread = 0;
  }

 private:
  // A 256-thread block's slice of a float array is 1 KiB, a tile in shared
  // memory a few KiB: a block mostly touches one or two pages per array.
  // The first word touched sits 1 KiB into its window, so a stencil's
  // x[i - 1] of the block's first thread still falls inside it.
  static constexpr unsigned kPageShift = 13;
  static constexpr std::uintptr_t kWindowWords = std::uintptr_t{1} << (kPageShift - 2);
  static constexpr std::uintptr_t kLeadBytes = 1024;
  static constexpr unsigned kSlots = 16;
  static constexpr unsigned kBuffers = 8;
  static constexpr std::uintptr_t kNoPage = ~std::uintptr_t{0};

  struct PageSlot {
    std::uintptr_t page = kNoPage;  // the page number it holds in this block
    std::uintptr_t low = 0;         // the address of entries[0]'s word
    WordShadow* entries = nullptr;  // one of buffers_
  };

  // Fibonacci hashing: two arrays a power of two apart (their pages'
  // numbers differing only in high bits) rarely share a slot, as they
  // would if the low bits chose it.
  static unsigned slot_of(std::uintptr_t page) {
    return static_cast<unsigned>((page * 0x9e3779b97f4a7c15ull) >> 60);
  }
  static_assert(kSlots == 16, "slot_of keeps the top 4 bits");

  // A page whose slot is free in this block takes it, and the next buffer,
  // for the rest of the block; any other word lives in the table (a word
  // must stay where it was first put until the block ends).
  [[gnu::noinline]] WordShadow& claim_or_overflow(PageSlot& slot, std::uintptr_t page,
                                                  std::uintptr_t word) {
    if (slot.page == kNoPage && claimed_ < kBuffers && buffers_[0]) {
      slot.page = page;
      slot.low = word >= kLeadBytes ? word - kLeadBytes : 0;
      slot.entries = buffers_[claimed_++].get();
      return slot.entries[(word - slot.low) >> 2];
    }
    return overflow_.at(word);
  }

  void wipe() {
    for (auto& b : buffers_) {
      if (b) std::fill_n(b.get(), kWindowWords, WordShadow{});
    }
    overflow_.wipe();
    interval_ = 1;
  }

  // Words of pages without a slot: word address -> entry, open addressing,
  // emptied in O(1) per block by bumping a generation.
  class Table {
   public:
    WordShadow& at(std::uintptr_t word) {
      if (slots_.empty() || 2 * (size_ + 1) > slots_.size()) grow();
      const std::size_t mask = slots_.size() - 1;
      for (std::size_t i = hash(word) & mask;; i = (i + 1) & mask) {
        Slot& s = slots_[i];
        if (s.generation != generation_) {
          s = Slot{word, generation_, WordShadow{}};
          ++size_;
          return s.value;
        }
        if (s.key == word) return s.value;
      }
    }
    void clear() {
      size_ = 0;
      if (++generation_ == 0) wipe();
    }
    void wipe() {  // really empty the slots (the generation wrapped)
      for (Slot& s : slots_) s.generation = 0;
      size_ = 0;
      generation_ = 1;
    }

   private:
    struct Slot {
      std::uintptr_t key = 0;
      std::uint32_t generation = 0;
      WordShadow value;
    };
    static std::size_t hash(std::uintptr_t word) {
      return (word >> 2) * 0x9e3779b97f4a7c15ull >> 17;
    }
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      slots_.assign(std::max<std::size_t>(1024, old.size() * 2), Slot{});
      size_ = 0;
      const std::uint32_t live = generation_;
      for (Slot& s : old) {
        if (s.generation == live) at(s.key) = s.value;
      }
    }
    std::vector<Slot> slots_;
    std::size_t size_ = 0;
    std::uint32_t generation_ = 1;
  };

  PageSlot slots_[kSlots];
  std::unique_ptr<WordShadow[]> buffers_[kBuffers];
  unsigned claimed_ = 0;  // buffers handed out in this block
  std::uint32_t interval_ = 0;
  Table overflow_;
};

}  // namespace cudalab::emu::detail
