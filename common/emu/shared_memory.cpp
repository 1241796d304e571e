// Shared memory of the instrumented path: one arena per block holding the
// kernel's static `__shared__` declarations (placed by static_shared in
// first-use order, fixed per launch) and the dynamic part, laid out as the
// GPU lays them out (docs/emulator.md, "Shared memory"); poisoned at block
// start, or at first use for what the launch placed later, so that reads of
// shared memory nothing wrote are reported; and the per-kernel opt-in for
// dynamic shared memory above 48 KiB.
#include "cudalab/emu/shared_memory.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "block_run.hpp"
#include "cudalab/emu/device_functions.hpp"
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

void prepare_shared_arena(BlockRun& run, LaunchState& launch, std::vector<unsigned char>& arena,
                          std::vector<std::uint8_t>& written) {
  // The largest arena any launch may need, made once per worker: blocks of
  // one launch then never move it. 128-byte aligned, as the GPU's first
  // user byte (offset 1024 of the shared window) is: banks match.
  constexpr std::size_t kArenaBytes = kStaticSharedLimit + kMaxDynamicSharedBytes + 16;
  if (arena.size() < kArenaBytes + 128) {
    arena.assign(kArenaBytes + 128, kPoison);
    written.assign(kArenaBytes + 128, 0);
  }
  const auto raw = reinterpret_cast<std::uintptr_t>(arena.data());
  run.shared_low = align_up(raw, 128);
  run.shared_written = written.data() + (run.shared_low - raw);
  run.shared_bytes = kArenaBytes;
  // What the launch has placed so far is poisoned now; what it places later
  // lies past it and is poisoned at the block's first use.
  run.poisoned_end = launch.shared_arena_end.load(std::memory_order_acquire);
  run.poisoned_late.clear();
  poison(run, 0, run.poisoned_end);
  const std::size_t dynamic = launch.dynamic_shared_offset.load(std::memory_order_acquire);
  run.dynamic_shared = launch.shared_bytes && dynamic + launch.shared_bytes <= run.poisoned_end
                           ? reinterpret_cast<void*>(run.shared_low + dynamic)
                           : nullptr;
}

namespace {

// [offset, offset + bytes) at the block's first use of it: poisoned unless
// block start or an earlier use in this block did it.
void poison_first_use(BlockRun& run, std::size_t offset, std::size_t bytes) {
  if (offset + bytes <= run.poisoned_end) return;
  const auto key = static_cast<std::uint32_t>(offset);
  for (std::uint32_t done : run.poisoned_late) {
    if (done == key) return;
  }
  run.poisoned_late.push_back(key);
  poison(run, offset, bytes);
}

// The end of everything the launch placed; `launch.mutex` held.
std::size_t placed_end(const LaunchState& launch) {
  return launch.shared_arena_end.load(std::memory_order_relaxed);
}

}  // namespace

void* block_dynamic_shared(BlockRun& run) noexcept {
  LaunchState& launch = *run.launch;
  if (!launch.shared_bytes) return nullptr;
  std::size_t offset = 0;
  {
    std::lock_guard lock(launch.mutex);
    offset = launch.dynamic_shared_offset.load(std::memory_order_relaxed);
    if (offset == LaunchState::kDynamicNotPlaced) {
      // As on the GPU: 16-byte aligned after the static declarations.
      offset = align_up(placed_end(launch), 16);
      launch.dynamic_shared_offset.store(offset, std::memory_order_release);
      launch.shared_arena_end.store(offset + launch.shared_bytes, std::memory_order_release);
    }
  }
  poison_first_use(run, offset, launch.shared_bytes);
  run.dynamic_shared = reinterpret_cast<void*>(run.shared_low + offset);
  return run.dynamic_shared;
}

void* static_shared_slot(const void* key, std::size_t bytes, std::size_t alignment) noexcept {
  BlockRun* run = current_thread->run;
  if (!run) return host_slot(key, bytes, alignment);
  LaunchState& launch = *run->launch;
  if (run->layout_launch != launch.id) {
    run->layout_launch = launch.id;
    run->layout_cache.clear();
  }
  // A declaration this worker has seen in this launch: placed before this
  // block started, or first used by it, so already poisoned.
  for (const auto& [k, offset] : run->layout_cache) {
    if (k == key) return reinterpret_cast<void*>(run->shared_low + offset);
  }
  std::uintptr_t offset = 0;
  std::size_t declared = 0;
  bool found = false;
  {
    std::lock_guard lock(launch.mutex);
    for (const auto& [k, o] : launch.shared_layout) {
      if (k == key) {
        offset = o;
        found = true;
      }
    }
    declared = launch.static_shared_bytes.load(std::memory_order_relaxed);
    if (!found) {
      const std::size_t end = placed_end(launch);
      offset = align_up(end, alignment);
      declared += offset + bytes - end;
      if (declared <= kStaticSharedLimit &&
          declared + launch.shared_bytes <= kMaxDynamicSharedBytes) {
        launch.shared_layout.emplace_back(key, static_cast<std::uint32_t>(offset));
        launch.static_shared_bytes.store(declared, std::memory_order_relaxed);
        launch.shared_arena_end.store(offset + bytes, std::memory_order_release);
      }
    }
  }
  if (declared > kStaticSharedLimit || declared + launch.shared_bytes > kMaxDynamicSharedBytes) {
    std::ostringstream what;
    what << "Too much shared memory: the kernel's static __shared__ variables need " << declared
         << " bytes";
    if (declared > kStaticSharedLimit) {
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
  poison_first_use(*run, offset, bytes);
  return reinterpret_cast<void*>(run->shared_low + offset);
}

std::size_t shared_window_offset(const void* p, const std::source_location& site) {
  // What cudaDevAttrReservedSharedMemoryPerBlock reports on the H200.
  constexpr std::size_t kReservedShared = 1024;
  BlockRun* run = current_thread->run;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (run && a - run->shared_low < run->shared_bytes)
    return kReservedShared + (a - run->shared_low);
  if (!run) return 0;  // host code: no shared memory to point into
  std::ostringstream what;
  what << "__cvta_generic_to_shared(" << hex(a)
       << "): the pointer is not into the block's shared memory, so it has no shared-window "
          "offset (the GPU's result is undefined)";
  run->report(ReportKind::invalid_pointer, current_thread->linear, what.str(), &site,
              cudaErrorIllegalAddress);
  run->abort_block();
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
