// main() of every lab's test program (test_labNN): GoogleTest as usual, plus
// a crash report that names the test, so that a crash in student code reads
// as words in ctest's output and in `./lab grade`'s results.json.
#include <gtest/gtest.h>

#include <string>

#include "cudalab/harness/crash_report.hpp"

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
  ::testing::UnitTest::GetInstance()->listeners().Append(new CurrentTest);
  return RUN_ALL_TESTS();
}
