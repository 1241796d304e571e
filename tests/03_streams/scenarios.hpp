// The experiments only lab 03's tests run, as entry points: the benchmark
// and the viewer never call them, so they live here rather than in the
// harness. scenarios_impl.hpp binds them; the descriptor lists both files
// ("test_scenarios"), so each backend's unit (cmake/CudalabLab.cmake) builds
// them over the lab code as it builds backend_impl.hpp. The tests call them
// as any entry: backend().call(harness::entry::reuse_hazard, n, guard, ms).
#pragma once

#include <cstddef>
#include <vector>

#include "backend.hpp"

namespace lab03::harness {

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

namespace entry {
using cudalab::harness::Entry;

// Exercise 1: the student's streams' rules beyond the three spins, with
// spins of spin_ms: "spin" on s, then on the legacy default stream (which
// waits for a blocking s); on the kind's default stream, then on an
// ordinary stream t the harness makes with cudaStreamCreate (which waits
// for the legacy default stream, not for the per-thread one). Rows s,
// legacy, default, t.
inline constexpr Entry<Timed(StreamKind kind, double spin_ms)> stream_rules{"stream_rules"};

// Exercise 3: the student's CachingAllocator.
inline constexpr Entry<AllocatorReuse(std::size_t bytes)> allocator_reuse{"allocator_reuse"};
// record_stream's finer rules (RecordStreamRules) with blocks of n floats.
inline constexpr Entry<RecordStreamRules(int n, double busy_ms)> record_stream_rules{
    "record_stream_rules"};
// The lecture's hazard: A (n floats, ones) from the allocator on the
// default stream, summed on a side stream after a spin of consumer_delay_ms
// there, protected by `guard`, freed; then B of the same size on the
// default stream, filled with 2.
inline constexpr Entry<Consumed(int n, ReuseGuard guard, double consumer_delay_ms)> reuse_hazard{
    "reuse_hazard"};
// The reserved bytes after each of `iterations` rounds of the hazard with
// record_stream (the side stream synchronised at the end of each round).
inline constexpr Entry<std::vector<std::size_t>(int iterations, int n)> reserved_over_iterations{
    "reserved_over_iterations"};

// Exercise 4: the student's produce_consume_free (n floats) with the side
// stream's sum delayed by consumer_delay_ms, then B of the same size from
// cudaMallocAsync on the default stream, filled with 2, and independent_ms
// of work on a third stream. Spans "consumer" (the side stream's delay
// spin and sum, row side) and "independent" (row other).
inline constexpr Entry<Consumed(int n, double consumer_delay_ms, double independent_ms)>
    free_async_hazard{"free_async_hazard"};

}  // namespace entry
}  // namespace lab03::harness
