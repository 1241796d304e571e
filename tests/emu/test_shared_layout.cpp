// The emulator lays out a block's shared memory as the GPU does: static
// declarations in declaration order at their natural alignment from offset
// 1024 (the first 1 KiB of the window is the hardware's), the dynamic part
// 16-byte aligned after them. The expected offsets are what an H200 gave on
// 2026-12-02 (nvcc 13.0, sm_90); Gpu/... checks them on the GPU in hand
// (skipped without one), Emu/... on the emulator.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "shared_layout.hpp"

namespace shared_layout {
namespace {

enum class Backend { emulator, gpu };

void PrintTo(Backend backend, std::ostream* out) {
  *out << (backend == Backend::gpu ? "gpu" : "emulator");
}

class SharedLayout : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::gpu) {
      const std::string why_not = gpu_unavailable_reason();
      if (!why_not.empty()) GTEST_SKIP() << why_not;
    }
  }
  std::vector<std::size_t> offsets(Layout layout) const {
    return GetParam() == Backend::gpu ? offsets_on_gpu(layout) : offsets_on_emulator(layout);
  }
};

INSTANTIATE_TEST_SUITE_P(Emu, SharedLayout, ::testing::Values(Backend::emulator));
INSTANTIATE_TEST_SUITE_P(Gpu, SharedLayout, ::testing::Values(Backend::gpu));

using Offsets = std::vector<std::size_t>;

TEST_P(SharedLayout, TheDynamicPartFollowsTheStaticOneSixteenByteAligned) {
  EXPECT_EQ(offsets(Layout::one_char), (Offsets{1024, 1040}));
  EXPECT_EQ(offsets(Layout::seventeen_chars), (Offsets{1024, 1056}));
  EXPECT_EQ(offsets(Layout::one_hundred_twenty_nine_chars), (Offsets{1024, 1168}));
}

TEST_P(SharedLayout, StaticDeclarationsFollowEachOtherAtTheirAlignment) {
  EXPECT_EQ(offsets(Layout::char_float_double), (Offsets{1024, 1028, 1048, 1056}));
}

TEST_P(SharedLayout, WithoutStaticDeclarationsTheDynamicPartStartsTheWindow) {
  EXPECT_EQ(offsets(Layout::dynamic_only), (Offsets{1024}));
}

}  // namespace
}  // namespace shared_layout
