// The project's own build of fiber_switch.hpp for aarch64 (AAPCS64, ELF): a
// context switch in a few instructions and no system call, used where
// Boost.Context's library is missing (CUDALAB_EMU_FIBERS, common/emu/CMakeLists.txt).
//
// A suspended context is its stack pointer (16-byte aligned), which points at
// this frame on its own stack (written by jump_fcontext, or by make_fcontext
// for a new one):
//
//   0x00  d8  d9     0x10  d10 d11    0x20  d12 d13    0x30  d14 d15
//   0x40  x19 x20    0x50  x21 x22    0x60  x23 x24    0x70  x25 x26
//   0x80  x27 x28    0x90  x29 (frame pointer), x30 (where it resumes)
//   0xa0  FPCR (rounding mode, flush-to-zero, default NaN), 8 bytes unused
//
// transfer_t {from, data} is returned in x0:x1 and, on a new context's first
// jump, passed to its entry function in x0:x1. FPCR is kept per context as
// MXCSR is on x86-64 (Boost.Context does not keep it); it is written only
// when it differs, since writing it can stall.
//
// Unwinding (the crash reporter's and the watchdog's backtrace, gdb, libdw):
// jump_fcontext's call frame information stays right at every instruction,
// since both stacks hold the same frame at the stack pointer; a new context
// starts in a trampoline whose return address (x30) is marked undefined, with
// frame pointer 0, so walkers stop there.
#include "fiber_switch.hpp"

#if !defined(__aarch64__) || !defined(__ELF__)
#error "fiber_switch_aarch64.cpp is the switch for aarch64 ELF targets (CUDALAB_EMU_FIBERS)"
#endif

namespace cudalab::emu::detail::ctx {
static_assert(sizeof(transfer_t) == 16 && sizeof(fcontext_t) == 8);
}  // namespace cudalab::emu::detail::ctx

// clang-format off
asm(R"(
  .pushsection .text
  .globl cudalab_emu_jump_fcontext
  .hidden cudalab_emu_jump_fcontext
  .type cudalab_emu_jump_fcontext, %function
  .p2align 4
// transfer_t jump_fcontext(fcontext_t to = x0, void* data = x1)
cudalab_emu_jump_fcontext:
  .cfi_startproc
  sub sp, sp, #0xb0
  .cfi_def_cfa_offset 0xb0
  stp d8, d9, [sp, #0x00]
  stp d10, d11, [sp, #0x10]
  stp d12, d13, [sp, #0x20]
  stp d14, d15, [sp, #0x30]
  stp x19, x20, [sp, #0x40]
  stp x21, x22, [sp, #0x50]
  stp x23, x24, [sp, #0x60]
  stp x25, x26, [sp, #0x70]
  stp x27, x28, [sp, #0x80]
  stp x29, x30, [sp, #0x90]
  .cfi_offset d8, -0xb0
  .cfi_offset d9, -0xa8
  .cfi_offset d10, -0xa0
  .cfi_offset d11, -0x98
  .cfi_offset d12, -0x90
  .cfi_offset d13, -0x88
  .cfi_offset d14, -0x80
  .cfi_offset d15, -0x78
  .cfi_offset x19, -0x70
  .cfi_offset x20, -0x68
  .cfi_offset x21, -0x60
  .cfi_offset x22, -0x58
  .cfi_offset x23, -0x50
  .cfi_offset x24, -0x48
  .cfi_offset x25, -0x40
  .cfi_offset x26, -0x38
  .cfi_offset x27, -0x30
  .cfi_offset x28, -0x28
  .cfi_offset x29, -0x20
  .cfi_offset x30, -0x18
  mrs x9, fpcr
  str x9, [sp, #0xa0]
  // The switch: from here on the frame at sp is the target's, laid out alike,
  // so the call frame information above describes it.
  mov x9, sp
  mov sp, x0
  ldp d8, d9, [sp, #0x00]
  ldp d10, d11, [sp, #0x10]
  ldp d12, d13, [sp, #0x20]
  ldp d14, d15, [sp, #0x30]
  ldp x19, x20, [sp, #0x40]
  ldp x21, x22, [sp, #0x50]
  ldp x23, x24, [sp, #0x60]
  ldp x25, x26, [sp, #0x70]
  ldp x27, x28, [sp, #0x80]
  ldr x10, [sp, #0xa0]
  mrs x11, fpcr
  cmp x10, x11
  b.eq 1f
  msr fpcr, x10
1:
  ldp x29, x30, [sp, #0x90]
  add sp, sp, #0xb0
  .cfi_def_cfa_offset 0
  .cfi_restore d8
  .cfi_restore d9
  .cfi_restore d10
  .cfi_restore d11
  .cfi_restore d12
  .cfi_restore d13
  .cfi_restore d14
  .cfi_restore d15
  .cfi_restore x19
  .cfi_restore x20
  .cfi_restore x21
  .cfi_restore x22
  .cfi_restore x23
  .cfi_restore x24
  .cfi_restore x25
  .cfi_restore x26
  .cfi_restore x27
  .cfi_restore x28
  .cfi_restore x29
  .cfi_restore x30
  // x0:x1 is the transfer_t returned to a resumed jump_fcontext call, or the
  // one passed to a new context's entry function.
  mov x0, x9
  ret
  .cfi_endproc
  .size cudalab_emu_jump_fcontext, .-cudalab_emu_jump_fcontext

  .globl cudalab_emu_make_fcontext
  .hidden cudalab_emu_make_fcontext
  .type cudalab_emu_make_fcontext, %function
  .p2align 4
// fcontext_t make_fcontext(void* stack_top = x0, size_t bytes = x1, void (*entry)(transfer_t) = x2)
cudalab_emu_make_fcontext:
  .cfi_startproc
  // Two zero words at the top (a null frame record for walkers that look past
  // the trampoline), then the frame; sp stays 16-byte aligned.
  and x0, x0, #~15
  sub x0, x0, #0xc0
  stp xzr, xzr, [x0, #0xb0]
  stp xzr, xzr, [x0, #0x00]
  stp xzr, xzr, [x0, #0x10]
  stp xzr, xzr, [x0, #0x20]
  stp xzr, xzr, [x0, #0x30]
  stp x2, xzr, [x0, #0x40]     // x19: the entry function, called by the trampoline
  stp xzr, xzr, [x0, #0x50]
  stp xzr, xzr, [x0, #0x60]
  stp xzr, xzr, [x0, #0x70]
  stp xzr, xzr, [x0, #0x80]
  adr x9, cudalab_emu_fiber_trampoline
  stp xzr, x9, [x0, #0x90]     // x29 = 0 ends the frame-pointer chain
  mrs x9, fpcr                 // the new context starts in its maker's modes
  stp x9, xzr, [x0, #0xa0]
  ret
  .cfi_endproc
  .size cudalab_emu_make_fcontext, .-cudalab_emu_make_fcontext

  .type cudalab_emu_fiber_trampoline_start, %function
  .p2align 4
// Where a new context's first jump lands, with x0:x1 = transfer_t, x19 =
// entry, x29 = 0. The return address is undefined: unwinding ends here. The
// nop puts the address a jump_fcontext frame "returns" to (the label) inside
// this procedure for unwinders that look up return address - 1.
cudalab_emu_fiber_trampoline_start:
  .cfi_startproc
  .cfi_undefined x30
  nop
cudalab_emu_fiber_trampoline:
  blr x19
  // Entry functions jump away at their end and never return.
  bl abort
  brk #0
  .cfi_endproc
  .size cudalab_emu_fiber_trampoline_start, .-cudalab_emu_fiber_trampoline_start
  .popsection
)");
// clang-format on
