// The project's own build of fiber_switch.hpp for x86-64 (System V ABI, ELF):
// a context switch in a few instructions and no system call, used where
// Boost.Context's library is missing (CUDALAB_EMU_FIBERS, common/emu/CMakeLists.txt).
//
// A suspended context is its stack pointer, which points at this frame on its
// own stack (written by jump_fcontext, or by make_fcontext for a new one):
//
//   0x00  MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes unused
//   0x08  r12     0x10  r13     0x18  r14     0x20  r15
//   0x28  rbx     0x30  rbp
//   0x38  where it resumes (the return address of its jump_fcontext call)
//
// transfer_t {from, data} is returned in rax:rdx and, on a new context's first
// jump, passed to its entry function in rdi:rsi.
//
// Unwinding (the crash reporter's and the watchdog's backtrace, gdb, libdw):
// jump_fcontext's call frame information stays right at every instruction,
// since both stacks hold the same frame at the stack pointer; a new context
// starts in a trampoline whose return address is marked undefined (as glibc's
// thread start does) and whose rbp is 0, so walkers stop there. Nothing here
// maintains a CET shadow stack: as a plain assembly object would, this file is
// compiled without -fcf-protection (CMakeLists.txt), so a program that links it
// is not marked shadow-stack compatible.
#include "fiber_switch.hpp"

#if !defined(__x86_64__) || !defined(__ELF__)
#error "fiber_switch_x86_64.cpp is the switch for x86-64 ELF targets (CUDALAB_EMU_FIBERS)"
#endif

namespace cudalab::emu::detail::ctx {
static_assert(sizeof(transfer_t) == 16 && sizeof(fcontext_t) == 8);
}  // namespace cudalab::emu::detail::ctx

// clang-format off
asm(R"(
  .pushsection .text
  .globl cudalab_emu_jump_fcontext
  .hidden cudalab_emu_jump_fcontext
  .type cudalab_emu_jump_fcontext, @function
  .p2align 4
# transfer_t jump_fcontext(fcontext_t to = rdi, void* data = rsi)
cudalab_emu_jump_fcontext:
  .cfi_startproc
  leaq -0x38(%rsp), %rsp
  .cfi_adjust_cfa_offset 0x38
  stmxcsr (%rsp)
  fnstcw 0x4(%rsp)
  movq %r12, 0x08(%rsp)
  .cfi_rel_offset %r12, 0x08
  movq %r13, 0x10(%rsp)
  .cfi_rel_offset %r13, 0x10
  movq %r14, 0x18(%rsp)
  .cfi_rel_offset %r14, 0x18
  movq %r15, 0x20(%rsp)
  .cfi_rel_offset %r15, 0x20
  movq %rbx, 0x28(%rsp)
  .cfi_rel_offset %rbx, 0x28
  movq %rbp, 0x30(%rsp)
  .cfi_rel_offset %rbp, 0x30
  # The switch: from here on the frame at rsp is the target's, laid out alike,
  # so the call frame information above describes it.
  movq %rsp, %rax
  movq %rdi, %rsp
  # The resume address first, so the jump's target is known early (as
  # Boost.Context's switch does it).
  movq 0x38(%rsp), %r8
  .cfi_register %rip, %r8
  ldmxcsr (%rsp)
  fldcw 0x4(%rsp)
  movq 0x08(%rsp), %r12
  .cfi_restore %r12
  movq 0x10(%rsp), %r13
  .cfi_restore %r13
  movq 0x18(%rsp), %r14
  .cfi_restore %r14
  movq 0x20(%rsp), %r15
  .cfi_restore %r15
  movq 0x28(%rsp), %rbx
  .cfi_restore %rbx
  movq 0x30(%rsp), %rbp
  .cfi_restore %rbp
  leaq 0x40(%rsp), %rsp
  .cfi_def_cfa_offset 0
  # rax:rdx is the transfer_t returned to a resumed jump_fcontext call;
  # rdi:rsi the one passed to a new context's entry function.
  movq %rsi, %rdx
  movq %rax, %rdi
  jmpq *%r8
  .cfi_endproc
  .size cudalab_emu_jump_fcontext, .-cudalab_emu_jump_fcontext

  .globl cudalab_emu_make_fcontext
  .hidden cudalab_emu_make_fcontext
  .type cudalab_emu_make_fcontext, @function
  .p2align 4
# fcontext_t make_fcontext(void* stack_top = rdi, size_t bytes = rsi, void (*entry)(transfer_t) = rdx)
cudalab_emu_make_fcontext:
  .cfi_startproc
  # Two zero words at the top (a null return address and frame pointer for
  # walkers that look past the trampoline), then the frame, placed so that
  # the trampoline runs with rsp 16-byte aligned.
  movq %rdi, %rax
  andq $-16, %rax
  leaq -0x50(%rax), %rax
  movq $0, 0x48(%rax)
  movq $0, 0x40(%rax)
  leaq cudalab_emu_fiber_trampoline(%rip), %rcx
  movq %rcx, 0x38(%rax)
  movq $0, 0x30(%rax)     # rbp: the end of the frame-pointer chain
  movq %rdx, 0x28(%rax)   # rbx: the entry function, called by the trampoline
  movq $0, 0x20(%rax)
  movq $0, 0x18(%rax)
  movq $0, 0x10(%rax)
  movq $0, 0x08(%rax)
  movq $0, (%rax)
  stmxcsr (%rax)          # the new context starts in its maker's floating-point modes
  fnstcw 0x4(%rax)
  ret
  .cfi_endproc
  .size cudalab_emu_make_fcontext, .-cudalab_emu_make_fcontext

  .type cudalab_emu_fiber_trampoline_start, @function
  .p2align 4
# Where a new context's first jump lands, with rdi:rsi = transfer_t, rbx =
# entry, rbp = 0 and rsp 16-byte aligned. The return address is undefined:
# unwinding ends here. The nop puts the address a jump_fcontext frame
# "returns" to (the label) inside this procedure for unwinders that look up
# return address - 1.
cudalab_emu_fiber_trampoline_start:
  .cfi_startproc
  .cfi_undefined %rip
  nop
cudalab_emu_fiber_trampoline:
  callq *%rbx
  # Entry functions jump away at their end and never return.
  callq abort@PLT
  ud2
  .cfi_endproc
  .size cudalab_emu_fiber_trampoline_start, .-cudalab_emu_fiber_trampoline_start
  .popsection
)");
// clang-format on
