#include "cudalab/emu/crash_context.hpp"

#include <execinfo.h>
#include <ucontext.h>

#include "block_run.hpp"
#include "cudalab/emu/thread_state.hpp"
#include "engine.hpp"

namespace cudalab::emu {
namespace {

// Appends to a NUL-terminated buffer without allocating (no snprintf: this
// runs in signal handlers).
class Writer {
 public:
  Writer(char* buffer, std::size_t size) : buffer_(buffer), size_(size) {
    if (size_ > 0) buffer_[0] = '\0';
  }
  Writer& operator<<(const char* text) {
    while (*text != '\0' && used_ + 1 < size_) buffer_[used_++] = *text++;
    if (size_ > 0) buffer_[used_] = '\0';
    return *this;
  }
  Writer& operator<<(unsigned value) {
    char digits[12];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    char text[12];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
    return *this << static_cast<const char*>(text);
  }
  Writer& operator<<(uint3 v) { return *this << "(" << v.x << "," << v.y << "," << v.z << ")"; }

 private:
  char* buffer_;
  std::size_t size_;
  std::size_t used_ = 0;
};

}  // namespace

bool describe_current_cuda_thread(char* buffer, std::size_t size) noexcept {
  const detail::ThreadState* thread = detail::current_thread;
  if (thread == nullptr || thread->run == nullptr || thread->block == nullptr) return false;
  Writer out(buffer, size);
  const detail::LaunchState* launch = thread->run->launch;
  out << "kernel " << (launch != nullptr ? launch->name.c_str() : "?") << ", block "
      << thread->block->block_idx << " thread " << thread->thread_idx;
  return true;
}

bool is_stack_overflow(const void* address) noexcept {
  const detail::ThreadState* thread = detail::current_thread;
  if (thread == nullptr || thread->stack_bytes == 0) return false;
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  // The lowest page is the guard; a frame larger than a page can jump past
  // it, so anything up to a megabyte below counts too.
  constexpr std::uintptr_t kPage = 4096, kBelow = std::uintptr_t{1} << 20;
  return a < thread->stack_low + kPage && a + kBelow >= thread->stack_low;
}

int interrupted_stack(void* context, void** out, int capacity) noexcept {
  // backtrace walks through the signal frame: the handler's own frames come
  // first, then those of the interrupted code after the interrupted pc.
  void* raw[96];
  const int n = backtrace(raw, 96);
  void* pc = nullptr;
#if defined(__x86_64__)
  pc = reinterpret_cast<void*>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  pc = reinterpret_cast<void*>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#endif
  int first = 0;
  for (int i = 0; i < n; ++i) {
    if (raw[i] == pc) {
      first = i + 1;
      break;
    }
  }
  int frames = 0;
  if (pc != nullptr && capacity > 0) out[frames++] = static_cast<char*>(pc) + 1;
  for (int i = first; i < n && frames < capacity; ++i) out[frames++] = raw[i];
  return frames;
}

std::size_t cuda_thread_stack_bytes() noexcept {
  const detail::ThreadState* thread = detail::current_thread;
  return thread != nullptr ? thread->stack_bytes : 0;
}

}  // namespace cudalab::emu
