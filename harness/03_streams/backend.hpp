// Lab 03 behind one interface, whichever backend runs it.
//
// backend_impl.hpp, built by the host compiler (CPU emulator) and by nvcc,
// includes the lab's files and implements Backend. The student's host
// functions are entry points; each experiment sets up streams, events and
// memory around the student's code, runs it observed and reports what came
// out: values, and when (spans from CUDA events: GPU time on the GPU, the
// emulator's modelled clock on the emulator, where cudaEventElapsedTime
// reads it). Here are the experiments the tests, the benchmark and the
// viewer share; those only the tests run are entry points the tests declare
// beside them (tests/03_streams/scenarios.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/entry_points.hpp"
#include "cudalab/harness/event_span.hpp"
#include "given/stream_types.hpp"

namespace lab03::harness {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

// One operation on the timeline, in milliseconds from the experiment's first event.
using Span = cudalab::harness::EventSpan;
// An experiment's observation (on the emulator: the race checker's reports),
// its spans in the order issued, and their total.
using Timed = cudalab::harness::TimedObservation;

// Exercise 1: spins of spin_ms on s, on the default stream, on s: spans
// "spin 1" (row s), "spin 2" (row default), "spin 3" (row s).
struct ThreeSpins : Timed {
  double one_spin_ms = 0;  // one spin alone, measured (modelled) just before
};

// Exercises 2 to 4: the lecture's consumer summed A (n ones) on a side stream.
struct Consumed : Timed {
  float sum = 0;
  float expected = 0;
  bool pointer_reused = false;  // exercises 3, 4: the next allocation got A's block
};

// Exercise 5: the student's chunk_of, and the pipeline's output with one
// span per non-empty chunk (row "stream k").
struct ChunkRange {
  int begin = 0;
  int count = 0;
};
struct Pipeline : Timed {
  std::vector<float> out;
};

namespace entry {
using cudalab::harness::Entry;
// Exercise 1: the student's prediction of three spins' total.
inline constexpr Entry<double(StreamKind kind, double spin_ms)> predicted_total_ms{
    "predicted_total_ms"};
// Exercise 5: chunk c of an n-element job cut into `chunks`.
inline constexpr Entry<ChunkRange(int n, int chunks, int c)> chunk_of{"chunk_of"};
}  // namespace entry

class Backend : public cudalab::harness::EntryBackend {
 public:
  // Exercise 1: three spins with the student's make_stream and
  // default_stream_for (ThreeSpins).
  virtual ThreeSpins three_spins(StreamKind kind, double spin_ms) = 0;

  // Exercise 2: A (n floats, allocated before and set to 0) is filled with
  // 1 by the student's produce_then_consume after a spin of delay_ms on the
  // default stream, and summed on a side stream; then a spin of
  // independent_ms on a third stream. Spans "producer" (the delay spin and
  // the fill, row default) and "independent" (row other).
  virtual Consumed producer_consumer(int n, double delay_ms, double independent_ms) = 0;

  // Exercise 5: the student's pipeline over `streams` streams, in pinned
  // host memory (pageable with pinned = false: the benchmark's comparison);
  // with `timeline`, the harness issues the chunks itself (the student's
  // chunk_of and enqueue_chunk) with events around each.
  virtual Pipeline pipeline(const std::vector<float>& in, int chunks, int streams, int iterations,
                            bool timeline, bool pinned = true) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab03::harness
