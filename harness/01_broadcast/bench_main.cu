// lab01_bench: `./lab bench 01`. Times each version of a (x, y) += b (y) on
// the GPU, from 8 MiB to 1 GiB, each as a fraction of a device-to-device copy
// of a's size timed the same way in the same run (and PyTorch's a.add_(b),
// from bench_pytorch.py).
//
// Bandwidth = bytes / time, with bytes = 4 * (x*y + y + x*y): read a, read b,
// write a (b is read once from DRAM; its re-reads hit the caches). The copy
// anchors count their read and their write the same way.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/check.hpp"
#include "cudalab/compare.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/random.hpp"
#include "reference.hpp"

namespace {

// a is kRows[k] x kColumns floats; b is kColumns floats. From 8 MiB (inside
// an H100/H200's 50 MB L2) to 1 GiB. bench_pytorch.py uses the same shapes.
constexpr int kColumns = 4096;
constexpr int kRows[] = {512, 2048, 8192, 16384, 65536};

struct Version {
  const char* name;
  std::function<void(float* a, const float* b, int x, int y, int block_size)> run;
  int block_size;
};

std::uint64_t bytes_moved(int x, int y) {
  const auto elements = static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y);
  return 4 * (elements + static_cast<std::uint64_t>(y) + elements);  // read a, read b, write a
}

// Runs `version` once on a small input against the CPU: a wrong kernel is
// reported, not timed.
bool validate(const Version& version, cudalab::Random& rng) {
  const int x = 257;
  const int y = 1031;
  std::vector<float> a = rng.uniform(static_cast<std::size_t>(x) * y, -1.0f, 1.0f);
  const std::vector<float> b = lab01::harness::nonzero_values(rng, y);
  const std::vector<float> expected = lab01::harness::broadcast_sum_reference(a, b, x, y);
  cudalab::DeviceBuffer<float> a_device(a);
  cudalab::DeviceBuffer<float> b_device(b);
  version.run(a_device.data(), b_device.data(), x, y, version.block_size);
  CUDA_CHECK_LAUNCH();
  const auto comparison = cudalab::compare(a_device.copy_to_host(), expected, {});
  if (!comparison.ok) {
    std::cout << version.name << ": WRONG RESULT on a (" << x << ", " << y << "), not timed\n"
              << comparison.to_string() << "\n";
  }
  return comparison.ok;
}

void bench(cudalab::harness::BenchRun& run) {
  // The lab's functions as the GPU build compiled them, on device pointers.
  std::string why_not;
  const auto gpu = lab01::harness::make_gpu_backend(&why_not);
  if (gpu == nullptr) throw std::runtime_error("lab01_bench needs the GPU backend: " + why_not);
  namespace entry = lab01::harness::entry;
  const auto add = gpu->device_function(entry::broadcast_add);
  const Version versions[] = {
      {"v1_lecture_fixed", gpu->device_function(entry::broadcast_sum), 512},
      {"v2_coalesced", gpu->device_function(entry::broadcast_sum_coalesced), 256},
      {"v3_nd_general",
       [add](float* a, const float* b, int x, int y, int block_size) {
         add(a, a, {x, y}, b, {y}, block_size);  // a = a + b, in place
       },
       256},
      {"v4_vec4", gpu->device_function(entry::broadcast_sum_vec4), 256},
  };
  cudalab::Random rng = cudalab::Random::fresh();
  cudalab::DeviceBuffer<float> a(static_cast<std::size_t>(kRows[std::size(kRows) - 1]) * kColumns);
  a.fill_bytes(0);
  cudalab::DeviceBuffer<float> b(rng.uniform(kColumns, -1.0f, 1.0f));

  // One copy anchor per size, measured before the kernels.
  std::vector<std::string> copy_of_a;
  for (const int rows : kRows) {
    copy_of_a.push_back(run.same_size_copy_anchor(std::uint64_t{4} * rows * kColumns));
  }

  std::printf("%-18s %14s %10s %10s %13s\n", "version", "a (x, y)", "ms", "GB/s", "of same copy");
  for (const Version& version : versions) {
    if (!validate(version, rng)) continue;
    for (std::size_t s = 0; s < std::size(kRows); ++s) {
      const int rows = kRows[s];
      const double ms = run.median_ms_cold_l2(
          [&] { version.run(a.data(), b.data(), rows, kColumns, version.block_size); });
      const auto& figure = run.add_bandwidth("broadcast_sum", version.name, {rows, kColumns},
                                             bytes_moved(rows, kColumns), ms, copy_of_a[s]);
      std::printf("%-18s %6d x %5d %10.4f %10.0f %12.0f%%\n", version.name, rows, kColumns, ms,
                  figure.value, 100 * (figure.fraction_of ? figure.fraction_of->value : 0));
    }
  }
  const auto copy_of_shape = [&](const std::vector<std::int64_t>& shape) {
    return run.same_size_copy_anchor(std::uint64_t{4} * static_cast<std::uint64_t>(shape.at(0)) *
                                     static_cast<std::uint64_t>(shape.at(1)));
  };
  run.merge_pytorch("broadcast_sum", "pytorch_add_", "pytorch:broadcast_add",
                    "a.add_(b) with b broadcast over rows (bench_pytorch.py)", copy_of_shape);
  // Exercise 6's operator, torch.ops.cudalab.broadcast_add_(a, b), when built.
  run.merge_pytorch_section("cudalab_op", "broadcast_sum", "ex6_torch_op", copy_of_shape);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab01_bench", "01_broadcast", bench);
}
