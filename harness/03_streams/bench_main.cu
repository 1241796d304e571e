// lab03_bench: `./lab bench 03`. On the GPU, with the graded code:
//   * exercise 1: three 20 ms spins on s, the default stream, s, for each
//     stream kind (figure three_spins, ms) and their timelines;
//   * exercise 5: the pipeline (copy in, compute, copy out per chunk, 8
//     chunks of a 2^25-float job) over 1, 2, 4 and 8 streams from pinned
//     memory and over 1 and 8 from pageable memory (figure pipeline, ms;
//     overlap = time / the 1-stream pinned time), the timelines of the
//     pinned runs, and the host-to-device copy of the whole job from pinned
//     and from pageable memory (figure h2d_copy, GB/s = bytes / time);
//   * PyTorch's three spins and pipeline from bench_pytorch.py (versions
//     torch_*), when PyTorch was importable.
// Times are single runs after a warm-up, in CUDA events (a spin's time is
// what it is); the pipeline's is the median of --repeats runs, the copy's
// timed as kernels are (BenchRun::median_ms_cold_l2).
#include <cstdint>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/event_timer.hpp"
#include "cudalab/harness/bench.hpp"
#include "cudalab/harness/span_timeline.hpp"
#include "cudalab/host_buffer.hpp"
#include "cudalab/random.hpp"

namespace {

using lab03::StreamKind;
namespace harness = lab03::harness;
using cudalab::harness::timeline_of;

constexpr double kSpinMs = 20.0;
constexpr int kPipelineFloats = 1 << 25;
constexpr int kChunks = 8;
constexpr int kIterations = 2000;  // compute about as long as one copy on the H200
// The anchor of the pipeline figures: their fraction_of is the overlap ratio.
constexpr const char* kOneStream = "pipeline_1_stream_pinned";

void three_spins(cudalab::harness::BenchRun& run, harness::Backend& backend) {
  for (StreamKind kind : {StreamKind::blocking, StreamKind::non_blocking, StreamKind::per_thread}) {
    const harness::ThreeSpins r = backend.three_spins(kind, kSpinMs);
    if (r.observation.failed()) throw std::runtime_error("three_spins: " + r.observation.error);
    std::cout << "three spins of " << kSpinMs << " ms, " << lab03::to_string(kind) << ": "
              << r.total_ms << " ms\n";
    run.add_figure("three_spins", lab03::to_string(kind), {3}, 0, r.total_ms, r.total_ms, "ms");
    run.result().add_timeline(
        timeline_of("three spins, " + lab03::to_string(kind), r.spans, "kernel"));
  }
}

void pipeline(cudalab::harness::BenchRun& run, harness::Backend& backend) {
  cudalab::Random rng = cudalab::Random::fresh();
  const std::vector<float> in = rng.uniform(kPipelineFloats, -4.0f, 4.0f);
  const std::uint64_t bytes = 2ull * kPipelineFloats * sizeof(float);
  const std::vector<std::int64_t> shape = {kPipelineFloats, kChunks};
  double one_stream_ms = 0;
  for (bool pinned : {true, false}) {
    for (int streams : {1, 2, 4, 8}) {
      if (!pinned && (streams == 2 || streams == 4)) continue;
      backend.pipeline(in, kChunks, streams, kIterations, false, pinned);  // warm-up
      std::vector<double> times;
      for (int r = 0; r < run.repeats(); ++r) {
        const harness::Pipeline p =
            backend.pipeline(in, kChunks, streams, kIterations, false, pinned);
        if (p.observation.failed()) throw std::runtime_error("pipeline: " + p.observation.error);
        times.push_back(p.total_ms);
      }
      const double ms = cudalab::median(times);
      if (pinned && streams == 1) {
        one_stream_ms = ms;
        run.result().add_anchor({kOneStream, ms, "ms",
                                 "this pipeline on 1 stream from pinned memory, same run, median",
                                 bytes, ms});
      }
      const std::string version =
          std::string(pinned ? "pinned_" : "pageable_") + std::to_string(streams) + "_streams";
      std::cout << "pipeline " << version << ": " << ms << " ms (" << ms / one_stream_ms
                << " of 1 stream pinned)\n";
      run.add_figure("pipeline", version, shape, bytes, ms, ms, "ms", kOneStream);
      if (pinned) {
        const harness::Pipeline timed = backend.pipeline(in, kChunks, streams, kIterations, true);
        run.result().add_timeline(
            timeline_of("pipeline, " + std::to_string(streams) + " streams", timed.spans, "chunk"));
      }
    }
  }
}

// One host-to-device copy of the pipeline's input, from pinned and from pageable memory.
void copy_bandwidth(cudalab::harness::BenchRun& run) {
  const std::size_t bytes = std::size_t{kPipelineFloats} * sizeof(float);
  cudalab::DeviceBuffer<unsigned char> device(bytes);
  cudalab::HostBuffer<unsigned char> pinned(bytes, cudalab::HostMemory::pinned);
  cudalab::HostBuffer<unsigned char> pageable(bytes, cudalab::HostMemory::pageable);
  std::memset(pinned.data(), 1, bytes);
  std::memset(pageable.data(), 1, bytes);
  for (const auto& [version, host] :
       {std::pair<const char*, void*>{"pinned", pinned.data()}, {"pageable", pageable.data()}}) {
    const double ms = run.median_ms_cold_l2(
        [&] { CUDA_CHECK(cudaMemcpy(device.data(), host, bytes, cudaMemcpyHostToDevice)); });
    // No anchor: the device copy's would mislead.
    const cudalab::Figure& figure = run.add_bandwidth(
        "h2d_copy", version, {static_cast<std::int64_t>(bytes)}, bytes, ms, "none");
    std::cout << "host to device copy from " << version << " memory: " << figure.value << " GB/s\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::harness::bench_main(argc, argv, "lab03_bench", "03_streams",
                                      [](cudalab::harness::BenchRun& run) {
                                        std::string why_not;
                                        auto backend = harness::make_gpu_backend(&why_not);
                                        if (!backend) throw std::runtime_error(why_not);
                                        three_spins(run, *backend);
                                        pipeline(run, *backend);
                                        copy_bandwidth(run);
                                        run.merge_pytorch_durations();
                                      });
}
