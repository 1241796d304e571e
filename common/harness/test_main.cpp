// main() of every lab's test program (test_labNN): GoogleTest as usual, plus
// a crash report that names the test and the cause, and, where
// CUDALAB_TEST_TIMEOUT_S is set (ctest sets it a little below its own time
// limit), a watchdog that says where a test that runs too long is stuck.
#include <gtest/gtest.h>

#include <string>

#include "cudalab/harness/crash_report.hpp"
#include "cudalab/harness/test_watchdog.hpp"

namespace {

class CurrentTest : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& info) override {
    const std::string name = std::string(info.test_suite_name()) + "." + info.name();
    cudalab::harness::set_current_test(name.c_str());
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  cudalab::harness::install_crash_reporter();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  listeners.Append(new CurrentTest);
  if (const double limit = cudalab::harness::test_time_limit(0); limit > 0) {
    listeners.Append(new cudalab::harness::TestWatchdog(limit, -1));
  }
  return RUN_ALL_TESTS();
}
