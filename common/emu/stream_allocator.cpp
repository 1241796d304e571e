// The stream-ordered allocator: cudaMallocAsync and cudaFreeAsync over one
// pool per device (the stream's) (docs/emulator.md, "Stream-ordered allocation").
//
// A block freed on a stream goes back to the pool in that stream's order:
// the next cudaMallocAsync on the same stream may get it at once, another
// stream only once it is ordered after the free (an event wait, a host
// synchronisation, the default-stream rules), as the GPU's default pool does
// when it follows event dependencies. The free itself is an operation on
// its stream whose "access" is the whole block, so that the race checker
// reports a use on another stream that nothing orders before it
// (stream_use_after_free): the hazard record_stream exists for.
#include <map>
#include <mutex>
#include <string>

#include "cudalab/emu/runtime.hpp"
#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu {

namespace {

constexpr std::size_t kGranularity = 256;  // blocks of one rounded size are interchangeable

struct PoolBlock {
  Allocation* allocation = nullptr;
  std::size_t capacity = 0;      // rounded size: what a request must match to reuse it
  bool free = false;             // at issue time: cudaFreeAsync was called, no reuse since
  detail::OperationRef free_op;  // that cudaFreeAsync
  std::uint64_t free_order = 0;  // when it was freed, among all frees
};

struct Pool {
  std::mutex mutex;
  std::map<std::uintptr_t, PoolBlock> blocks;  // by base address
  std::uint64_t frees = 0;
};

Pool& pool() {
  static Pool p;
  return p;
}

std::size_t rounded(std::size_t bytes) {
  return (std::max<std::size_t>(bytes, 1) + kGranularity - 1) / kGranularity * kGranularity;
}

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

// The most recently freed block of this size that `stream` may have now.
PoolBlock* reusable(Pool& p, std::size_t capacity, cudaStream_t stream) {
  PoolBlock* best = nullptr;
  for (auto& [base, block] : p.blocks) {
    if (!block.free || block.capacity != capacity) continue;
    // Each device has its own pool, as on the GPU.
    if (block.allocation->device != detail::device_of_stream(stream)) continue;
    if (!detail::next_happens_after(stream, block.free_op)) continue;
    if (!best || block.free_order > best->free_order) best = &block;
  }
  return best;
}

}  // namespace

cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream) {
  return detail::malloc_async(ptr, bytes, stream, __builtin_return_address(0));
}

cudaError_t detail::malloc_async(void** ptr, std::size_t bytes, cudaStream_t stream,
                                 const void* caller) {
  if (!ptr) return fail(cudaErrorInvalidValue);
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  // A graph's memory nodes are not modelled (docs/emulator.md, "Graphs").
  if (detail::is_capturing(stream)) return fail(cudaErrorStreamCaptureUnsupported);
  const bool at_once = detail::runs_at_once(stream);
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  const std::size_t capacity = rounded(bytes);
  PoolBlock* block = reusable(p, capacity, stream);
  Allocation* a = nullptr;
  if (block) {
    a = block->allocation;
    block->free = false;
    // Live at once for the calls that name it next; live again when the
    // allocation runs, after the free (which retires it when it runs).
    detail::revive_from_pool(a, bytes);
  } else {
    a = detail::allocate(capacity, detail::device_of_stream(stream));
    if (!a) {
      *ptr = nullptr;
      return fail(cudaErrorMemoryAllocation);
    }
    detail::revive_from_pool(a, bytes);
    p.blocks[a->base] = {a, capacity, false, {}, 0};
  }
  detail::QueuedOperation op;
  op.stream = stream;
  op.what = "cudaMallocAsync " + std::to_string(bytes) + " bytes at " + detail::hex(a->base) +
            (block ? " (a block from the pool)" : "");
  op.call_site = detail::SiteRef::at_pc(caller);
  op.modelled_us = 0;
  op.run = [a, bytes](detail::OperationAccesses&) { detail::revive_from_pool(a, bytes); };
  detail::enqueue(std::move(op), at_once);
  *ptr = reinterpret_cast<void*>(a->base);
  return cudaSuccess;
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  if (!ptr) return cudaSuccess;
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  // A graph's memory nodes are not modelled (docs/emulator.md, "Graphs").
  if (detail::is_capturing(stream)) return fail(cudaErrorStreamCaptureUnsupported);
  const bool at_once = detail::runs_at_once(stream);
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  const auto base = reinterpret_cast<std::uintptr_t>(ptr);
  auto it = p.blocks.find(base);
  Allocation* a = detail::find_live(ptr, 1);
  if (it != p.blocks.end() ? it->second.free : (!a || a->base != base)) {
    return fail(cudaErrorInvalidValue);  // freed already, or not the start of an allocation
  }
  if (it == p.blocks.end()) {
    // cudaMalloc's memory, freed in stream order: it joins the pool.
    it = p.blocks.emplace(base, PoolBlock{a, rounded(a->bytes), false, {}, 0}).first;
  }
  PoolBlock& block = it->second;
  Allocation* const freed = block.allocation;
  const std::size_t capacity = block.capacity;
  detail::QueuedOperation op;
  op.stream = stream;
  op.what =
      "cudaFreeAsync of " + detail::hex(base) + " (" + std::to_string(freed->bytes) + " bytes)";
  op.call_site = detail::SiteRef::at_pc(__builtin_return_address(0));
  op.modelled_us = 0;
  op.run = [freed, capacity](detail::OperationAccesses& accesses) {
    accesses.frees.push_back({freed->base, freed->base + capacity});
    detail::retire_to_pool(freed);
  };
  block.free = true;
  block.free_order = ++p.frees;
  block.free_op = detail::enqueue(std::move(op), at_once);
  return cudaSuccess;
}

namespace detail {

bool forget_pool_block(const void* ptr) {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  auto it = p.blocks.find(reinterpret_cast<std::uintptr_t>(ptr));
  if (it == p.blocks.end() || it->second.free) return false;
  p.blocks.erase(it);
  return true;
}

}  // namespace detail

}  // namespace cudalab::emu
