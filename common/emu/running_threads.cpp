#include "cudalab/emu/running_threads.hpp"

#include <execinfo.h>
#include <pthread.h>
#include <signal.h>

#include <array>
#include <atomic>
#include <mutex>
#include <thread>

#include "block_run.hpp"
#include "cudalab/emu/crash_context.hpp"
#include "cudalab/emu/thread_state.hpp"
#include "engine.hpp"

namespace cudalab::emu {
namespace {

constexpr int kMaxFrames = 48;
constexpr std::size_t kMaxWorkers = 1024;

// One OS thread that runs blocks. Its stack is written by the thread itself,
// in the signal handler, and read by the sampler once `answered` is set.
struct WorkerSlot {
  std::atomic<bool> used{false};
  pthread_t id{};
  detail::ThreadState* const* current = nullptr;  // that thread's current_thread
  std::atomic<int> answered{0};
  int frames = 0;
  void* stack[kMaxFrames] = {};
};

std::array<WorkerSlot, kMaxWorkers> slots;
thread_local WorkerSlot* my_slot = nullptr;

int sample_signal() { return SIGRTMIN + 5; }

// Records where this worker was interrupted, for the sampler.
void on_sample(int, siginfo_t*, void* context) {
  WorkerSlot* slot = my_slot;
  if (slot == nullptr) return;
  slot->frames = interrupted_stack(context, slot->stack, kMaxFrames);
  slot->answered.store(1, std::memory_order_release);
}

void install_handler_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    void* warm[2];
    backtrace(warm, 2);  // loads the unwinder now, not inside a handler
    struct sigaction action {};
    action.sa_sigaction = on_sample;
    action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(sample_signal(), &action, nullptr);
  });
}

struct Deregister {
  ~Deregister() {
    if (my_slot != nullptr) my_slot->used.store(false, std::memory_order_release);
  }
};

}  // namespace

void register_worker_thread() noexcept {
  if (my_slot != nullptr) return;
  install_handler_once();
  // A signal stack of its own: a fault on an overflowing fiber stack needs
  // one. On the heap, not in thread-local storage: a library that holds the
  // emulator may be loaded with dlopen (a PyTorch operator), where static TLS
  // is scarce. Kept for the thread's life (a handler may run until its end).
  constexpr std::size_t kSignalStackBytes = 64 * 1024;
  stack_t stack{};
  stack.ss_sp = new char[kSignalStackBytes];
  stack.ss_size = kSignalStackBytes;
  sigaltstack(&stack, nullptr);
  for (WorkerSlot& slot : slots) {
    bool expected = false;
    if (slot.used.compare_exchange_strong(expected, true)) {
      slot.id = pthread_self();
      slot.current = &detail::current_thread;
      my_slot = &slot;
      static thread_local Deregister deregister;
      (void)&deregister;
      return;
    }
  }
}

std::vector<RunningThread> sample_running_threads(std::chrono::milliseconds patience) {
  std::vector<WorkerSlot*> asked;
  for (WorkerSlot& slot : slots) {
    if (!slot.used.load(std::memory_order_acquire)) continue;
    const detail::ThreadState* thread = *slot.current;
    if (thread == nullptr || thread->run == nullptr) continue;  // not inside a kernel
    slot.answered.store(0, std::memory_order_relaxed);
    if (pthread_kill(slot.id, sample_signal()) == 0) asked.push_back(&slot);
  }
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (WorkerSlot* slot : asked) {
    while (slot->answered.load(std::memory_order_acquire) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  std::vector<RunningThread> running;
  for (WorkerSlot* slot : asked) {
    const detail::ThreadState* thread = *slot->current;
    if (thread == nullptr || thread->run == nullptr || thread->block == nullptr) continue;
    const detail::BlockRun& run = *thread->run;
    RunningThread r;
    r.kernel = run.launch != nullptr ? run.launch->name : "?";
    r.block = thread->block->block_idx;
    r.thread = thread->thread_idx;
    r.block_threads = run.thread_count;
    for (unsigned t = 0; t < run.thread_count && t < run.extra.size(); ++t) {
      if (t >= run.next_unstarted) {
        ++r.not_started;
        continue;
      }
      switch (run.extra[t].waiting) {
        case detail::Waiting::barrier:
          ++r.at_barrier;
          break;
        case detail::Waiting::warp:
        case detail::Waiting::coalesce:
        case detail::Waiting::warpgroup:
          ++r.in_warp_op;
          break;
        case detail::Waiting::mbarrier:
          ++r.at_mbarrier;
          break;
        case detail::Waiting::exited:
          ++r.finished;
          break;
        case detail::Waiting::no:
          break;
      }
    }
    if (r.at_barrier > 0) {
      r.barrier_site =
          std::string(run.barrier_site.file_name()) + ":" + std::to_string(run.barrier_site.line());
    }
    if (slot->answered.load(std::memory_order_acquire) != 0) {
      r.stack.assign(slot->stack, slot->stack + slot->frames);
    }
    running.push_back(std::move(r));
  }
  return running;
}

}  // namespace cudalab::emu
