// <cuda/pipeline> for the emulator build (common/emu/cuda_include/cuda/pipeline
// includes this; nvcc uses libcu++'s own header), with libcu++'s names and
// signatures:
//
//   cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
//   pipe.producer_acquire();  cuda::memcpy_async(dst, src, bytes, pipe);  pipe.producer_commit();
//   pipe.consumer_wait();  ... read dst ...  pipe.consumer_release();
//   cuda::pipeline_consumer_wait_prior<N>(pipe);      // all stages but the newest N
//
//   __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
//   auto pipe = cuda::make_pipeline(cooperative_groups::this_thread_block(), &state);
//
// A thread-scope pipeline is the thread's cp.async groups: a stage's copies
// are pending until a consumer_wait (or wait_prior) covers the stage, and
// touching them before is a race report. A block-scope pipeline is
// libcu++'s: per stage a "produced" and a "consumed" cuda::barrier, the
// copies completing with the "produced" one's phase.
// Not provided: partitioned block pipelines (make_pipeline with a producer
// count or a pipeline_role), quit(), consumer_wait_for/until,
// pipeline_producer_commit(pipe, barrier).
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

#include "cudalab/emu/cuda_barrier.hpp"
#include "cudalab/emu/mbarrier.hpp"

namespace cuda {

template <thread_scope Scope>
class pipeline;
template <thread_scope Scope, std::uint8_t StagesCount>
class pipeline_shared_state;

// Every thread of `group` calls it; its rank 0 initialises the barriers.
template <class Group, thread_scope Scope, std::uint8_t StagesCount>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, StagesCount>* state,
                              std::source_location site = std::source_location::current());
namespace emu_detail {
// The block pipeline's memcpy_async (defined below), its friend.
inline void copy_into(pipeline<thread_scope_block>& pipe, void* destination, const void* source,
                      std::size_t bytes, std::size_t alignment, const void* pc,
                      const std::source_location& site);
}  // namespace emu_detail

// The barriers a block-scope pipeline's threads share, one pair per stage.
template <thread_scope Scope, std::uint8_t StagesCount>
class pipeline_shared_state {
  static_assert(Scope == thread_scope_block,
                "the emulator provides pipeline_shared_state<cuda::thread_scope_block, N> only");

 public:
  pipeline_shared_state() = default;
  pipeline_shared_state(const pipeline_shared_state&) = delete;
  pipeline_shared_state& operator=(const pipeline_shared_state&) = delete;

 private:
  friend class pipeline<Scope>;
  template <class Group, thread_scope S, std::uint8_t N>
  friend pipeline<S> make_pipeline(const Group& group, pipeline_shared_state<S, N>* state,
                                   std::source_location site);
  barrier<thread_scope_block> produced_[StagesCount];
  barrier<thread_scope_block> consumed_[StagesCount];
};

// ---- thread scope ---------------------------------------------------------
template <>
class pipeline<thread_scope_thread> {
 public:
  pipeline(pipeline&&) = default;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  void producer_acquire() {}
  void producer_commit() {
    cudalab::emu::pipeline_commit();
    ++head_;
  }
  // Waits for the oldest stage not yet waited for.
  void consumer_wait() {
    if (head_ == tail_) return;
    cudalab::emu::pipeline_wait_prior(head_ - tail_ - 1u);
    ++tail_;
  }
  void consumer_release() {}

 private:
  pipeline() = default;
  friend pipeline make_pipeline();
  template <std::uint8_t Prior>
  friend void pipeline_consumer_wait_prior(pipeline& pipe);
  std::uint8_t head_ = 0;  // stages committed
  std::uint8_t tail_ = 0;  // stages waited for
};

inline pipeline<thread_scope_thread> make_pipeline() { return pipeline<thread_scope_thread>(); }

// Waits for every committed stage but the newest Prior.
template <std::uint8_t Prior>
void pipeline_consumer_wait_prior(pipeline<thread_scope_thread>& pipe) {
  cudalab::emu::pipeline_wait_prior(Prior);
  pipe.tail_ = static_cast<std::uint8_t>(pipe.head_ - Prior);
}

// ---- block scope (unified: every thread produces and consumes) ------------
template <thread_scope Scope>
class pipeline {
  static_assert(Scope == thread_scope_block,
                "the emulator provides cuda::pipeline of thread and block scope only");

 public:
  pipeline(pipeline&&) = default;
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;

  // The stage to fill must have been released by every thread.
  void producer_acquire(std::source_location site = std::source_location::current()) {
    consumed_[head_].wait_parity(consumed_parity_, site);
  }
  void producer_commit(std::source_location site = std::source_location::current()) {
    (void)produced_[head_].arrive(1, site);
    if (++head_ == stages_) {
      head_ = 0;
      consumed_parity_ = !consumed_parity_;
    }
  }
  void consumer_wait(std::source_location site = std::source_location::current()) {
    produced_[tail_].wait_parity(produced_parity_, site);
  }
  void consumer_release(std::source_location site = std::source_location::current()) {
    (void)consumed_[tail_].arrive(1, site);
    if (++tail_ == stages_) {
      tail_ = 0;
      produced_parity_ = !produced_parity_;
    }
  }

 private:
  template <class Group, thread_scope S, std::uint8_t N>
  friend pipeline<S> make_pipeline(const Group& group, pipeline_shared_state<S, N>* state,
                                   std::source_location site);
  friend void emu_detail::copy_into(pipeline<thread_scope_block>& pipe, void* destination,
                                    const void* source, std::size_t bytes, std::size_t alignment,
                                    const void* pc, const std::source_location& site);
  pipeline(barrier<thread_scope_block>* produced, barrier<thread_scope_block>* consumed,
           std::uint8_t stages)
      : produced_(produced), consumed_(consumed), stages_(stages) {}
  barrier<thread_scope_block>& filling() { return produced_[head_]; }

  barrier<thread_scope_block>* produced_;
  barrier<thread_scope_block>* consumed_;
  std::uint8_t stages_;
  std::uint8_t head_ = 0;
  std::uint8_t tail_ = 0;
  bool consumed_parity_ = true;  // a fresh stage counts as released
  bool produced_parity_ = false;
};

template <class Group, thread_scope Scope, std::uint8_t StagesCount>
pipeline<Scope> make_pipeline(const Group& group, pipeline_shared_state<Scope, StagesCount>* state,
                              std::source_location site) {
  if (group.thread_rank() == 0) {
    const auto threads = static_cast<std::ptrdiff_t>(group.size());
    for (std::uint8_t s = 0; s < StagesCount; ++s) {
      init(&state->consumed_[s], threads, site);
      init(&state->produced_[s], threads, site);
    }
  }
  group.sync(site);
  return pipeline<Scope>(state->produced_, state->consumed_, StagesCount);
}

// ---- memcpy_async on a pipeline --------------------------------------------

namespace emu_detail {
// A thread-scope pipeline's copy joins the thread's open stage (the model
// keeps the thread's stages); a block-scope one completes with the phase of
// the filling stage's "produced" barrier. `pc`: the kernel's call.
inline void copy_into(pipeline<thread_scope_thread>&, void* destination, const void* source,
                      std::size_t bytes, std::size_t alignment, const void* pc,
                      const std::source_location& site) {
  cudalab::emu::pipeline_copy(destination, source, bytes, alignment, pc, site);
}
inline void copy_into(pipeline<thread_scope_block>& pipe, void* destination, const void* source,
                      std::size_t bytes, std::size_t alignment, const void* pc,
                      const std::source_location& site) {
  cudalab::emu::async_copy_on_barrier(destination, source, bytes,
                                      device::barrier_native_handle(pipe.filling()), false,
                                      alignment, pc, site);
}
}  // namespace emu_detail

// noinline: the return address is the kernel's call, where the copy's
// checked accesses are reported (inlined, they would name this header).
template <class Size, thread_scope Scope>
[[gnu::noinline]] inline async_contract_fulfillment memcpy_async(
    void* destination, const void* source, Size size, pipeline<Scope>& pipe,
    std::source_location site = std::source_location::current()) {
  emu_detail::copy_into(pipe, destination, source, static_cast<std::size_t>(size),
                        emu_detail::promised_alignment<Size>, __builtin_return_address(0), site);
  return async_contract_fulfillment::async;
}

// The group's threads all call it with the same arguments; the copy is
// issued once, by the group's thread of rank 0 (into its pipeline's stage).
template <class Group, class Size, thread_scope Scope>
[[gnu::noinline]] inline async_contract_fulfillment memcpy_async(
    const Group& group, void* destination, const void* source, Size size, pipeline<Scope>& pipe,
    std::source_location site = std::source_location::current()) {
  if (group.thread_rank() == 0) {
    emu_detail::copy_into(pipe, destination, source, static_cast<std::size_t>(size),
                          emu_detail::promised_alignment<Size>, __builtin_return_address(0), site);
  }
  return async_contract_fulfillment::async;
}

}  // namespace cuda
