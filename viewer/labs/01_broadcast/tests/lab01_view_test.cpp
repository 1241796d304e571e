// Lab 01 in the viewer: the lecture's kernel as the slides show it, and the
// lab's code through its harness on the emulator.
#include <gtest/gtest.h>

#include "labs/01_broadcast/lecture_model.hpp"
#include "model/indexing_model.hpp"
#include "model/lab_source.hpp"

namespace cudalab::viewer {
namespace {

std::unique_ptr<LabSource> lab01() {
  for (auto& lab : available_labs())
    if (lab->title() == "01 broadcast") return std::move(lab);
  return nullptr;
}

RunRequest request(std::size_t version, std::int64_t rows, std::int64_t cols, std::uint32_t block) {
  RunRequest r;
  r.version = version;
  r.values = {rows, cols};
  r.block = {block, 1, 1};
  return r;
}

TEST(Lab01View, LectureKernelMissesSomeElementsAndDoublesOthers) {
  const KernelRun run = lab01::simulate(lab01::Mapping::kLecture, {16, 1, 1}, {64, 1, 1}, 31, 33);
  const CoverageStats s = coverage_stats(run);
  EXPECT_GT(s.never, 0u);
  EXPECT_GT(s.several, 0u);
  EXPECT_EQ(s.never + s.once + s.several, run.elements());
}

TEST(Lab01View, LectureKernelOverlapsItsFirstBlocks) {
  // Block 64: block 1 thread 0 and block 0 thread 1 both compute i = 1.
  const KernelRun run = lab01::simulate(lab01::Mapping::kLecture, {4, 1, 1}, {64, 1, 1}, 8, 8);
  const std::string text = describe_element(run, 1 * 8);  // i = 1 -> j = 1, k = 0
  EXPECT_NE(text.find("written 2 times"), std::string::npos) << text;
  EXPECT_NE(text.find("blockIdx (0,0,0) threadIdx (1,0,0)"), std::string::npos) << text;
  EXPECT_NE(text.find("blockIdx (1,0,0) threadIdx (0,0,0)"), std::string::npos) << text;
}

TEST(Lab01View, LectureGridCoversTheTensor) {
  EXPECT_EQ(lab01::lecture_grid(64, 100, {256, 1, 1}), (Dim3{25, 1, 1}));
  EXPECT_EQ(lab01::lecture_grid(65536, 256, {256, 1, 1}), (Dim3{65535, 2, 1}));
}

TEST(Lab01View, RegistryListsLab01WithItsViewsAndParameters) {
  const auto lab = lab01();
  ASSERT_NE(lab, nullptr);
  EXPECT_EQ(lab->views(), (std::vector<View>{View::kIndexing, View::kCoalescing, View::kBars}));
  EXPECT_EQ(parameter_index(*lab, "rows"), 0u);
  EXPECT_EQ(parameter_index(*lab, "cols"), 1u);
  EXPECT_EQ(default_request(*lab).values, (std::vector<std::int64_t>{64, 100}));
  EXPECT_FALSE(lab->note(View::kBars).empty());
}

TEST(Lab01View, CoalescedVersionWritesEveryElementOnceOnTheEmulator) {
  const auto lab = lab01();
  ASSERT_NE(lab, nullptr);
  if (lab->code_origin().find("solutions/") == std::string::npos)
    GTEST_SKIP() << "this build runs labs/ (your code), which may not be finished";
  const RunOutcome out = lab->run(request(3, 7, 37, 64));
  ASSERT_TRUE(out.run.has_value()) << out.error;
  const CoverageStats s = coverage_stats(*out.run);
  EXPECT_EQ(s.once, 7u * 37u);
  EXPECT_EQ(s.never + s.several, 0u);
}

TEST(Lab01View, RefusesTensorsTooBigToEmulate) {
  const auto lab = lab01();
  ASSERT_NE(lab, nullptr);
  const RunOutcome out = lab->run(request(1, 4096, 4096, 256));
  EXPECT_FALSE(out.run.has_value());
  EXPECT_NE(out.error.find("16777216 elements"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace cudalab::viewer
