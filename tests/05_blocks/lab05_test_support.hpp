// What lab 05's tests share: the fixture over the three backends (GPU,
// emulator, tile interpreter) and the trace checks of a fused program.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "backend.hpp"
#include "cudalab/harness/testing.hpp"

namespace lab05 {

using OnBackend = cudalab::harness::OnBackend<
    harness::Backend, harness::make_emulator_backend, harness::make_gpu_backend,
    harness::make_reference_emulator_backend, harness::make_reference_gpu_backend,
    harness::make_interpreter_backend, harness::make_reference_interpreter_backend>;

// The traced bytes of a call: what its warps asked global memory for, and
// the worst request's sectors (4 for 32 consecutive floats).
inline ::testing::AssertionResult moved_bytes(const cudalab::harness::Observation& observation,
                                              std::uint64_t loaded, std::uint64_t stored,
                                              const std::string& what) {
  if (!observation.loads || !observation.stores) {
    return ::testing::AssertionFailure() << what << ": the call was not traced";
  }
  if (observation.loads->bytes == loaded && observation.stores->bytes == stored) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << what << ": the warps read " << observation.loads->bytes << " bytes and wrote "
         << observation.stores->bytes << "; one trip through memory reads " << loaded
         << " and writes " << stored
         << " (more: an element loaded or stored twice, or a second kernel; fewer: elements "
            "missed)";
}

inline ::testing::AssertionResult coalesced(const cudalab::harness::SectorSummary& requests,
                                            unsigned most_sectors, const std::string& what) {
  if (requests.max_sectors <= most_sectors) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": a warp request touched " << requests.max_sectors
         << " 32-byte sectors; 32 consecutive floats touch at most " << most_sectors
         << " here (are element e's offsets base + e?)";
}

}  // namespace lab05
