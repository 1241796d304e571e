// Lab 03, exercise 3: a caching allocator with record_stream.
//
// PyTorch never gives freed memory back to CUDA: a tensor's block goes to a
// free list of the stream it was allocated on, and the next allocation on
// that stream of a size that fits takes it at once, with no cudaMalloc and
// no synchronisation. That is safe for work on the same stream (stream
// order puts the next user after every earlier one), and unsafe when
// another stream still uses the block: in the lecture, A is allocated on the
// default stream and summed on a side stream s; `del A` returns the block,
// the next tensor on the default stream gets it and is written while the sum
// may still read it. A.record_stream(s) tells the allocator about s: at the
// free it records an event on s, and the block becomes reusable only when
// that event has completed.
//
// The exercise is the TODO regions of labs/03_streams/ in this file, from
// each `begin` line to its `end` line; README.md says what they want.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <stdexcept>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace lab03 {
inline namespace CUDALAB_BACKEND {

class CachingAllocator {
 public:
  // Blocks are whole multiples of this many bytes.
  static constexpr std::size_t kRounding = 512;

  CachingAllocator() = default;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Gives every block back to CUDA (cudaFree waits for the device first).
  // Errors are not thrown from here: the call that caused one reported it.
  ~CachingAllocator() {
    for (auto& [pointer, block] : blocks_) {
      for (cudaEvent_t event : block.pending) {
        [[maybe_unused]] const cudaError_t destroyed = cudaEventDestroy(event);
      }
      [[maybe_unused]] const cudaError_t freed = cudaFree(pointer);
    }
  }

  // A block of at least `bytes` bytes for work on `stream`: a free block of
  // the same size from that stream's free list if there is one, else a new
  // one from cudaMalloc.
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    const std::size_t size =
        std::max<std::size_t>(1, (bytes + kRounding - 1) / kRounding) * kRounding;
    reclaim_completed();
    auto& free_list = free_lists_[stream];
    for (auto it = free_list.begin(); it != free_list.end(); ++it) {
      if (blocks_.at(*it).size == size) {
        void* pointer = *it;
        free_list.erase(it);
        blocks_.at(pointer).in_use = true;
        return pointer;
      }
    }
    void* pointer = nullptr;
    CUDA_CHECK(cudaMalloc(&pointer, size));
    blocks_[pointer] = Block{size, stream, true, {}, {}};
    reserved_ += size;
    return pointer;
  }

  // Marks `block` as used by work on `stream` too (not the stream it was
  // allocated on): A.record_stream(s).
  void record_stream([[maybe_unused]] void* block, [[maybe_unused]] cudaStream_t stream) {
    Block& b = in_use_block(block, "record_stream");
    if (stream != b.stream &&
        std::find(b.used_on.begin(), b.used_on.end(), stream) == b.used_on.end())
      b.used_on.push_back(stream);
  }

  // Returns `block`: to its stream's free list at once, or, when other
  // streams were recorded on it, once their work issued so far has completed.
  void free(void* block) {
    Block& b = in_use_block(block, "free");
    b.in_use = false;
    for (cudaStream_t stream : b.used_on) {
      cudaEvent_t event = nullptr;
      CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
      b.pending.push_back(event);
      CUDA_CHECK(cudaEventRecord(event, stream));
    }
    b.used_on.clear();
    if (!b.pending.empty()) return;
    free_lists_[b.stream].push_back(block);
  }

  // Bytes obtained from cudaMalloc and not given back.
  std::size_t reserved_bytes() const { return reserved_; }

 private:
  struct Block {
    std::size_t size = 0;
    cudaStream_t stream = nullptr;  // the stream it was allocated on
    bool in_use = false;
    std::vector<cudaStream_t> used_on;  // record_stream's streams since the allocation
    std::vector<cudaEvent_t> pending;   // recorded at the free; reusable when all completed
  };

  Block& in_use_block(void* block, const char* what) {
    const auto it = blocks_.find(block);
    if (it == blocks_.end() || !it->second.in_use) {
      throw std::invalid_argument(std::string("CachingAllocator::") + what +
                                  ": not a block this allocator handed out");
    }
    return it->second;
  }

  // Moves every freed block whose pending events have all completed
  // (cudaEventQuery, which does not wait) to its stream's free list.
  void reclaim_completed() {
    for (auto& [pointer, block] : blocks_) {
      if (block.pending.empty()) continue;
      bool done = true;
      for (cudaEvent_t event : block.pending) {
        const cudaError_t status = cudaEventQuery(event);
        if (status == cudaErrorNotReady) {
          done = false;
          break;
        }
        CUDA_CHECK(status);
      }
      if (!done) continue;
      for (cudaEvent_t event : block.pending) CUDA_CHECK(cudaEventDestroy(event));
      block.pending.clear();
      free_lists_[block.stream].push_back(pointer);
    }
  }

  std::map<void*, Block> blocks_;
  std::map<cudaStream_t, std::vector<void*>> free_lists_;
  std::size_t reserved_ = 0;
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab03
