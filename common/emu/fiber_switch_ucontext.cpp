// The ucontext build of fiber_switch.hpp, the portable fallback where neither
// Boost.Context's library nor the project's own switch (x86-64, aarch64) is
// used (CUDALAB_EMU_FIBERS). Each suspended context keeps its ucontext_t on
// its own stack, inside the jump_fcontext call that suspended it, so nothing
// is allocated.
#include <ucontext.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "fiber_switch.hpp"

namespace cudalab::emu::detail::ctx {

struct UserContext {
  ucontext_t context;
  void (*entry)(transfer_t) = nullptr;
};

namespace {

// What the jump in progress hands over. Fibers never leave their OS thread,
// so per-thread storage is per-switch storage.
thread_local transfer_t handed_over;
thread_local UserContext* jump_target;

void start_context() {
  jump_target->entry(handed_over);
  std::abort();  // entry functions jump away at their end and never return
}

}  // namespace

fcontext_t make_fcontext(void* stack_top, std::size_t stack_bytes, void (*entry)(transfer_t)) {
  // The new context's control block sits at the top of its own stack.
  auto top = reinterpret_cast<std::uintptr_t>(stack_top);
  auto block = (top - sizeof(UserContext)) & ~std::uintptr_t{63};
  auto* self = new (reinterpret_cast<void*>(block)) UserContext{};
  self->entry = entry;
  if (getcontext(&self->context) != 0) std::abort();
  char* bottom = static_cast<char*>(stack_top) - stack_bytes;
  self->context.uc_stack.ss_sp = bottom;
  self->context.uc_stack.ss_size = block - reinterpret_cast<std::uintptr_t>(bottom);
  self->context.uc_link = nullptr;
  makecontext(&self->context, start_context, 0);
  return self;
}

transfer_t jump_fcontext(fcontext_t to, void* data) {
  UserContext me;  // resumed through this, while this call is suspended
  handed_over = {&me, data};
  jump_target = to;
  if (swapcontext(&me.context, &to->context) != 0) std::abort();
  return handed_over;
}

}  // namespace cudalab::emu::detail::ctx
