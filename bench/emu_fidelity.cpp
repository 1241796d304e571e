// tests/emu/fidelity_kernels.cuh (its rewritten copy) on the emulator: the
// same launches emu_fidelity_gpu makes on the GPU for ncu.
#include "emu_fidelity.hpp"

#include <cstddef>
#include <vector>

#include "cudalab/device_buffer.hpp"
#include "fidelity_kernels.cuh"

namespace emu_bench {

std::vector<FidelityRecord> run_fidelity_kernels() {
  using namespace emu_fidelity;
  cudalab::DeviceBuffer<float> in(std::vector<float>(std::size_t{32} * kThreads, 1.0f));
  cudalab::DeviceBuffer<float> out(std::vector<float>(kThreads, 0.0f));
  cudalab::DeviceBuffer<__half> in_half(std::vector<__half>(kThreads, __float2half(1.0f)));
  cudalab::DeviceBuffer<__half> out_half(std::vector<__half>(kThreads, __float2half(0.0f)));
  cudalab::DeviceBuffer<float> bins(std::vector<float>(64, 0.0f));
  const Buffers buffers{in.data(), out.data(), in_half.data(), out_half.data(), bins.data()};
  std::vector<FidelityRecord> records;
  run_all(buffers, [&](const char* name, auto&& launch) {
    cudalab::emu::Recording recording;
    launch();
    records.push_back({name, recording.last().coalescing, recording.last().bank_conflicts,
                       recording.last().constant_cache.loads});
  });
  return records;
}

}  // namespace emu_bench
