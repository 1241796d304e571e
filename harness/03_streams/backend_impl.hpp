// Lab 03's Backend, written once and compiled twice (by nvcc and by the
// host compiler, in units cmake/CudalabLab.cmake generates) inside the inline namespace
// CUDALAB_BACKEND. Each call sets up one experiment (memory, streams,
// events), runs the student's code in it observed (observe_call: on the
// emulator, the race checker's reports), and reads values and spans back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "caching_allocator.hpp"
#include "copy_compute_overlap.cuh"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/event_timeline.hpp"
#include "cudalab/host_buffer.hpp"
#include "cudalab/stream_handles.hpp"
#include "given/stream_kernels.cuh"
#include "missing_wait.cuh"
#include "stream_kinds.cuh"
#include "stream_ordered_free.cuh"

namespace lab03::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::DeviceBuffer;
using cudalab::HostBuffer;
using cudalab::HostMemory;
using cudalab::is_default_stream;
using cudalab::OwnedEvent;
using cudalab::OwnedStream;
using cudalab::harness::EventTimeline;
using cudalab::harness::observe_call;
using cudalab::harness::OutputRegion;
using cudalab::harness::total_ms;

// Launches spins (stream_kernels.cuh), each with a slot of its own in a
// device buffer allocated up front (a cudaMalloc during an experiment would
// synchronise it).
class Spinner {
 public:
  Spinner() : slots_(kSlots) {}
  void operator()(double ms, cudaStream_t stream) {
    spin_kernel<<<1, 1, 0, stream>>>(static_cast<long long>(ms * 1e6),
                                     slots_.data() + next_++ % kSlots);
  }

 private:
  static constexpr std::size_t kSlots = 4096;
  DeviceBuffer<unsigned long long> slots_;
  std::size_t next_ = 0;
};

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  LabBackend() { load_everything_once(); }

  double one_spin_ms(double spin_ms) override {
    OwnedStream s(cudaStreamNonBlocking);
    EventTimeline timeline;
    timeline.time(s.get(), "s", "spin", [&] { spin_(spin_ms, s.get()); });
    CUDA_CHECK(cudaDeviceSynchronize());
    return total_ms(timeline.spans());
  }

  ThreeSpins three_spins(StreamKind kind, double spin_ms) override {
    ThreeSpins result;
    result.one_spin_ms = one_spin_ms(spin_ms);
    OwnedStream s;
    EventTimeline timeline;
    result.observation = observe_call({}, {}, [&] {
      s.reset(lab03::make_stream(kind));
      const cudaStream_t default_stream = lab03::default_stream_for(kind);
      const auto timed_spin = [&](cudaStream_t stream, const char* row, const char* name) {
        timeline.time(stream, row, name, [&] { spin_(spin_ms, stream); });
      };
      timed_spin(s.get(), "s", "spin 1");
      timed_spin(default_stream, "default", "spin 2");
      timed_spin(s.get(), "s", "spin 3");
    });
    if (!result.observation.failed()) result.spans = timeline.spans();
    result.total_ms = total_ms(result.spans);
    return result;
  }

  StreamRules stream_rules(StreamKind kind, double spin_ms) override {
    StreamRules result;
    OwnedStream s, t(cudaStreamDefault);
    EventTimeline timeline;
    result.observation = observe_call({}, {}, [&] {
      s.reset(lab03::make_stream(kind));
      const auto timed_spin = [&](cudaStream_t stream, const char* row) {
        timeline.time(stream, row, "spin", [&] { spin_(spin_ms, stream); });
      };
      timed_spin(s.get(), "s");
      timed_spin(cudaStreamLegacy, "legacy");
      CUDA_CHECK(cudaDeviceSynchronize());
      timed_spin(lab03::default_stream_for(kind), "default");
      timed_spin(t.get(), "t");
      CUDA_CHECK(cudaDeviceSynchronize());
    });
    if (result.observation.failed()) return result;
    const std::vector<Span> spans = timeline.spans();
    result.side = spans.at(0);
    result.legacy_after_side = spans.at(1);
    result.default_stream = spans.at(2);
    result.blocking_after_default = spans.at(3);
    return result;
  }

  double predicted_total_ms(StreamKind kind, double spin_ms) override {
    return lab03::predicted_total_ms(kind, spin_ms);
  }

  ProducerConsumer producer_consumer(int n, double delay_ms, double independent_ms) override {
    check_count(n, "producer_consumer");
    ProducerConsumer result;
    result.expected = static_cast<float>(n);
    // Allocated and cleared before: cudaMalloc and cudaMemset synchronise,
    // which would order the producer before the consumer by accident.
    DeviceBuffer<float> a(static_cast<std::size_t>(n));
    DeviceBuffer<float> out(1);
    CUDA_CHECK(cudaMemset(a.data(), 0, a.bytes()));
    CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes()));
    OwnedStream side(cudaStreamNonBlocking);
    OwnedStream other(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    EventTimeline timeline;
    result.observation = observe_call({}, {}, [&] {
      timeline.time(cudaStreamLegacy, "default", "producer", [&] {
        spin_(delay_ms, cudaStreamLegacy);
        lab03::produce_then_consume(a.data(), n, 1.0f, out.data(), side.get(), filled.get());
      });
      timeline.time(other.get(), "other", "independent",
                    [&] { spin_(independent_ms, other.get()); });
    });
    if (result.observation.failed()) return result;
    CUDA_CHECK(cudaMemcpy(&result.sum, out.data(), sizeof(float), cudaMemcpyDeviceToHost));
    const std::vector<Span> spans = timeline.spans();
    result.producer = spans.at(0);
    result.independent = spans.at(1);
    result.total_ms = total_ms(spans);
    return result;
  }

  AllocatorReuse allocator_reuse(std::size_t bytes) override {
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

  RecordStreamRules record_stream_rules(int n, double busy_ms) override {
    check_count(n, "record_stream_rules");
    RecordStreamRules result;
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
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
    // t reads `a` after its fill and a spin (t.wait_stream(s)).
    const auto read_on_t_when_busy = [&](const float* a) {
      CUDA_CHECK(cudaEventRecord(filled.get(), s.get()));
      CUDA_CHECK(cudaStreamWaitEvent(t.get(), filled.get(), 0));
      spin_(busy_ms, t.get());
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
    result.observation = observe_call({}, {}, [&] {
      {
        lab03::CachingAllocator allocator;
        spin_(busy_ms, s.get());
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
        spin_(busy_ms, t.get());
        allocator.free(again);
        float* b = static_cast<float*>(allocator.allocate(bytes, s.get()));
        result.reused_after_unrecorded_life = b == again;
        allocator.free(b);
        CUDA_CHECK(cudaDeviceSynchronize());
      }
    });
    return result;
  }

  ReuseHazard reuse_hazard(int n, ReuseGuard guard, double consumer_delay_ms) override {
    check_count(n, "reuse_hazard");
    ReuseHazard result;
    result.expected = static_cast<float>(n);
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    DeviceBuffer<float> out(1);
    CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes()));
    OwnedStream side(cudaStreamNonBlocking);
    OwnedEvent a_filled(cudaEventDisableTiming), a_summed(cudaEventDisableTiming);
    lab03::CachingAllocator allocator;
    // Warm the allocator: A's first allocation must not be a cudaMalloc, whose
    // implicit synchronisation would order everything by accident.
    allocator.free(allocator.allocate(bytes, cudaStreamLegacy));
    result.observation = observe_call({}, {}, [&] {
      auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      fill(a, n, 1.0f, cudaStreamLegacy);
      CUDA_CHECK(cudaEventRecord(a_filled.get(), cudaStreamLegacy));  // side.wait_stream(default)
      CUDA_CHECK(cudaStreamWaitEvent(side.get(), a_filled.get(), 0));
      spin_(consumer_delay_ms, side.get());
      sum(a, n, out.data(), side.get());
      if (guard == ReuseGuard::record_stream) allocator.record_stream(a, side.get());
      if (guard == ReuseGuard::wait_stream) {  // default.wait_stream(side)
        CUDA_CHECK(cudaEventRecord(a_summed.get(), side.get()));
        CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, a_summed.get(), 0));
      }
      allocator.free(a);  // del A
      auto* b = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      result.pointer_reused = b == a;
      fill(b, n, 2.0f, cudaStreamLegacy);
      allocator.free(b);
    });
    if (result.observation.failed()) return result;
    CUDA_CHECK(cudaMemcpy(&result.sum, out.data(), sizeof(float), cudaMemcpyDeviceToHost));
    return result;
  }

  std::vector<std::size_t> reserved_over_iterations(int iterations, int n) override {
    check_count(n, "reserved_over_iterations");
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
    DeviceBuffer<float> out(1);
    OwnedStream side(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming);
    lab03::CachingAllocator allocator;
    std::vector<std::size_t> reserved;
    for (int i = 0; i < iterations; ++i) {
      auto* a = static_cast<float*>(allocator.allocate(bytes, cudaStreamLegacy));
      fill(a, n, 1.0f, cudaStreamLegacy);
      CUDA_CHECK(cudaEventRecord(filled.get(), cudaStreamLegacy));
      CUDA_CHECK(cudaStreamWaitEvent(side.get(), filled.get(), 0));
      sum(a, n, out.data(), side.get());
      allocator.record_stream(a, side.get());
      allocator.free(a);
      CUDA_CHECK(cudaStreamSynchronize(side.get()));
      reserved.push_back(allocator.reserved_bytes());
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    return reserved;
  }

  StreamOrderedFree free_async_hazard(int n, double consumer_delay_ms,
                                      double independent_ms) override {
    check_count(n, "free_async_hazard");
    StreamOrderedFree result;
    result.expected = static_cast<float>(n);
    DeviceBuffer<float> out(1);
    CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes()));
    OwnedStream side(cudaStreamNonBlocking), other(cudaStreamNonBlocking);
    OwnedEvent filled(cudaEventDisableTiming), summed(cudaEventDisableTiming);
    EventTimeline timeline;
    result.observation = observe_call({}, {}, [&] {
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
      const void* a = nullptr;
      timeline.time(side.get(), "side", "consumer", [&] {
        spin_(consumer_delay_ms, side.get());
        a = lab03::produce_consume_free(n, 1.0f, out.data(), side.get(), filled.get(),
                                        summed.get());
      });
      float* b = nullptr;
      CUDA_CHECK(cudaMallocAsync(&b, bytes, cudaStreamLegacy));
      result.pointer_reused = b == a;
      fill(b, n, 2.0f, cudaStreamLegacy);
      CUDA_CHECK(cudaFreeAsync(b, cudaStreamLegacy));
      timeline.time(other.get(), "other", "independent",
                    [&] { spin_(independent_ms, other.get()); });
    });
    if (result.observation.failed()) return result;
    CUDA_CHECK(cudaMemcpy(&result.sum, out.data(), sizeof(float), cudaMemcpyDeviceToHost));
    const std::vector<Span> spans = timeline.spans();
    result.consumer = spans.at(0);
    result.independent = spans.at(1);
    result.total_ms = total_ms(spans);
    return result;
  }

  ChunkRange chunk_of(int n, int chunks, int c) override {
    const lab03::Chunk chunk = lab03::chunk_of(n, chunks, c);
    return {chunk.begin, chunk.count};
  }

  Pipeline pipeline(const std::vector<float>& in, int chunks, int streams, int iterations,
                    bool timeline, bool pinned) override {
    if (streams < 1 || chunks < 1) throw std::invalid_argument("pipeline: chunks, streams >= 1");
    Pipeline result;
    const int n = static_cast<int>(in.size());
    const HostMemory memory = pinned ? HostMemory::pinned : HostMemory::pageable;
    HostBuffer<float> in_host(in.size(), memory), out_host(in.size(), memory);
    std::copy(in.begin(), in.end(), in_host.data());
    std::fill_n(out_host.data(), in.size(), std::numeric_limits<float>::quiet_NaN());
    DeviceBuffer<float> in_device(std::max<std::size_t>(in.size(), 1));
    DeviceBuffer<float> out_device(std::max<std::size_t>(in.size(), 1));
    std::vector<OwnedStream> owned(static_cast<std::size_t>(streams));
    std::vector<cudaStream_t> handles;
    for (auto& s : owned) {
      s.reset(make_non_blocking());
      handles.push_back(s.get());
    }
    EventTimeline events;
    const int first = events.mark(handles[0]);
    result.observation = observe_call({}, {}, [&] {
      if (!timeline) {
        lab03::pipeline(in_host.data(), out_host.data(), in_device.data(), out_device.data(), n,
                        chunks, iterations, handles.data(), streams);
      } else {
        for (int c = 0; c < chunks; ++c) {
          const cudaStream_t s = handles[static_cast<std::size_t>(c % streams)];
          const lab03::Chunk chunk = lab03::chunk_of(n, chunks, c);
          const int begin = events.mark(s);
          lab03::enqueue_chunk(in_host.data(), out_host.data(), in_device.data(), out_device.data(),
                               chunk, iterations, s);
          if (chunk.count > 0) {
            events.span("stream " + std::to_string(c % streams + 1), "chunk " + std::to_string(c),
                        begin, events.mark(s));
          }
        }
      }
      for (const cudaStream_t s : handles) {
        const int end = events.mark(s);
        events.span("end", "end", first, end);
      }
    });
    result.out.assign(out_host.data(), out_host.data() + in.size());
    if (result.observation.failed()) return result;
    std::vector<Span> spans = events.spans();
    result.total_ms = total_ms(spans);
    std::erase_if(spans, [](const Span& s) { return s.row == "end"; });
    result.spans = spans;
    return result;
  }

 private:
  // Launches each kernel (and, where there is one, the stream-ordered pool)
  // once before any experiment. CUDA loads a kernel's code at its first
  // launch (lazy loading, the default since CUDA 12), and that load waits
  // for the work already running: a first launch inside an experiment would
  // order its streams by accident (on the H200, a third stream's spin
  // waited for the producer).
  void load_everything_once() {
    DeviceBuffer<float> one(1);
    fill(one.data(), 1, 1.0f, cudaStreamLegacy);
    sum(one.data(), 1, one.data(), cudaStreamLegacy);
    compute_kernel<<<1, 1>>>(one.data(), one.data(), 1, 1);
    spin_(0, cudaStreamLegacy);
    void* block = nullptr;
    CUDA_CHECK(cudaMallocAsync(&block, 4096, cudaStreamLegacy));
    CUDA_CHECK(cudaFreeAsync(block, cudaStreamLegacy));
    CUDA_CHECK(cudaDeviceSynchronize());
  }

  Spinner spin_;

  static void check_count(int n, const char* what) {
    if (n < 1) throw std::invalid_argument(std::string(what) + ": n must be >= 1");
  }
  static cudaStream_t make_non_blocking() {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab03::harness
