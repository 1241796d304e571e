#include "cudalab/emu/crash_context.hpp"

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

std::size_t cuda_thread_stack_bytes() noexcept {
  const detail::ThreadState* thread = detail::current_thread;
  return thread != nullptr ? thread->stack_bytes : 0;
}

}  // namespace cudalab::emu
