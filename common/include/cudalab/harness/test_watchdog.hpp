// A time limit per test that says where a stuck test is stuck: the test, the
// kernel, the student's file:line each emulator worker is executing, and how
// many threads of its block wait at a barrier, in warp collectives, on an
// mbarrier (when any do), have finished or never started. A loop that never ends then reads as such
// instead of as silence until an outer time-out kills the process.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace cudalab::harness {

// Seconds a test may run: $CUDALAB_TEST_TIMEOUT_S when set (a positive
// number), else `fallback`.
double test_time_limit(double fallback);

// The words of a time-out: what was running when `test` passed `seconds`.
std::string describe_stuck_test(const std::string& test, double seconds);

// Appended to GoogleTest's listeners. When a test runs past the limit it
// prints the description to stderr and, when report_fd is not negative,
// writes it there as one JSON line {"timeout": "...", "test": "..."}; then
// ends the process with exit status kTimedOutStatus.
class TestWatchdog : public ::testing::EmptyTestEventListener {
 public:
  static constexpr int kTimedOutStatus = 124;
  TestWatchdog(double seconds, int report_fd);
  ~TestWatchdog() override;

 private:
  void OnTestStart(const ::testing::TestInfo& info) override;
  void OnTestEnd(const ::testing::TestInfo& info) override;
  void watch();

  const std::chrono::duration<double> limit_;
  const int report_fd_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string test_;  // empty between tests
  std::chrono::steady_clock::time_point started_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace cudalab::harness
