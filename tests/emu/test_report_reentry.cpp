// A report raised inside a kernel builds its message with std::string code.
// When the linker kept instrumented copies of that code (plain_strings.cpp,
// linked first), the emulator must not check the accesses its own message
// building makes: before it ignored them, each was reported as an invalid
// pointer, whose message was built the same way, until the stack overflowed.
#include <string>

#include "emu_test_support.hpp"
#include "plain_strings.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

TEST(ReportReentry, AnOutOfBoundsReportIsMadeOnceWithInstrumentedStringCode) {
  cudalab::emu::ScopedOptions scoped(quiet());
  constexpr int kCount = 37;
  EXPECT_EQ(plain_strings::count_to(3), "3: 1 2 3");
  float* a = nullptr;
  ASSERT_EQ(cudaMalloc(&a, kCount * sizeof(float)), cudaSuccess);
  Recording rec;
  plain_strings::write_one_past_the_end(a, kCount);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  EXPECT_TRUE(has_report(rec, ReportKind::out_of_bounds)) << rec.reports_text();
  EXPECT_FALSE(has_report(rec, ReportKind::invalid_pointer))
      << "the emulator's own message building was checked as the kernel's\n"
      << rec.reports_text();
  EXPECT_EQ(cudaFree(a), cudaSuccess);
}

}  // namespace
}  // namespace emu_tests
