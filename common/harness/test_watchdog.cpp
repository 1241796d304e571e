#include "cudalab/harness/test_watchdog.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "cudalab/emu/lab_code_place.hpp"
#include "cudalab/emu/running_threads.hpp"

namespace cudalab::harness {
namespace {

std::string triple(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace

double test_time_limit(double fallback) {
  if (const char* text = std::getenv("CUDALAB_TEST_TIMEOUT_S")) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && *end == '\0' && seconds > 0) return seconds;
  }
  return fallback;
}

std::string describe_stuck_test(const std::string& test, double seconds) {
  std::string text = "test " + test + " was stopped after " + seconds_text(seconds) +
                     " s, the limit per test (CUDALAB_TEST_TIMEOUT_S or ./lab run's "
                     "--test-timeout changes it).";
  const auto running = emu::sample_running_threads();
  if (running.empty()) {
    return text +
           "\nNo emulated kernel was running at that moment: the time went in host code (a "
           "test's own work, or a kernel on the GPU that never ends).";
  }
  std::set<std::string> seen;
  std::size_t shown = 0;
  for (const auto& r : running) {
    const std::string place = emu::lab_code_place(r.stack);
    std::string line = "\nIn kernel " + r.kernel + ", block " + triple(r.block) + " thread " +
                       triple(r.thread) + " is still running" +
                       (place.empty() ? std::string() : " at " + place) +
                       ": a loop whose condition never changes?";
    std::string block = "\n  Its block's " + std::to_string(r.block_threads) +
                        (r.block_threads == 1 ? " thread: " : " threads: ");
    block += std::to_string(r.at_barrier) + " wait at a barrier" +
             (r.barrier_site.empty() ? std::string()
                                     : " (" + emu::short_source_path(r.barrier_site) + ")") +
             ", " + std::to_string(r.in_warp_op) + " in warp collectives, " +
             (r.at_mbarrier == 0 ? std::string()
                                 : std::to_string(r.at_mbarrier) + " wait on an mbarrier, ") +
             std::to_string(r.finished) + " finished, " + std::to_string(r.not_started) +
             " not started (the emulator runs a block's threads one at a time between "
             "barriers, so one that never leaves its loop holds up the rest).";
    if (!seen.insert(r.kernel + place).second) continue;
    if (++shown > 4) {
      text += "\n(and more workers in the same kernel)";
      break;
    }
    text += line + block;
  }
  return text;
}

TestWatchdog::TestWatchdog(double seconds, int report_fd)
    : limit_(seconds), report_fd_(report_fd), thread_([this] { watch(); }) {}

TestWatchdog::~TestWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void TestWatchdog::OnTestStart(const ::testing::TestInfo& info) {
  std::lock_guard lock(mutex_);
  test_ = std::string(info.test_suite_name()) + "." + info.name();
  started_ = std::chrono::steady_clock::now();
  wake_.notify_all();
}

void TestWatchdog::OnTestEnd(const ::testing::TestInfo&) {
  std::lock_guard lock(mutex_);
  test_.clear();
}

void TestWatchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (test_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const auto deadline =
        started_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(limit_);
    const std::string test = test_;
    if (wake_.wait_until(lock, deadline) != std::cv_status::timeout) continue;
    if (stopping_ || test_ != test || std::chrono::steady_clock::now() < deadline) continue;
    // Still the same test, past its limit.
    lock.unlock();
    const std::string words = describe_stuck_test(test, limit_.count());
    const std::string banner = "\n*** timed out: " + words + "\n";
    if (write(STDERR_FILENO, banner.data(), banner.size()) < 0) std::perror("watchdog");
    if (report_fd_ >= 0) {
      const std::string json = nlohmann::json{{"timeout", words}, {"test", test}}.dump(
                                   -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                               "\n";
      if (write(report_fd_, json.data(), json.size()) < 0) std::perror("watchdog");
    }
    _exit(kTimedOutStatus);
  }
}

}  // namespace cudalab::harness
