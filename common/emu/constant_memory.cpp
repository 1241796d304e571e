// __constant__ variables: their places in the devices' constant banks, the
// kernel's reads of them (traced as constant-memory accesses, stores
// refused) and the symbol API (cudaMemcpyToSymbol & co).
//
// Each device has one bank, a device allocation made at its first use, in
// which every variable has the same offset (as every GPU loads its own copy
// of a module's constant data). Being a device allocation, a bank's bytes
// are what cudaGetSymbolAddress returns and what cudaMemcpy, the stream
// queue and the race checker between streams already handle.
#include "cudalab/emu/constant_memory.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_run.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu::detail {

struct ConstantVariable {
  static constexpr std::size_t kUnplaced = ~std::size_t{0};
  std::string name;
  std::string file;
  unsigned line = 0;
  std::size_t bytes = 0;
  std::size_t offset = kUnplaced;  // in every device's bank
  std::vector<unsigned char> initial;
  std::string why_unplaced;

  std::string where() const { return "'" + name + "' (" + file + ":" + std::to_string(line) + ")"; }
};

namespace {

// All files' variables together, per device. Each file (a module under
// nvcc) gets the GPU's 64 KiB; this is only the room for several files.
constexpr std::size_t kBankBytes = std::size_t{1} << 20;

// Variables by offset, for the access path: replaced whole on each
// registration (static initialisation), never changed in place, so that
// kernels read it without a lock. The old ones are kept (they are tiny).
struct Placed {
  std::vector<const ConstantVariable*> by_offset;
};

struct Constants {
  std::mutex mutex;
  std::vector<std::unique_ptr<ConstantVariable>> variables;
  std::map<std::string, std::size_t> bytes_of_file;
  std::size_t bank_end = 0;  // bytes placed so far
  std::array<std::atomic<Allocation*>, kMaxDevices> banks{};
  std::vector<std::unique_ptr<Placed>> snapshots;
  std::atomic<const Placed*> placed{nullptr};
  struct DeviceSymbol {
    std::size_t bytes;
    std::string name;
  };
  std::map<std::uintptr_t, DeviceSymbol> device_symbols;  // by address
};

Constants& constants() {
  static Constants c;
  return c;
}

Allocation* bank(int device) {
  Constants& c = constants();
  if (Allocation* b = c.banks[device].load(std::memory_order_acquire)) return b;
  std::lock_guard lock(c.mutex);
  if (Allocation* b = c.banks[device].load(std::memory_order_relaxed)) return b;
  Allocation* b = allocate(kBankBytes, device);
  if (!b) throw std::bad_alloc();
  b->is_constant_bank = true;
  // Constant data is zero unless initialised, as a static is.
  std::memset(reinterpret_cast<void*>(b->base), 0, kBankBytes);
  b->mark_initialised(b->base, kBankBytes);
  for (const auto& v : c.variables) {
    if (v->offset != ConstantVariable::kUnplaced && !v->initial.empty()) {
      std::memcpy(reinterpret_cast<void*>(b->base + v->offset), v->initial.data(), v->bytes);
    }
  }
  c.banks[device].store(b, std::memory_order_release);
  return b;
}

int device_of_caller() noexcept {
  const ThreadState* t = current_thread;
  return t && t->run ? t->run->device : current_device();
}

// The variable whose bytes contain [offset, offset + bytes), else the one
// placed last before `offset` (nullptr if none), for the message.
const ConstantVariable* variable_at(std::size_t offset, std::size_t bytes, bool* inside) {
  *inside = false;
  const Placed* p = constants().placed.load(std::memory_order_acquire);
  if (!p || p->by_offset.empty()) return nullptr;
  auto it =
      std::upper_bound(p->by_offset.begin(), p->by_offset.end(), offset,
                       [](std::size_t o, const ConstantVariable* v) { return o < v->offset; });
  if (it == p->by_offset.begin()) return nullptr;
  const ConstantVariable* v = *std::prev(it);
  *inside = offset + bytes <= v->offset + v->bytes;
  return v;
}

}  // namespace

ConstantVariable* register_constant(const char* name, const char* file, unsigned line,
                                    std::size_t bytes, std::size_t alignment,
                                    const void* initial) noexcept {
  Constants& c = constants();
  std::lock_guard lock(c.mutex);
  auto v = std::make_unique<ConstantVariable>();
  v->name = name;
  v->file = file;
  v->line = line;
  v->bytes = bytes;
  if (initial) {
    const auto* first = static_cast<const unsigned char*>(initial);
    v->initial.assign(first, first + bytes);
  }
  std::size_t& of_file = c.bytes_of_file[v->file];
  const std::size_t offset = (c.bank_end + alignment - 1) / alignment * alignment;
  if (of_file + bytes > kConstantBytesPerModule) {
    std::ostringstream why;
    why << "__constant__ variable " << v->where() << " does not fit: its " << bytes
        << " bytes and the " << of_file << " bytes of the __constant__ variables declared before "
        << "it in " << v->file << " exceed the GPU's " << kConstantBytesPerModule
        << " bytes of constant memory per module (nvcc would refuse this file); put large "
           "tables in global memory (cudaMalloc)";
    v->why_unplaced = why.str();
    std::fprintf(stderr, "========= cudalab emulator: %s\n", v->why_unplaced.c_str());
  } else if (offset + bytes > kBankBytes) {
    v->why_unplaced = "__constant__ variable " + v->where() +
                      " does not fit in the emulator's constant bank (" +
                      std::to_string(kBankBytes) + " bytes for all files together)";
    std::fprintf(stderr, "========= cudalab emulator: %s\n", v->why_unplaced.c_str());
  } else {
    of_file += bytes;
    v->offset = offset;
    c.bank_end = offset + bytes;
    for (auto& b : c.banks) {
      Allocation* a = b.load(std::memory_order_relaxed);
      if (a && initial) std::memcpy(reinterpret_cast<void*>(a->base + offset), initial, bytes);
    }
  }
  ConstantVariable* raw = v.get();
  c.variables.push_back(std::move(v));
  auto snapshot = std::make_unique<Placed>();
  for (const auto& each : c.variables) {
    if (each->offset != ConstantVariable::kUnplaced) snapshot->by_offset.push_back(each.get());
  }
  std::sort(
      snapshot->by_offset.begin(), snapshot->by_offset.end(),
      [](const ConstantVariable* a, const ConstantVariable* b) { return a->offset < b->offset; });
  c.placed.store(snapshot.get(), std::memory_order_release);
  c.snapshots.push_back(std::move(snapshot));
  return raw;
}

const void* constant_address(const ConstantVariable* v) {
  if (!v) throw std::logic_error("a __constant__ variable used before its registration");
  if (v->offset == ConstantVariable::kUnplaced) throw std::length_error(v->why_unplaced);
  return reinterpret_cast<const void*>(bank(device_of_caller())->base + v->offset);
}

bool register_device_symbol(const void* address, std::size_t bytes, const char* name) noexcept {
  Constants& c = constants();
  std::lock_guard lock(c.mutex);
  c.device_symbols[reinterpret_cast<std::uintptr_t>(address)] = {bytes, name};
  return true;
}

bool constant_access(BlockRun& run, const Allocation& bank_allocation, const void* address,
                     std::size_t bytes, unsigned flags, SiteRef site) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const std::size_t offset = a - bank_allocation.base;
  bool inside = false;
  const ConstantVariable* v = variable_at(offset, bytes, &inside);
  const Checks& checks = run.launch->options.checks;
  if ((flags & kWrite) || (checks.bounds && !inside)) {
    Report r;
    r.kind = (flags & kWrite) ? ReportKind::constant_write : ReportKind::out_of_bounds;
    r.kernel = run.launch->name;
    r.where = thread_id_of(run.info, current_thread->linear);
    r.address = a;
    r.access_bytes = bytes;
    r.is_write = flags & kWrite;
    std::ostringstream what;
    if (flags & kWrite) {
      what << "Write of " << bytes << " bytes to constant memory at " << hex(a);
      if (v && inside)
        what << " (offset " << offset - v->offset << " of __constant__ " << v->where() << ")";
      what << ": constant memory is read-only in kernels (a store to a __constant__ variable "
              "does not compile under nvcc); fill it from the host with cudaMemcpyToSymbol, "
              "or keep data a kernel writes in global memory";
    } else {
      what << "Out-of-bounds constant memory read of " << bytes << " bytes at " << hex(a) << ": ";
      if (v) {
        what << offset + bytes - (v->offset + v->bytes) << " bytes after the end of __constant__ "
             << v->where() << " (" << v->bytes << " bytes)";
      } else {
        what << "before every __constant__ variable";
      }
    }
    r.message = what.str();
    run.launch->report(std::move(r), cudaErrorIllegalAddress, site);
    return false;
  }
  if (run.launch->recording) {
    run.trace.push_back(RawAccess{a, site, static_cast<std::uint16_t>(current_thread->linear),
                                  static_cast<std::uint8_t>(bytes),
                                  static_cast<std::uint8_t>(flags | kConstant)});
  }
  return true;
}

namespace {

// What a symbol names: a __constant__ variable's copy on the current device,
// or a __device__ variable; nullptr: not a symbol (cudaErrorInvalidSymbol).
struct Resolved {
  unsigned char* address = nullptr;
  std::size_t bytes = 0;
  bool constant = false;
};

Resolved resolve_symbol(const ConstantVariable* v, const void* symbol) {
  Constants& c = constants();
  if (!v) {
    const auto s = reinterpret_cast<std::uintptr_t>(symbol);
    {
      std::lock_guard lock(c.mutex);
      auto it = c.device_symbols.find(s);
      if (it != c.device_symbols.end()) {
        return {reinterpret_cast<unsigned char*>(s), it->second.bytes, false};
      }
    }
    // `(const void*)&table` in host code: a device's copy of a variable.
    const Allocation* a = find_live(symbol, 1);
    if (!a || !a->is_constant_bank) return {};
    bool inside = false;
    v = variable_at(s - a->base, 1, &inside);
    if (!v || v->offset != s - a->base) return {};
  }
  if (v->offset == ConstantVariable::kUnplaced) return {};
  unsigned char* base = reinterpret_cast<unsigned char*>(bank(current_device())->base);
  return {base + v->offset, v->bytes, true};
}

}  // namespace

cudaError_t memcpy_to_symbol(const ConstantVariable* v, const void* symbol, const void* src,
                             std::size_t count, std::size_t offset, cudaMemcpyKind kind,
                             cudaStream_t stream, bool async) {
  const Resolved s = resolve_symbol(v, symbol);
  if (!s.address) return set_last_error(cudaErrorInvalidSymbol);
  if (offset > s.bytes || count > s.bytes - offset) return set_last_error(cudaErrorInvalidValue);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return set_last_error(cudaErrorInvalidMemcpyDirection);
  }
  if (!src) return set_last_error(cudaErrorInvalidValue);
  if (kind == cudaMemcpyDeviceToDevice && count && !find_live(src, count)) {
    return set_last_error(cudaErrorInvalidValue);
  }
  // A __device__ variable is host memory here: cudaMemcpyDefault copies to it.
  const cudaMemcpyKind as = s.constant ? kind : cudaMemcpyDefault;
  return async ? cudaMemcpyAsync(s.address + offset, src, count, as, stream)
               : cudaMemcpy(s.address + offset, src, count, as);
}

cudaError_t memcpy_from_symbol(void* dst, const ConstantVariable* v, const void* symbol,
                               std::size_t count, std::size_t offset, cudaMemcpyKind kind,
                               cudaStream_t stream, bool async) {
  const Resolved s = resolve_symbol(v, symbol);
  if (!s.address) return set_last_error(cudaErrorInvalidSymbol);
  if (offset > s.bytes || count > s.bytes - offset) return set_last_error(cudaErrorInvalidValue);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return set_last_error(cudaErrorInvalidMemcpyDirection);
  }
  if (!dst) return set_last_error(cudaErrorInvalidValue);
  if (kind == cudaMemcpyDeviceToDevice && count && !find_live(dst, count)) {
    return set_last_error(cudaErrorInvalidValue);
  }
  const cudaMemcpyKind as = s.constant ? kind : cudaMemcpyDefault;
  return async ? cudaMemcpyAsync(dst, s.address + offset, count, as, stream)
               : cudaMemcpy(dst, s.address + offset, count, as);
}

cudaError_t get_symbol_address(void** address, const ConstantVariable* v, const void* symbol) {
  if (!address) return set_last_error(cudaErrorInvalidValue);
  const Resolved s = resolve_symbol(v, symbol);
  if (!s.address) return set_last_error(cudaErrorInvalidSymbol);
  *address = s.address;
  return cudaSuccess;
}

cudaError_t get_symbol_size(std::size_t* size, const ConstantVariable* v, const void* symbol) {
  if (!size) return set_last_error(cudaErrorInvalidValue);
  const Resolved s = resolve_symbol(v, symbol);
  if (!s.address) return set_last_error(cudaErrorInvalidSymbol);
  *size = s.bytes;
  return cudaSuccess;
}

}  // namespace cudalab::emu::detail

namespace cudalab::emu {

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count,
                               std::size_t offset, cudaMemcpyKind kind) {
  return detail::memcpy_to_symbol(nullptr, symbol, src, count, offset, kind, nullptr, false);
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count,
                                    std::size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  return detail::memcpy_to_symbol(nullptr, symbol, src, count, offset, kind, stream, true);
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count,
                                 std::size_t offset, cudaMemcpyKind kind) {
  return detail::memcpy_from_symbol(dst, nullptr, symbol, count, offset, kind, nullptr, false);
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count,
                                      std::size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  return detail::memcpy_from_symbol(dst, nullptr, symbol, count, offset, kind, stream, true);
}
cudaError_t cudaGetSymbolAddress(void** address, const void* symbol) {
  return detail::get_symbol_address(address, nullptr, symbol);
}
cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol) {
  return detail::get_symbol_size(size, nullptr, symbol);
}

}  // namespace cudalab::emu
