// Exercise 1: stream kinds. Three spins on s, the default stream, s, with
// the student's make_stream and default_stream_for:
//   * on the emulator, by the modelled clock that cudaEventElapsedTime reads:
//     with a blocking s and the legacy default stream the three run one
//     after the other; with a non-blocking s, or a per-thread default
//     stream, spin 2 overlaps spin 1 and spin 3 follows spin 1;
//   * on the GPU, 20 ms spins within 25% of the H200's 60.1 ms (blocking)
//     and 40.1 ms (non-blocking, per-thread);
//   * on both, the student's predicted_total_ms within 10% of the
//     reference's timeline (so that a wrong make_stream does not fail it);
//   * on both, each kind's streams wait as CUDA says beyond the three spins:
//     the legacy default stream waits for s unless s is non-blocking (so the
//     per-thread kind's s is an ordinary stream), and an ordinary stream
//     waits for the default stream unless that is the per-thread one (so the
//     non-blocking kind's default stream is the legacy one).
#include <gtest/gtest.h>

#include <cmath>

#include "cudalab/harness/run_log.hpp"
#include "lab03_test_support.hpp"
#include "scenarios.hpp"

namespace lab03 {
namespace {

using cudalab::harness::ran;

constexpr StreamKind kinds[] = {StreamKind::blocking, StreamKind::non_blocking,
                                StreamKind::per_thread};
constexpr double kSpinMs = 20.0;

class Ex1StreamKinds : public OnBackend {
 protected:
  harness::ThreeSpins spins(StreamKind kind) {
    harness::ThreeSpins result = backend().three_spins(kind, kSpinMs);
    EXPECT_TRUE(ran(result.observation)) << to_string(kind);
    EXPECT_EQ(result.spans.size(), 3u) << to_string(kind);
    return result;
  }
};

TEST_P(Ex1StreamKinds, Ex1_BlockingStreamAndLegacyDefaultRunOneAfterTheOther) {
  const harness::ThreeSpins r = spins(StreamKind::blocking);
  ASSERT_EQ(r.spans.size(), 3u);
  if (on_emulator()) {
    EXPECT_FALSE(overlap(r.spans[0], r.spans[1])) << describe(r.spans);
    EXPECT_FALSE(overlap(r.spans[1], r.spans[2])) << describe(r.spans);
    EXPECT_LE(r.spans[0].end_ms, r.spans[1].start_ms + 1e-6)
        << "spin 2 waits for spin 1" << describe(r.spans);
    EXPECT_LE(r.spans[1].end_ms, r.spans[2].start_ms + 1e-6)
        << "spin 3 waits for spin 2" << describe(r.spans);
    EXPECT_NEAR(r.total_ms, 3 * r.one_spin_ms, 0.05 * r.one_spin_ms) << describe(r.spans);
  } else {
    EXPECT_NEAR(r.total_ms, 60.1, 0.25 * 60.1) << "the H200's 60.1 ms +- 25%" << describe(r.spans);
  }
}

TEST_P(Ex1StreamKinds, Ex1_NonBlockingAndPerThreadOverlapTheDefaultStream) {
  for (StreamKind kind : {StreamKind::non_blocking, StreamKind::per_thread}) {
    SCOPED_TRACE(to_string(kind));
    const harness::ThreeSpins r = spins(kind);
    ASSERT_EQ(r.spans.size(), 3u);
    if (on_emulator()) {
      EXPECT_TRUE(overlap(r.spans[0], r.spans[1]))
          << "spin 2 (default stream) should run during spin 1 (s)" << describe(r.spans);
      EXPECT_LE(r.spans[0].end_ms, r.spans[2].start_ms + 1e-6)
          << "spin 3 follows spin 1 on s" << describe(r.spans);
      EXPECT_NEAR(r.total_ms, 2 * r.one_spin_ms, 0.05 * r.one_spin_ms) << describe(r.spans);
    } else {
      EXPECT_NEAR(r.total_ms, 40.1, 0.25 * 40.1)
          << "the H200's 40.1 ms +- 25%" << describe(r.spans);
    }
  }
}

TEST_P(Ex1StreamKinds, Ex1_EachKindsStreamsWaitAsCudaSays) {
  for (StreamKind kind : kinds) {
    SCOPED_TRACE(to_string(kind));
    const harness::Timed r = backend().call(harness::entry::stream_rules, kind, kSpinMs);
    ASSERT_TRUE(ran(r.observation));
    ASSERT_EQ(r.spans.size(), 4u) << describe(r.spans);
    const harness::Span &side = r.spans[0], &legacy_after_side = r.spans[1];
    const harness::Span &default_stream = r.spans[2], &blocking_after_default = r.spans[3];
    const bool legacy_waits_for_s = kind != StreamKind::non_blocking;
    EXPECT_EQ(!overlap(side, legacy_after_side), legacy_waits_for_s)
        << "a spin on s, then one on the legacy default stream: it waits for s exactly when s is "
           "a blocking (cudaStreamCreate) stream, which make_stream("
        << to_string(kind) << ") should " << (legacy_waits_for_s ? "make" : "not make")
        << describe({side, legacy_after_side});
    const bool ordinary_waits_for_default = kind != StreamKind::per_thread;
    EXPECT_EQ(!overlap(default_stream, blocking_after_default), ordinary_waits_for_default)
        << "a spin on default_stream_for(" << to_string(kind)
        << "), then one on a cudaStreamCreate stream: it waits for the legacy default stream, "
           "not for the per-thread one"
        << describe({default_stream, blocking_after_default});
  }
}

TEST_P(Ex1StreamKinds, Ex1_PredictionMatchesTheTimeline) {
  for (StreamKind kind : kinds) {
    SCOPED_TRACE(to_string(kind));
    const harness::ThreeSpins r = reference().three_spins(kind, kSpinMs);
    ASSERT_TRUE(ran(r.observation));
    ASSERT_GT(r.total_ms, 0.0);
    const double predicted =
        backend().call(harness::entry::predicted_total_ms, kind, r.one_spin_ms);
    EXPECT_NEAR(predicted, r.total_ms, 0.1 * r.total_ms)
        << "predicted_total_ms(" << to_string(kind) << ", " << r.one_spin_ms << ") said "
        << predicted << " ms; the timeline:" << describe(r.spans);
    cudalab::harness::note(to_string(kind) + ": three spins of " + std::to_string(r.one_spin_ms) +
                           " ms took " + std::to_string(r.total_ms) + " ms");
  }
}

CUDALAB_ON_BOTH_BACKENDS(Ex1StreamKinds);

}  // namespace
}  // namespace lab03
