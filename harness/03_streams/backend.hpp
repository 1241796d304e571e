// Lab 03 behind one interface, whichever backend runs it.
//
// backend_impl.hpp, built by the host compiler (CPU emulator) and by nvcc,
// includes the lab's files and implements Backend. The student's host
// functions are entry points; each experiment sets up streams, events and
// memory around the student's code, runs it observed and reports what came
// out: values, and when (spans from CUDA events: GPU time on the GPU, the
// emulator's modelled clock on the emulator, where cudaEventElapsedTime
// reads it).
#pragma once

#include <cstddef>
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

// Exercise 3: how the lecture's consumer stream keeps the allocator from
// handing its block to the next tensor too early.
enum class ReuseGuard {
  none,           // free at once: the hazard
  record_stream,  // allocator.record_stream(block, side) before the free
  wait_stream,    // the default stream waits for the side stream before the free
};

struct AllocatorReuse {
  bool same_stream_reuses = false;   // freed on s, allocated again on s: the same block
  bool other_stream_reuses = false;  // freed on s, allocated on t: the same block (wrong)
  bool other_size_reuses = false;    // freed, allocated with another size: the same block
  std::size_t reserved_after = 0;    // reserved bytes after these calls
};
// record_stream's finer rules, each with a fresh allocator; "busy" streams
// run a spin of busy_ms and then read the block.
struct RecordStreamRules {
  Observation observation;
  // record_stream(A, A's own stream), free, allocate there: A again (right).
  bool own_stream_record_reused = false;
  // recorded on t, t busy, A's own stream synchronised on the host, allocate
  // there: A (wrong: t still reads it).
  bool reused_while_recorded_stream_busy = false;
  // recorded on an idle stream and then on a busy one, or the other way
  // round: A (wrong both times).
  bool reused_while_second_recorded_stream_busy = false;
  bool reused_while_first_recorded_stream_busy = false;
  // recorded on t, freed, everything synchronised, allocated again: A (right).
  bool reused_once_recorded_work_done = false;
  // that second life of A is not recorded on t; t busy, free, allocate: A
  // again at once (right: t no longer uses it).
  bool reused_after_unrecorded_life = false;
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
  // The student's streams' rules beyond the three spins, with spins of
  // spin_ms: "spin" on s, then on the legacy default stream (which waits for
  // a blocking s); on the kind's default stream, then on an ordinary stream
  // t the harness makes with cudaStreamCreate (which waits for the legacy
  // default stream, not for the per-thread one). Rows s, legacy, default, t.
  virtual Timed stream_rules(StreamKind kind, double spin_ms) = 0;

  // Exercise 2: A (n floats, allocated before and set to 0) is filled with
  // 1 by the student's produce_then_consume after a spin of delay_ms on the
  // default stream, and summed on a side stream; then a spin of
  // independent_ms on a third stream. Spans "producer" (the delay spin and
  // the fill, row default) and "independent" (row other).
  virtual Consumed producer_consumer(int n, double delay_ms, double independent_ms) = 0;

  // Exercise 3: the student's CachingAllocator.
  virtual AllocatorReuse allocator_reuse(std::size_t bytes) = 0;
  // record_stream's finer rules (RecordStreamRules) with blocks of n floats.
  virtual RecordStreamRules record_stream_rules(int n, double busy_ms) = 0;
  // The lecture's hazard: A (n floats, ones) from the allocator on the
  // default stream, summed on a side stream after a spin of consumer_delay_ms
  // there, protected by `guard`, freed; then B of the same size on the
  // default stream, filled with 2.
  virtual Consumed reuse_hazard(int n, ReuseGuard guard, double consumer_delay_ms) = 0;
  // The reserved bytes after each of `iterations` rounds of the hazard with
  // record_stream (the side stream synchronised at the end of each round).
  virtual std::vector<std::size_t> reserved_over_iterations(int iterations, int n) = 0;

  // Exercise 4: the student's produce_consume_free (n floats) with the side
  // stream's sum delayed by consumer_delay_ms, then B of the same size from
  // cudaMallocAsync on the default stream, filled with 2, and independent_ms
  // of work on a third stream. Spans "consumer" (the side stream's delay
  // spin and sum, row side) and "independent" (row other).
  virtual Consumed free_async_hazard(int n, double consumer_delay_ms, double independent_ms) = 0;

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
