// Internal: the two primitives the engine switches fibers with, in the shape
// of Boost.Context's fcontext API: make a context on a stack, and jump to a
// context handing it a pointer (the jump returns whoever jumped back, with
// their pointer).
//
// Three builds of them, chosen at configure time (CUDALAB_EMU_FIBERS in
// common/emu/CMakeLists.txt, which says which one it took):
//  - boost: Boost.Context's assembly, where its library is installed.
//  - own: the project's switch in the same shape (fiber_switch_x86_64.cpp,
//    fiber_switch_aarch64.cpp): saves the callee-saved registers and the
//    floating-point control state, swaps stack pointers, no system call.
//    Used on x86-64 and aarch64 where Boost.Context's library is missing
//    (the GPU machine has Boost's headers but not its compiled libraries).
//  - ucontext: POSIX getcontext/swapcontext, the portable fallback; its
//    switch also saves the signal mask with a system call, about ten times
//    slower per switch.
// Either way the engine allocates the stacks (engine.cpp: a guard page at the
// bottom of each) and a new context's first frame ends stack walks.
#pragma once

#include <cstddef>

#if CUDALAB_EMU_FIBERS_BOOST

#include <boost/context/detail/fcontext.hpp>

namespace cudalab::emu::detail::ctx {
using boost::context::detail::fcontext_t;
using boost::context::detail::jump_fcontext;
using boost::context::detail::make_fcontext;
using boost::context::detail::transfer_t;
}  // namespace cudalab::emu::detail::ctx

#elif CUDALAB_EMU_FIBERS_OWN || CUDALAB_EMU_FIBERS_UCONTEXT

namespace cudalab::emu::detail::ctx {

#if CUDALAB_EMU_FIBERS_OWN
using fcontext_t = void*;  // the suspended context's stack pointer
#else
struct UserContext;
using fcontext_t = UserContext*;
#endif

struct transfer_t {
  fcontext_t fctx;  // the context that jumped here; jumping to it resumes it
  void* data;
};

#if CUDALAB_EMU_FIBERS_OWN
// In assembly (fiber_switch_<processor>.cpp), hence C names.
extern "C" {
fcontext_t cudalab_emu_make_fcontext(void* stack_top, std::size_t stack_bytes,
                                     void (*entry)(transfer_t));
transfer_t cudalab_emu_jump_fcontext(fcontext_t to, void* data);
}
// `entry` runs on the new context's first jump and must never return.
inline fcontext_t make_fcontext(void* stack_top, std::size_t stack_bytes,
                                void (*entry)(transfer_t)) {
  return cudalab_emu_make_fcontext(stack_top, stack_bytes, entry);
}
inline transfer_t jump_fcontext(fcontext_t to, void* data) {
  return cudalab_emu_jump_fcontext(to, data);
}
#else
// `entry` runs on the new context's first jump and must never return.
fcontext_t make_fcontext(void* stack_top, std::size_t stack_bytes, void (*entry)(transfer_t));
transfer_t jump_fcontext(fcontext_t to, void* data);
#endif

}  // namespace cudalab::emu::detail::ctx

#else
#error "the emulator's fiber switch is chosen in common/emu/CMakeLists.txt (CUDALAB_EMU_FIBERS)"
#endif
