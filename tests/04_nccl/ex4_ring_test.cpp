// Exercise 4: the ring all-reduce. For every rank count of kRankCounts and
// lengths that leave a remainder:
//   * the result, in and out of place;
//   * the state after the reduce-scatter phase: rank r holds chunk
//     (r + 1) mod n summed over all ranks (chunk c is elements
//     [c * count / n, (c + 1) * count / n));
//   * the traffic: every rank sends only to rank + 1, and exactly the ring's
//     2 (n - 1) chunks, which for equal chunks is 2 (n - 1) / n of the buffer.
//     A gather to rank 0 and a broadcast back gives the right sum and fails here.
// Simulated ranks everywhere; real NCCL (emulated on the emulator) for the
// rank counts the machine has devices for.
#include <gtest/gtest.h>

#include <cstdint>

#include "lab04_test_support.hpp"
#include "ring_reference.hpp"

namespace lab04 {
namespace {

using harness::ring_chunk_begin;

class Ex4Ring : public OnBackend {
 protected:
  const std::vector<std::size_t> counts_ = {1, 5, 1001};
};

TEST_P(Ex4Ring, Ex4_SumsOnEveryRank) {
  for (const int ranks : kRankCounts) {
    for (const std::size_t count : counts_) {
      for (const bool in_place : {false, true}) {
        const CollectiveCase c = make_case(rng_, Collective::all_reduce, ranks, count, in_place);
        EXPECT_TRUE(
            holds_expected(backend().run(entry::ring_all_reduce, c, CommKind::simulated), c));
      }
    }
  }
}

TEST_P(Ex4Ring, Ex4_AfterTheReduceScatterEachRankHoldsItsReducedChunk) {
  for (const int ranks : kRankCounts) {
    for (const std::size_t count : counts_) {
      const CollectiveCase c = make_case(rng_, Collective::all_reduce, ranks, count);
      const RanksRun run = backend().run(entry::ring_until_reduce_scatter, c, CommKind::simulated);
      ASSERT_FALSE(run.observation.failed()) << describe(c) << ": " << run.observation.error;
      const std::vector<float> sum = cudalab::comm::expected_outputs(c).front();
      for (int r = 0; r < ranks; ++r) {
        const std::size_t chunk = static_cast<std::size_t>((r + 1) % ranks);
        for (std::size_t i = ring_chunk_begin(chunk, count, ranks);
             i < ring_chunk_begin(chunk + 1, count, ranks); ++i) {
          ASSERT_EQ(run.outputs[static_cast<std::size_t>(r)][i], sum[i])
              << describe(c) << ": after the reduce-scatter, rank " << r << " should hold chunk "
              << chunk << " summed over all ranks; element " << i << " is not";
        }
      }
    }
  }
}

TEST_P(Ex4Ring, Ex4_EachRankSendsTheRingsBytesToTheNextRankOnly) {
  for (const int ranks : kRankCounts) {
    for (const std::size_t count : counts_) {
      const CollectiveCase c = make_case(rng_, Collective::all_reduce, ranks, count);
      const RanksRun run = backend().run(entry::ring_all_reduce, c, CommKind::simulated);
      ASSERT_TRUE(holds_expected(run, c));
      ASSERT_EQ(run.traffic.ranks, ranks);
      for (int r = 0; r < ranks; ++r) {
        const int next = (r + 1) % ranks;
        const std::uint64_t ring_bytes = harness::ring_bytes_sent(r, count, ranks);
        for (int to = 0; to < ranks; ++to) {
          if (to == next) continue;
          EXPECT_EQ(run.traffic.sent(r, to), 0u)
              << describe(c) << ": rank " << r << " sent to rank " << to
              << "; a ring sends to rank + 1 only";
        }
        EXPECT_EQ(run.traffic.sent_by(r), ring_bytes)
            << describe(c) << ": rank " << r << " sent " << run.traffic.sent_by(r)
            << " bytes; the ring sends 2 (n - 1) chunks = " << ring_bytes << " bytes";
      }
    }
  }
}

TEST_P(Ex4Ring, Ex4_OnNccl) {
  int ran = 0;
  for (const int ranks : kRankCounts) {
    if (ranks > backend().nccl_devices() || (on_emulator() && ranks > 3)) continue;
    const CollectiveCase c = make_case(rng_, Collective::all_reduce, ranks, 1001, true);
    const RanksRun run = backend().run(entry::ring_all_reduce, c, CommKind::nccl);
    EXPECT_TRUE(holds_expected(run, c));
    ++ran;
  }
  ASSERT_GT(ran, 0);
}

CUDALAB_ON_BOTH_BACKENDS(Ex4Ring);

}  // namespace
}  // namespace lab04
