// Probes of the stream semantics the emulator's device model implements
// (docs/emulator.md, "The device model"). stream_probes.cuh holds them as
// plain CUDA, compiled twice: rewritten and instrumented for the emulator
// (stream_probes_emu.cpp) and by nvcc for the GPU (stream_probes_gpu.cu).
// Each probe provokes one semantic and says what it observed, so that
// test_stream_probes.cpp can ask both backends the same question and expect
// the same answer.
#pragma once

#include <string>
#include <vector>

namespace stream_probes {

// Operations whose ordering the probes observe: a producer that spins before
// it writes (50 ms on the GPU, nothing on the emulator, whose adversarial
// scheduler runs the later-issued of two unordered operations first) and a
// consumer that copies what it finds.
enum class Probe {
  legacy_stream_after_blocking_stream,
  blocking_stream_after_legacy_stream,
  non_blocking_stream_after_legacy_stream,
  legacy_stream_after_non_blocking_stream,
  per_thread_stream_after_legacy_stream,
  legacy_stream_after_per_thread_stream,
  blocking_stream_after_per_thread_stream,
  wait_after_record_then_record_again,
  wait_for_never_recorded_event,
  async_copy_to_pageable_and_pinned_memory,
  // Implicit synchronisation: whether the call waits for a non-blocking
  // stream's pending work.
  implicit_sync_cudaMalloc_small,
  implicit_sync_cudaMalloc_large,
  implicit_sync_cudaFree,
  implicit_sync_cudaMallocHost,
  implicit_sync_cudaFreeHost,
  implicit_sync_cudaMemcpy_host_to_device,
  implicit_sync_cudaMemcpy_device_to_host,
  implicit_sync_cudaMemcpy_device_to_device,
  implicit_sync_cudaMemset,
  implicit_sync_cudaDeviceSynchronize,
  // A kernel's first launch in the process (the GPU loads it then).
  first_launch_of_a_kernel,
  queries_on_pending_work,
  elapsed_time_of_a_spin,
  // Stream-ordered allocation (GPU only until the emulator has it).
  malloc_async_after_free_on_the_same_stream,
  malloc_async_after_free_on_another_stream,
  malloc_async_after_free_and_an_event_edge,
};

struct Observation {
  std::string verdict;  // "ordered", "not ordered", ...: what the test compares
  std::string note;     // what else was seen (GPU timings), for the log
  // The emulator's stream_race reports during the probe (none on the GPU).
  std::vector<std::string> stream_races;
};

// The spin each GPU probe delays its producer by.
constexpr double kSpinMilliseconds = 50.0;

Observation observe_on_emulator(Probe probe);
Observation observe_on_gpu(Probe probe);
// "" when there is a GPU; otherwise why the GPU probes are skipped.
std::string gpu_unavailable_reason();

}  // namespace stream_probes
