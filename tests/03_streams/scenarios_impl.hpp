// The experiments of scenarios.hpp, built into each backend's unit after
// harness/03_streams/backend_impl.hpp (whose helpers they use) and bound by
// bind_test_scenarios, which the generated factories call. Each sets up
// streams, events and memory around the student's code and runs it observed,
// as the harness's experiments do; each makes its own Spinner, since an
// entry point is a plain function with no backend to hold one.
#pragma once

#include <cstddef>
#include <vector>

#include "backend_impl.hpp"
#include "caching_allocator.hpp"
#include "cudalab/harness/entry_points.hpp"
#include "scenarios.hpp"
#include "stream_ordered_free.cuh"

namespace lab03::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::harness::positive_count;

inline Timed stream_rules(StreamKind kind, double spin_ms) {
  cudalab::Spinner spin;
  Timed result;
  OwnedStream s, t(cudaStreamDefault);
  observe_timed(result, [&](EventTimeline& timeline) {
    s.reset(lab03::make_stream(kind));
    timed_spin(timeline, spin, s.get(), "s", "spin", spin_ms);
    timed_spin(timeline, spin, cudaStreamLegacy, "legacy", "spin", spin_ms);
    CUDA_CHECK(cudaDeviceSynchronize());
    timed_spin(timeline, spin, lab03::default_stream_for(kind), "default", "spin", spin_ms);
    timed_spin(timeline, spin, t.get(), "t", "spin", spin_ms);
  });
  return result;
}

inline AllocatorReuse allocator_reuse(std::size_t bytes) {
  AllocatorReuse result;
  OwnedStream s(cudaStreamNonBlocking), t(cudaStreamNonBlocking);
  lab03::CachingAllocator allocator;
  void* first = allocator.allocate(bytes, s.get());
  allocator.free(first);
  void* again = allocator.allocate(bytes, s.get());
  result.same_stream_reuses = again == first;
  allocator.free(again);
  void* elsewhere = allocator.allocate(bytes, t.get());
  result.other_stream_reuses = elsewhere == first;
  void* larger = allocator.allocate(bytes + 4 * lab03::CachingAllocator::kRounding, s.get());
  result.other_size_reuses = larger == first;
  allocator.free(elsewhere);
  allocator.free(larger);
  result.reserved_after = allocator.reserved_bytes();
  return result;
}

inline RecordStreamRules record_stream_rules(int n, double busy_ms) {
  RecordStreamRules result;
  cudalab::Spinner spin;
  const std::size_t bytes = positive_count(n, "record_stream_rules") * sizeof(float);
  DeviceBuffer<float> out(1);
  OwnedStream s(cudaStreamNonBlocking), t(cudaStreamNonBlocking), idle(cudaStreamNonBlocking);
  OwnedEvent filled(cudaEventDisableTiming);
  // A block of a fresh allocator on s, filled there; kept by the caller
  // until its end of scope.
  const auto filled_block = [&](lab03::CachingAllocator& allocator) {
    auto* a = static_cast<float*>(allocator.allocate(bytes, s.get()));
    fill(a, n, 1.0f, s.get());
    return a;
  };
  // t reads `a` after its fill and a spin.
  const auto read_on_t_when_busy = [&](const float* a) {
    cudalab::wait_stream(t.get(), s.get(), filled.get());
    spin(busy_ms, t.get());
    sum(a, n, out.data(), t.get());
  };
  // Whether the next block allocated on s is `a` (then written there, as a
  // new tensor would be); waits for everything before the next scenario.
  const auto next_block_on_s_is = [&](lab03::CachingAllocator& allocator, const float* a) {
    auto* b = static_cast<float*>(allocator.allocate(bytes, s.get()));
    fill(b, n, 2.0f, s.get());
    allocator.free(b);
    CUDA_CHECK(cudaDeviceSynchronize());
    return b == a;
  };
  result.observation = cudalab::harness::observe_call({}, {}, [&] {
    {
      lab03::CachingAllocator allocator;
      spin(busy_ms, s.get());
      float* a = filled_block(allocator);
      allocator.record_stream(a, s.get());
      allocator.free(a);
      result.own_stream_record_reused = next_block_on_s_is(allocator, a);
    }
    {
      lab03::CachingAllocator allocator;
      float* a = filled_block(allocator);
      read_on_t_when_busy(a);
      allocator.record_stream(a, t.get());
      allocator.free(a);
      CUDA_CHECK(cudaStreamSynchronize(s.get()));
      result.reused_while_recorded_stream_busy = next_block_on_s_is(allocator, a);
    }
    for (const bool busy_first : {false, true}) {
      lab03::CachingAllocator allocator;
      float* a = filled_block(allocator);
      read_on_t_when_busy(a);
      allocator.record_stream(a, busy_first ? t.get() : idle.get());
      allocator.record_stream(a, busy_first ? idle.get() : t.get());
      allocator.free(a);
      (busy_first ? result.reused_while_first_recorded_stream_busy
                  : result.reused_while_second_recorded_stream_busy) =
          next_block_on_s_is(allocator, a);
    }
    {
      lab03::CachingAllocator allocator;
      float* a = filled_block(allocator);
      read_on_t_when_busy(a);
      allocator.record_stream(a, t.get());
      allocator.free(a);
      CUDA_CHECK(cudaDeviceSynchronize());
      float* again = filled_block(allocator);
      result.reused_once_recorded_work_done = again == a;
      spin(busy_ms, t.get());
      allocator.free(again);
      float* b = static_cast<float*>(allocator.allocate(bytes, s.get()));
      result.reused_after_unrecorded_life = b == again;
      allocator.free(b);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  return result;
}

inline Consumed reuse_hazard(int n, ReuseGuard guard, double consumer_delay_ms) {
  cudalab::Spinner spin;
  const std::size_t bytes = positive_count(n, "reuse_hazard") * sizeof(float);
  OwnedStream side(cudaStreamNonBlocking);
  OwnedEvent a_filled(cudaEventDisableTiming), a_summed(cudaEventDisableTiming);
  lab03::CachingAllocator allocator;
  // Warm the allocator: A's first allocation must not be a cudaMalloc, whose
  // implicit synchronisation would order everything by accident.
  allocator.free(allocator.allocate(bytes, cudaStreamLegacy));
  return consumed(n, [&](EventTimeline&, Consumed& result, float* out) {
    auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
    fill(a, n, 1.0f, cudaStreamLegacy);
    cudalab::wait_stream(side.get(), cudaStreamLegacy, a_filled.get());
    spin(consumer_delay_ms, side.get());
    sum(a, n, out, side.get());
    if (guard == ReuseGuard::record_stream) allocator.record_stream(a, side.get());
    if (guard == ReuseGuard::wait_stream) {
      cudalab::wait_stream(cudaStreamLegacy, side.get(), a_summed.get());
    }
    allocator.free(a);  // del A
    auto* b = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
    result.pointer_reused = b == a;
    fill(b, n, 2.0f, cudaStreamLegacy);
    allocator.free(b);
  });
}

inline std::vector<std::size_t> reserved_over_iterations(int iterations, int n) {
  const std::size_t bytes = positive_count(n, "reserved_over_iterations") * sizeof(float);
  DeviceBuffer<float> out(1);
  OwnedStream side(cudaStreamNonBlocking);
  OwnedEvent filled(cudaEventDisableTiming);
  lab03::CachingAllocator allocator;
  std::vector<std::size_t> reserved;
  for (int i = 0; i < iterations; ++i) {
    auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
    fill(a, n, 1.0f, cudaStreamLegacy);
    cudalab::wait_stream(side.get(), cudaStreamLegacy, filled.get());
    sum(a, n, out.data(), side.get());
    allocator.record_stream(a, side.get());
    allocator.free(a);
    CUDA_CHECK(cudaStreamSynchronize(side.get()));
    reserved.push_back(allocator.reserved_bytes());
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return reserved;
}

inline Consumed free_async_hazard(int n, double consumer_delay_ms, double independent_ms) {
  cudalab::Spinner spin;
  const std::size_t bytes = positive_count(n, "free_async_hazard") * sizeof(float);
  OwnedStream side(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
  OwnedEvent filled(cudaEventDisableTiming), summed(cudaEventDisableTiming);
  return consumed(n, [&](EventTimeline& timeline, Consumed& result, float* out) {
    const void* a = nullptr;
    timeline.time(side.get(), "side", "consumer", [&] {
      spin(consumer_delay_ms, side.get());
      a = lab03::produce_consume_free(n, 1.0f, out, side.get(), filled.get(), summed.get());
    });
    float* b = nullptr;
    CUDA_CHECK(cudaMallocAsync(&b, bytes, cudaStreamLegacy));
    result.pointer_reused = b == a;
    fill(b, n, 2.0f, cudaStreamLegacy);
    CUDA_CHECK(cudaFreeAsync(b, cudaStreamLegacy));
    timed_spin(timeline, spin, other.get(), "other", "independent", independent_ms);
  });
}

inline void bind_test_scenarios(cudalab::harness::EntryBinder& binder) {
  binder.bind(entry::stream_rules, stream_rules);
  binder.bind(entry::allocator_reuse, allocator_reuse);
  binder.bind(entry::record_stream_rules, record_stream_rules);
  binder.bind(entry::reuse_hazard, reuse_hazard);
  binder.bind(entry::reserved_over_iterations, reserved_over_iterations);
  binder.bind(entry::free_async_hazard, free_async_hazard);
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03::harness
