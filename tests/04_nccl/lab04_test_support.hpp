// What lab 04's tests share: the suite base over both backends, inputs that
// make every sum exact, the host reference of each collective, and the
// check of every rank's output.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "collective_reference.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/random.hpp"

namespace lab04 {

using cudalab::comm::Collective;
using harness::CollectiveCase;
using harness::CommKind;
using harness::RanksRun;

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

// The rank counts every exercise is checked for.
inline const std::vector<int> kRankCounts = {1, 2, 3, 4, 8};

// Rank r's value i is r * 1000 + (a random integer below 1000): the ranks
// differ, and sums over 8 ranks stay exact in float.
inline CollectiveCase make_case(cudalab::Random& rng, Collective which, int ranks,
                                std::size_t count, bool in_place = false, int root = 0) {
  CollectiveCase c;
  c.which = which;
  c.count = count;
  c.root = root;
  c.in_place = in_place;
  const std::size_t per_rank =
      which == Collective::reduce_scatter ? count * static_cast<std::size_t>(ranks) : count;
  for (int r = 0; r < ranks; ++r) {
    std::vector<float> input(per_rank);
    for (float& v : input)
      v = static_cast<float>(r * 1000 + static_cast<int>(rng.next_below(1000)));
    c.inputs.push_back(std::move(input));
  }
  return c;
}

// "all_reduce of 37 floats on 3 ranks, in place"
inline std::string describe(const CollectiveCase& c) {
  std::string text = std::string(cudalab::comm::to_string(c.which)) + " of " +
                     std::to_string(c.count) + " floats per rank on " + std::to_string(c.ranks()) +
                     " ranks";
  if (c.which == Collective::broadcast) text += ", root " + std::to_string(c.root);
  if (c.in_place) text += ", in place";
  return text;
}

// The run finished without an error and every rank holds what it should.
inline ::testing::AssertionResult holds_expected(const RanksRun& run, const CollectiveCase& c) {
  if (run.observation.failed()) {
    return ::testing::AssertionFailure()
           << describe(c) << " on " << run.comm << " threw " << run.observation.error_type << ": "
           << run.observation.error;
  }
  if (const auto wrong = harness::first_mismatch(run.outputs, harness::expected_outputs(c))) {
    return ::testing::AssertionFailure() << describe(c) << " on " << run.comm << ": " << *wrong;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace lab04
