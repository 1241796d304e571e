// The fiber switch on its own (common/emu/fiber_switch.hpp), whichever build
// CUDALAB_EMU_FIBERS chose (boost, own or ucontext): contexts ping-pong and
// pass pointers both ways, callee-saved registers and the floating-point
// control state (MXCSR and the x87 control word, FPCR) stay with their
// context, a fiber's stack is aligned and holds a deep recursion, the guard
// page below it stops an overflow, and stack walks from a fiber (a backtrace,
// one from a signal handler, and samples taken while contexts switch, as the
// watchdog takes them) end cleanly at the fiber's first frame.
//
// Compiled with frame pointers (CMakeLists.txt), so a frame pointer the switch
// failed to restore would break the locals of the code that resumes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>
#include <unwind.h>

#include <atomic>
#include <cfenv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "fiber_switch.hpp"

namespace {

namespace ctx = cudalab::emu::detail::ctx;

// A fiber stack as the engine makes one (engine.cpp): mmap'd, its lowest page
// a guard.
class Stack {
 public:
  static constexpr std::size_t kBytes = 256 * 1024;
  Stack() {
    base_ = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base_ == MAP_FAILED) std::abort();
    mprotect(base_, page(), PROT_NONE);
  }
  ~Stack() { munmap(base_, kBytes); }
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;
  static std::size_t page() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
  char* base() const { return static_cast<char*>(base_); }
  char* top() const { return base() + kBytes; }
  ctx::fcontext_t make(void (*entry)(ctx::transfer_t)) const {
    return ctx::make_fcontext(top(), kBytes - page(), entry);
  }

 private:
  void* base_;
};

std::uintptr_t as_int(void* p) { return reinterpret_cast<std::uintptr_t>(p); }
void* as_ptr(std::uintptr_t v) { return reinterpret_cast<void*>(v); }

// --- ping-pong -------------------------------------------------------------

// Answers each n with 2n + 1, forever.
void doubler(ctx::transfer_t t) {
  for (;;) t = ctx::jump_fcontext(t.fctx, as_ptr(as_int(t.data) * 2 + 1));
}

TEST(FiberSwitch, PingPongPassesDataBothWays) {
  Stack stack;
  ctx::fcontext_t fiber = stack.make(&doubler);
  for (std::uintptr_t i = 0; i < 100000; ++i) {
    ctx::transfer_t t = ctx::jump_fcontext(fiber, as_ptr(i));
    ASSERT_EQ(as_int(t.data), 2 * i + 1) << "at jump " << i;
    fiber = t.fctx;  // where the fiber waits now
  }
}

// Control passes from fiber to fiber without the caller in between, as the
// engine's barriers pass it: main -> a -> b -> a -> main.
struct Relay {
  ctx::fcontext_t main = nullptr, a = nullptr, b = nullptr;
  int trail = 0;
};
void relay_b(ctx::transfer_t t) {
  auto* r = static_cast<Relay*>(t.data);
  r->trail = r->trail * 10 + 2;
  ctx::jump_fcontext(t.fctx, r);  // resumes a, which never resumes this
  std::abort();
}
void relay_a(ctx::transfer_t t) {
  auto* r = static_cast<Relay*>(t.data);
  r->main = t.fctx;
  r->trail = r->trail * 10 + 1;
  ctx::transfer_t from_b = ctx::jump_fcontext(r->b, r);
  r->trail = r->trail * 10 + 3;
  EXPECT_EQ(from_b.data, r);
  r->b = from_b.fctx;  // b is suspended there now
  ctx::jump_fcontext(r->main, r);
  std::abort();
}

TEST(FiberSwitch, ControlPassesFromFiberToFiber) {
  Stack sa, sb;
  Relay r;
  r.a = sa.make(&relay_a);
  r.b = sb.make(&relay_b);
  ctx::transfer_t t = ctx::jump_fcontext(r.a, &r);
  EXPECT_EQ(t.data, &r);
  EXPECT_EQ(r.trail, 123);
}

// --- callee-saved registers ------------------------------------------------

// Each side holds values in the callee-saved registers across its jumps; the
// other side holds different ones. Local register variables pin them: the
// empty asm statements (CUDALAB_PIN) make each side really have its values
// there when it jumps and read them back from there when it resumes.
#if defined(__x86_64__)
#define CUDALAB_HOLD_REGISTERS(base)                  \
  register std::uint64_t rbx asm("rbx") = (base) + 1; \
  register std::uint64_t r12 asm("r12") = (base) + 2; \
  register std::uint64_t r13 asm("r13") = (base) + 3; \
  register std::uint64_t r14 asm("r14") = (base) + 4; \
  register std::uint64_t r15 asm("r15") = (base) + 5
#define CUDALAB_PIN() asm volatile("" : "+r"(rbx), "+r"(r12), "+r"(r13), "+r"(r14), "+r"(r15))
#define CUDALAB_HELD(base)                                                             \
  (rbx == (base) + 1 && r12 == (base) + 2 && r13 == (base) + 3 && r14 == (base) + 4 && \
   r15 == (base) + 5)
#elif defined(__aarch64__)
#define CUDALAB_HOLD_REGISTERS(base)                   \
  register std::uint64_t x19 asm("x19") = (base) + 1;  \
  register std::uint64_t x20 asm("x20") = (base) + 2;  \
  register std::uint64_t x21 asm("x21") = (base) + 3;  \
  register std::uint64_t x22 asm("x22") = (base) + 4;  \
  register std::uint64_t x23 asm("x23") = (base) + 5;  \
  register std::uint64_t x24 asm("x24") = (base) + 6;  \
  register std::uint64_t x25 asm("x25") = (base) + 7;  \
  register std::uint64_t x26 asm("x26") = (base) + 8;  \
  register std::uint64_t x27 asm("x27") = (base) + 9;  \
  register std::uint64_t x28 asm("x28") = (base) + 10; \
  register double d8 asm("d8") = (base) + 0.5;         \
  register double d9 asm("d9") = (base) + 1.5;         \
  register double d10 asm("d10") = (base) + 2.5;       \
  register double d11 asm("d11") = (base) + 3.5;       \
  register double d12 asm("d12") = (base) + 4.5;       \
  register double d13 asm("d13") = (base) + 5.5;       \
  register double d14 asm("d14") = (base) + 6.5;       \
  register double d15 asm("d15") = (base) + 7.5
#define CUDALAB_PIN()                                                                         \
  asm volatile(""                                                                             \
               : "+r"(x19), "+r"(x20), "+r"(x21), "+r"(x22), "+r"(x23), "+r"(x24), "+r"(x25), \
                 "+r"(x26), "+r"(x27), "+r"(x28));                                            \
  asm volatile(""                                                                             \
               : "+w"(d8), "+w"(d9), "+w"(d10), "+w"(d11), "+w"(d12), "+w"(d13), "+w"(d14),   \
                 "+w"(d15))
#define CUDALAB_HELD(base)                                                                     \
  (x19 == (base) + 1 && x20 == (base) + 2 && x21 == (base) + 3 && x22 == (base) + 4 &&         \
   x23 == (base) + 5 && x24 == (base) + 6 && x25 == (base) + 7 && x26 == (base) + 8 &&         \
   x27 == (base) + 9 && x28 == (base) + 10 && d8 == (base) + 0.5 && d9 == (base) + 1.5 &&      \
   d10 == (base) + 2.5 && d11 == (base) + 3.5 && d12 == (base) + 4.5 && d13 == (base) + 5.5 && \
   d14 == (base) + 6.5 && d15 == (base) + 7.5)
#endif

#if defined(CUDALAB_HOLD_REGISTERS)
constexpr std::uint64_t kFiberBase = 0x5000, kMainBase = 0x9000;

// Holds its values across 1000 jumps and says whether it still had them.
[[gnu::noinline]] void register_fiber(ctx::transfer_t t) {
  CUDALAB_HOLD_REGISTERS(kFiberBase);
  CUDALAB_PIN();
  bool ok = true;
  for (;;) {
    t = ctx::jump_fcontext(t.fctx, as_ptr(ok ? 1 : 0));
    CUDALAB_PIN();
    ok = ok && CUDALAB_HELD(kFiberBase);
  }
}

[[gnu::noinline]] bool main_keeps_registers(ctx::fcontext_t fiber, bool* fiber_kept) {
  CUDALAB_HOLD_REGISTERS(kMainBase);
  CUDALAB_PIN();
  bool ok = true;
  *fiber_kept = true;
  for (int i = 0; i < 1000; ++i) {
    ctx::transfer_t t = ctx::jump_fcontext(fiber, nullptr);
    CUDALAB_PIN();
    ok = ok && CUDALAB_HELD(kMainBase);
    *fiber_kept = *fiber_kept && t.data != nullptr;
    fiber = t.fctx;
  }
  return ok;
}

TEST(FiberSwitch, CalleeSavedRegistersStayWithTheirContext) {
  Stack stack;
  bool fiber_kept = false;
  EXPECT_TRUE(main_keeps_registers(stack.make(&register_fiber), &fiber_kept));
  EXPECT_TRUE(fiber_kept);
}
#endif

// --- floating-point control ------------------------------------------------

#if defined(__x86_64__)
std::uint64_t fp_control() {  // MXCSR's control bits and the x87 control word
  std::uint16_t x87 = 0;
  asm volatile("fnstcw %0" : "=m"(x87));
  return (static_cast<std::uint64_t>(_mm_getcsr() & ~0x3fu) << 16) | x87;
}
constexpr unsigned kFlushToZero = 0x8000;  // MXCSR.FTZ
void set_flush_to_zero(bool on) {
  _mm_setcsr(on ? (_mm_getcsr() | kFlushToZero) : (_mm_getcsr() & ~kFlushToZero));
}
#elif defined(__aarch64__)
std::uint64_t fp_control() {
  std::uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
constexpr std::uint64_t kFlushToZero = std::uint64_t{1} << 24;  // FPCR.FZ
void set_flush_to_zero(bool on) {
  std::uint64_t fpcr = on ? (fp_control() | kFlushToZero) : (fp_control() & ~kFlushToZero);
  asm volatile("msr fpcr, %0" : : "r"(fpcr));
}
#endif

// 1/3 in float and long double (on x86-64 SSE and x87 round apart), in the
// current rounding mode; equal to their nearest values only in FE_TONEAREST.
struct Thirds {
  float f;
  long double ld;
  bool operator==(const Thirds&) const = default;
};
[[gnu::noinline]] Thirds thirds() {
  volatile float one = 1.0f, three = 3.0f;
  volatile long double one_l = 1.0L, three_l = 3.0L;
  return {one / three, one_l / three_l};
}

struct FpState {
  int rounding;
  std::uint64_t control;
  Thirds values;
};
FpState fp_state() { return {std::fegetround(), fp_control(), thirds()}; }

// Says the modes it started in, then sets its own and keeps them.
void fp_fiber(ctx::transfer_t t) {
  auto* seen = static_cast<FpState*>(t.data);
  seen[0] = fp_state();  // inherited from the maker
  std::fesetround(FE_TOWARDZERO);
  set_flush_to_zero(false);
  seen[1] = fp_state();
  for (int i = 2;; ++i) {
    t = ctx::jump_fcontext(t.fctx, nullptr);
    seen[i] = fp_state();
  }
}

TEST(FiberSwitch, FloatingPointControlStaysWithItsContext) {
#if CUDALAB_EMU_FIBERS_BOOST && defined(__aarch64__)
  GTEST_SKIP() << "Boost.Context's aarch64 switch does not keep FPCR per context";
#endif
  const std::fenv_t saved = [] {
    std::fenv_t e;
    std::fegetenv(&e);
    return e;
  }();
  Stack stack;
  std::fesetround(FE_UPWARD);
  set_flush_to_zero(true);
  const FpState mine = fp_state();
  FpState seen[8] = {};
  ctx::fcontext_t fiber = stack.make(&fp_fiber);
  for (int i = 0; i < 4; ++i) {
    fiber = ctx::jump_fcontext(fiber, seen).fctx;
    const FpState now = fp_state();
    EXPECT_EQ(now.rounding, FE_UPWARD) << "after jump " << i;
    EXPECT_EQ(now.control, mine.control) << "after jump " << i;
    EXPECT_TRUE(now.values == mine.values) << "after jump " << i;
  }
  std::fesetenv(&saved);
  set_flush_to_zero(false);

  EXPECT_EQ(seen[0].rounding, FE_UPWARD) << "a new context starts in its maker's modes";
  EXPECT_EQ(seen[0].control, mine.control);
  EXPECT_EQ(seen[1].rounding, FE_TOWARDZERO);
  EXPECT_FALSE(seen[1].values == mine.values) << "rounding up and toward zero give other thirds";
  for (int i = 2; i < 4; ++i) {
    EXPECT_EQ(seen[i].rounding, FE_TOWARDZERO) << "fiber, after jump " << i;
    EXPECT_EQ(seen[i].control, seen[1].control) << "fiber, after jump " << i;
    EXPECT_TRUE(seen[i].values == seen[1].values) << "fiber, after jump " << i;
  }
}

// --- the stack ---------------------------------------------------------------

// The address of a 16-byte aligned local, hidden from the optimiser (which
// would otherwise assume the alignment and fold the test).
[[gnu::noinline]] std::uintptr_t aligned_local_address() {
  alignas(16) volatile char local[16] = {};
  void* p = const_cast<char*>(local);
  asm volatile("" : "+r"(p));
  return as_int(p);
}

// Sums 1..n, each level holding a kilobyte of locals.
[[gnu::noinline]] std::uint64_t deep(unsigned n, std::uintptr_t* misaligned) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(n);
  if (aligned_local_address() % 16 != 0) ++*misaligned;
  if (n == 0) return 0;
  return n + deep(n - 1, misaligned) + static_cast<unsigned char>(frame[0]) - (n & 0xff);
}

struct DeepJob {
  unsigned levels;
  std::uint64_t sum = 0;
  std::uintptr_t misaligned = 0;
  std::uintptr_t lowest_local = 0;
};
void deep_fiber(ctx::transfer_t t) {
  auto* job = static_cast<DeepJob*>(t.data);
  job->sum = deep(job->levels, &job->misaligned);
  volatile char here = 0;
  job->lowest_local = as_int(const_cast<char*>(&here));
  ctx::jump_fcontext(t.fctx, nullptr);
  std::abort();
}

TEST(FiberSwitch, DeepRecursionOnAFiberStackWithAlignedFrames) {
  Stack stack;
  DeepJob job{200};  // about 200 KiB of the 256 KiB stack
  ctx::jump_fcontext(stack.make(&deep_fiber), &job);
  EXPECT_EQ(job.sum, 200u * 201u / 2);
  EXPECT_EQ(job.misaligned, 0u) << "16-byte aligned locals at misaligned addresses";
  EXPECT_GT(job.lowest_local, as_int(stack.base()));
  EXPECT_LT(job.lowest_local, as_int(stack.top()));
}

// An overflow faults in the guard page (the crash reporter calls that a stack
// overflow; tests/harness checks its words).
char* guard_low = nullptr;
void on_guard_fault(int, siginfo_t* info, void*) {
  auto* a = static_cast<char*>(info->si_addr);
  const bool in_guard = a >= guard_low - (1 << 20) && a < guard_low + Stack::page();
  const char* text = in_guard ? "fault in the guard page\n" : "fault elsewhere\n";
  if (write(2, text, __builtin_strlen(text)) < 0) _exit(4);
  _exit(in_guard ? 3 : 4);
}
volatile unsigned never = ~0u;  // hides from the compiler that the recursion is endless
[[gnu::noinline]] unsigned endless(unsigned n) {
  volatile char frame[512];
  frame[0] = static_cast<char>(n);
  if (n == never) return 0;
  return endless(n + 1) + static_cast<unsigned char>(frame[0]);
}
void overflow_fiber(ctx::transfer_t t) {
  endless(0);
  ctx::jump_fcontext(t.fctx, nullptr);
}

// As the emulator's workers do, the fault is handled on a signal stack.
[[noreturn]] void overflow_a_fiber() {
  Stack stack;
  guard_low = stack.base();
  static char signal_stack[64 * 1024];
  stack_t alt{};
  alt.ss_sp = signal_stack;
  alt.ss_size = sizeof signal_stack;
  sigaltstack(&alt, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_guard_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &action, nullptr);
  ctx::jump_fcontext(stack.make(&overflow_fiber), nullptr);
  std::abort();
}

TEST(FiberSwitchDeathTest, AnOverflowFaultsInTheGuardPage) {
  EXPECT_EXIT(overflow_a_fiber(), testing::ExitedWithCode(3), "fault in the guard page");
}

// --- stack walks -------------------------------------------------------------

// What libgcc's unwinder (glibc's backtrace, hence the crash reporter and the
// watchdog's sampler) makes of the stack it is called on.
struct Walk {
  int frames = 0;
  int frames_after_entry = -1;  // -1: the entry function's frame was not met
  void* entry = nullptr;
  void* landmark = nullptr;  // another function the walk should pass through
  bool met_landmark = false;
  _Unwind_Reason_Code end = _URC_NO_REASON;
};
_Unwind_Reason_Code walk_step(_Unwind_Context* context, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  if (++w->frames > 200) return _URC_NORMAL_STOP;  // ran off into garbage
  void* start = reinterpret_cast<void*>(_Unwind_GetRegionStart(context));
  if (w->frames_after_entry >= 0) {
    ++w->frames_after_entry;
  } else if (w->entry != nullptr && start == w->entry) {
    w->frames_after_entry = 0;
  }
  if (w->landmark != nullptr && start == w->landmark) w->met_landmark = true;
  return _URC_NO_REASON;
}
Walk walk_from_here(void* entry, void* landmark = nullptr) {
  Walk w;
  w.entry = entry;
  w.landmark = landmark;
  w.end = _Unwind_Backtrace(&walk_step, &w);
  return w;
}

Walk fiber_walk;
[[gnu::noinline]] void walk_fiber(ctx::transfer_t t) {
  fiber_walk = walk_from_here(reinterpret_cast<void*>(&walk_fiber));
  ctx::jump_fcontext(t.fctx, nullptr);
  std::abort();
}

TEST(FiberSwitch, AStackWalkOnAFiberEndsAtItsEntry) {
  Stack stack;
  ctx::jump_fcontext(stack.make(&walk_fiber), nullptr);
  EXPECT_EQ(fiber_walk.end, _URC_END_OF_STACK) << "after " << fiber_walk.frames << " frames";
  ASSERT_GE(fiber_walk.frames_after_entry, 0) << "the fiber's entry function is on its stack";
  EXPECT_LE(fiber_walk.frames_after_entry, 2) << "only the switch's first frame lies beyond";
}

// The same walk from a signal handler that interrupted the fiber, through the
// signal frame, as the crash reporter walks.
Walk handler_walk;
void* handler_entry = nullptr;
void walk_in_handler(int) { handler_walk = walk_from_here(handler_entry); }
[[gnu::noinline]] void raise_on_fiber(ctx::transfer_t t) {
  raise(SIGUSR1);
  ctx::jump_fcontext(t.fctx, nullptr);
  std::abort();
}

TEST(FiberSwitch, AStackWalkFromASignalHandlerOnAFiberEndsAtItsEntry) {
  Stack stack;
  handler_entry = reinterpret_cast<void*>(&raise_on_fiber);
  struct sigaction action {
  }, old{};
  action.sa_handler = walk_in_handler;
  sigaction(SIGUSR1, &action, &old);
  ctx::jump_fcontext(stack.make(&raise_on_fiber), nullptr);
  sigaction(SIGUSR1, &old, nullptr);
  EXPECT_EQ(handler_walk.end, _URC_END_OF_STACK) << "after " << handler_walk.frames << " frames";
  ASSERT_GE(handler_walk.frames_after_entry, 0);
  EXPECT_LE(handler_walk.frames_after_entry, 2);
}

// Samples taken by a timer signal while two contexts switch as fast as they
// can: many land inside the switch itself (between saving one context's
// registers and restoring the other's). Every walk must end cleanly, and
// pass through the function that was switching: the fiber's entry (then end
// right after it) or the one on the main stack (an unwinder that misread a
// frame can still end "cleanly", in a place with no unwind information).
std::atomic<int> samples{0}, bad_samples{0}, lost_samples{0}, max_frames{0}, in_switch{0};
void bouncer(ctx::transfer_t t);
long switch_while_sampled(const Stack& stack);
std::uintptr_t interrupted_pc(void* context) {
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(static_cast<ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}
void sample(int, siginfo_t*, void* context) {
  Walk w = walk_from_here(reinterpret_cast<void*>(&bouncer),
                          reinterpret_cast<void*>(&switch_while_sampled));
  samples.fetch_add(1, std::memory_order_relaxed);
  if (w.end != _URC_END_OF_STACK) bad_samples.fetch_add(1, std::memory_order_relaxed);
  const bool on_fiber = w.frames_after_entry >= 0 && w.frames_after_entry <= 2;
  if (!on_fiber && !w.met_landmark) lost_samples.fetch_add(1, std::memory_order_relaxed);
  if (w.frames > max_frames.load(std::memory_order_relaxed)) max_frames.store(w.frames);
#if CUDALAB_EMU_FIBERS_OWN
  const std::uintptr_t pc = interrupted_pc(context);
  const auto start = reinterpret_cast<std::uintptr_t>(&ctx::cudalab_emu_jump_fcontext);
  if (pc >= start && pc < start + 0x90) in_switch.fetch_add(1, std::memory_order_relaxed);
#else
  (void)interrupted_pc(context);
#endif
}
[[gnu::noinline]] void bouncer(ctx::transfer_t t) {
  for (;;) t = ctx::jump_fcontext(t.fctx, t.data);
}
// Switches for half a second with the sampling timer on (all of it in here,
// so that every sample on the main stack passes through this function).
[[gnu::noinline]] long switch_while_sampled(const Stack& stack) {
  ctx::fcontext_t fiber = stack.make(&bouncer);
  itimerval every{{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &every, nullptr);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  long jumps = 0;
  while (std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 100; ++i) fiber = ctx::jump_fcontext(fiber, nullptr).fctx;
    jumps += 100;
  }
  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
  return jumps;
}

TEST(FiberSwitch, StackWalksSampledDuringSwitchesEndCleanly) {
#if CUDALAB_EMU_FIBERS_UCONTEXT
  GTEST_SKIP() << "glibc's swapcontext has no unwind information that holds in the middle of a "
                  "switch: libgcc's unwinder crashed on a sample taken there (glibc 2.36, x86-64)";
#endif
  walk_from_here(nullptr);  // loads what the unwinder needs before any signal
  Stack stack;
  struct sigaction action {
  }, old{};
  action.sa_sigaction = sample;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGALRM, &action, &old);
  const long jumps = switch_while_sampled(stack);
  sigaction(SIGALRM, &old, nullptr);
  std::printf("%d samples over %ld jumps (%d inside jump_fcontext), at most %d frames\n",
              samples.load(), jumps, in_switch.load(), max_frames.load());
  EXPECT_GT(samples.load(), 100);
  EXPECT_EQ(bad_samples.load(), 0) << "of " << samples.load() << " walks did not end cleanly";
#if CUDALAB_EMU_FIBERS_BOOST
  // Boost.Context's jump_fcontext (1.74) has no unwind information: a walk
  // from inside it ends there, cleanly but short of its callers.
  std::printf("%d walks ended inside Boost's jump_fcontext\n", lost_samples.load());
#else
  EXPECT_EQ(lost_samples.load(), 0) << "of " << samples.load() << " walks lost their way";
#endif
  EXPECT_LT(max_frames.load(), 64);
}

}  // namespace
