// Probes of the multi-device semantics the emulator's device model
// implements (docs/emulator.md, "Several devices" and "Peer access").
// device_probes.cuh holds them as plain CUDA, compiled twice: rewritten and
// instrumented for the emulator (device_probes_emu.cpp, two virtual devices)
// and by nvcc for the GPU (device_probes_gpu.cu, two GPUs). Each probe
// provokes one semantic and says what it observed, so that
// test_device_probes.cpp can ask both backends the same question and expect
// the same answer.
#pragma once

#include <string>
#include <vector>

namespace device_probes {

// Every probe uses devices 0 and 1 and leaves device 0 current, with no peer
// access enabled and nothing pending.
enum class Probe {
  peer_access_capabilities,
  enable_and_disable_peer_access,
  // Run last in a process on a GPU: the fault ends the CUDA context.
  kernel_reads_peer_memory_without_peer_access,
  a_peer_access_fault_is_sticky,
  kernel_reads_peer_memory_with_peer_access,
  peer_copy_after_a_late_fill_without_an_event,
  peer_copy_after_a_late_fill_with_an_event,
  device_synchronize_waits_for_its_own_device_only,
  launch_into_a_stream_of_another_device,
  peer_copy_bandwidth,
};

struct Observation {
  std::string verdict;  // what the test compares
  std::string note;     // what else was seen (error codes, timings), for the log
  // The emulator's stream_race and peer_access reports during the probe
  // (none on the GPU).
  std::vector<std::string> stream_races;
  std::vector<std::string> peer_access_errors;
  // peer_copy_bandwidth only: GB/s of cudaMemcpyPeer from device 0 to device 1.
  double gigabytes_per_second = 0.0;
};

// The spin the producer of a GPU probe delays its write by.
constexpr double kSpinMilliseconds = 50.0;

Observation observe_on_emulator(Probe probe);
Observation observe_on_gpu(Probe probe);
// "" when there are at least two GPUs; otherwise why the GPU probes are skipped.
std::string gpu_unavailable_reason();

}  // namespace device_probes
