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
#include "cudalab/comm/collective_reference.hpp"
#include "cudalab/harness/testing.hpp"
#include "cudalab/random.hpp"

namespace lab04 {

using cudalab::comm::Collective;
namespace entry = harness::entry;
using harness::CollectiveCase;
using harness::CommKind;
using harness::RanksRun;

using OnBackend =
    cudalab::harness::OnBackend<harness::Backend, harness::make_emulator_backend,
                                harness::make_gpu_backend, harness::make_reference_emulator_backend,
                                harness::make_reference_gpu_backend>;

// The rank counts every exercise is checked for.
inline const std::vector<int> kRankCounts = {1, 2, 3, 4, 8};

// Fresh random inputs (cudalab::comm::make_case).
inline CollectiveCase make_case(cudalab::Random& rng, Collective which, int ranks,
                                std::size_t count, bool in_place = false, int root = 0) {
  return cudalab::comm::make_case(which, ranks, count, in_place, root,
                                  [&rng](int, std::size_t) { return rng.next_below(1000); });
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
  if (const auto wrong =
          cudalab::comm::first_mismatch(run.outputs, cudalab::comm::expected_outputs(c))) {
    return ::testing::AssertionFailure() << describe(c) << " on " << run.comm << ": " << *wrong;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace lab04
