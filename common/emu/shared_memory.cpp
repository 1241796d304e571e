// Shared memory of the instrumented path: one arena per block holding the
// kernel's static `__shared__` declarations (placed by static_shared in
// first-use order, fixed per launch) and then the dynamic part; poisoned at
// block start so that reads of shared memory nothing wrote are reported; and
// the per-kernel opt-in for dynamic shared memory above 48 KiB.
#include "cudalab/emu/shared_memory.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "block_run.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu::detail {

namespace {

constexpr unsigned char kPoison = 0xff;  // as fresh cudaMalloc memory: NaN, -1

std::uintptr_t align_up(std::uintptr_t v, std::uintptr_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

void poison(BlockRun& run, std::size_t offset, std::size_t bytes) {
  std::memset(reinterpret_cast<void*>(run.shared_low + offset), kPoison, bytes);
  std::memset(run.shared_written + offset, 0, bytes);
}

// Kernel code called on the host (outside a launch) still gets storage.
void* host_slot(const void* key, std::size_t bytes, std::size_t alignment) {
  thread_local std::map<const void*, std::unique_ptr<unsigned char[]>> slots;
  auto& slot = slots[key];
  if (!slot) slot = std::make_unique<unsigned char[]>(bytes + alignment);
  return reinterpret_cast<void*>(align_up(reinterpret_cast<std::uintptr_t>(slot.get()), alignment));
}

std::mutex attribute_mutex;
std::map<const void*, std::size_t>& max_dynamic_shared() {
  static std::map<const void*, std::size_t> limits;
  return limits;
}

}  // namespace

void prepare_shared_arena(BlockRun& run, const LaunchState& launch,
                          std::vector<unsigned char>& arena, std::vector<std::uint8_t>& written) {
  // The largest arena any launch may need, made once per worker: blocks of
  // one launch then never move it.
  constexpr std::size_t kArenaBytes = kStaticSharedLimit + kMaxDynamicSharedBytes;
  if (arena.size() < kArenaBytes + 128) {
    arena.assign(kArenaBytes + 128, kPoison);
    written.assign(kArenaBytes + 128, 0);
  }
  const auto raw = reinterpret_cast<std::uintptr_t>(arena.data());
  run.shared_low = align_up(raw, 128);
  run.shared_written = written.data() + (run.shared_low - raw);
  run.shared_bytes = kStaticSharedLimit + launch.shared_bytes;
  run.dynamic_shared =
      launch.shared_bytes ? reinterpret_cast<void*>(run.shared_low + kStaticSharedLimit) : nullptr;
  run.static_poisoned = launch.static_shared_bytes.load(std::memory_order_acquire);
  poison(run, 0, run.static_poisoned);
  poison(run, kStaticSharedLimit, launch.shared_bytes);
}

void* static_shared_slot(const void* key, std::size_t bytes, std::size_t alignment) noexcept {
  BlockRun* run = current_thread->run;
  if (!run) return host_slot(key, bytes, alignment);
  LaunchState& launch = *run->launch;
  if (run->layout_launch != launch.id) {
    run->layout_launch = launch.id;
    run->layout_cache.clear();
  }
  for (const auto& [k, offset] : run->layout_cache) {
    if (k == key) return reinterpret_cast<void*>(run->shared_low + offset);
  }
  std::uintptr_t offset = 0;
  std::size_t total = 0;
  bool found = false;
  {
    std::lock_guard lock(launch.mutex);
    for (const auto& [k, o] : launch.shared_layout) {
      if (k == key) {
        offset = o;
        found = true;
      }
    }
    total = launch.static_shared_bytes.load(std::memory_order_relaxed);
    if (!found) {
      offset = align_up(total, alignment);
      total = offset + bytes;
      if (total <= kStaticSharedLimit) {
        launch.shared_layout.emplace_back(key, static_cast<std::uint32_t>(offset));
        launch.static_shared_bytes.store(total, std::memory_order_release);
      }
    }
  }
  if (total > kStaticSharedLimit || total + launch.shared_bytes > kMaxDynamicSharedBytes) {
    std::ostringstream what;
    what << "Too much shared memory: the kernel's static __shared__ variables need " << total
         << " bytes";
    if (total > kStaticSharedLimit) {
      what << ", more than the 48 KiB (49152 bytes) a block may declare statically (nvcc "
              "refuses to build such a kernel); use dynamic shared memory (extern __shared__) "
              "with cudaFuncSetAttribute for more";
    } else {
      what << ", and with the launch's " << launch.shared_bytes
           << " bytes of dynamic shared memory the block needs more than the "
           << kMaxDynamicSharedBytes << " bytes a block may use";
    }
    run->report(ReportKind::shared_memory_limit, current_thread->linear, what.str(), nullptr,
                cudaErrorInvalidValue);
    run->abort_block();
  }
  run->layout_cache.emplace_back(key, static_cast<std::uint32_t>(offset));
  const std::size_t end = offset + bytes;
  if (end > run->static_poisoned) {
    poison(*run, run->static_poisoned, end - run->static_poisoned);
    run->static_poisoned = end;
  }
  return reinterpret_cast<void*>(run->shared_low + offset);
}

cudaError_t set_max_dynamic_shared(const void* kernel, int bytes) noexcept {
  if (!kernel) return set_last_error(cudaErrorInvalidDeviceFunction);
  if (bytes < 0 || static_cast<std::size_t>(bytes) > kMaxDynamicSharedBytes) {
    return set_last_error(cudaErrorInvalidValue);
  }
  std::lock_guard lock(attribute_mutex);
  max_dynamic_shared()[kernel] = static_cast<std::size_t>(bytes);
  return cudaSuccess;
}

std::size_t max_dynamic_shared_of(const void* kernel) noexcept {
  std::lock_guard lock(attribute_mutex);
  auto it = max_dynamic_shared().find(kernel);
  return it == max_dynamic_shared().end() ? kStaticSharedLimit : it->second;
}

}  // namespace cudalab::emu::detail
