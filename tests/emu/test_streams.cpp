// The device model: streams, events and async copies queued and run at the
// host's synchronisation points in the scheduler's order, and the race
// checker between streams (docs/emulator.md, "The device model").
#include <cmath>
#include <string>
#include <vector>

#include "cudalab/emu/timeline.hpp"
#include "emu_test_support.hpp"
#include "plain_streams.hpp"
#include "schedules.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

constexpr int kCount = 1024;

void CUDART_CB append(void* data) { static_cast<std::vector<int>*>(data)->push_back(1); }

// Device memory and streams of one test, released at its end.
class StreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaMalloc(&a_, kCount * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out_, sizeof(float)), cudaSuccess);
  }
  void TearDown() override {
    for (cudaStream_t s : streams_) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    for (cudaEvent_t e : events_) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaFree(a_), cudaSuccess);
    EXPECT_EQ(cudaFree(out_), cudaSuccess);
  }
  cudaStream_t stream(unsigned flags) {
    cudaStream_t s = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    streams_.push_back(s);
    return s;
  }
  cudaEvent_t event(unsigned flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    EXPECT_EQ(cudaEventCreateWithFlags(&e, flags), cudaSuccess);
    events_.push_back(e);
    return e;
  }
  float result_after(cudaStream_t s) {
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    float h = 0;
    EXPECT_EQ(cudaMemcpy(&h, out_, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

  float* a_ = nullptr;
  float* out_ = nullptr;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
};

// The lecture's example: A is produced on the default stream and summed on
// a side stream that does not synchronise with it (PyTorch's side streams
// are non-blocking).
TEST_F(StreamsTest, UnorderedProducerAndConsumerRaceOnEverySchedule) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "3", "42", "12345"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudaStream_t side = stream(cudaStreamNonBlocking);
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, nullptr);
    plain_streams::sum(a_, kCount, out_, side);
    result_after(side);
    const auto* race = first_report(rec, ReportKind::stream_race);
    ASSERT_NE(race, nullptr) << rec.reports_text();
    const std::string text = race->to_string();
    EXPECT_NE(text.find("fill_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("sum_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("the legacy default stream"), std::string::npos) << text;
    EXPECT_NE(text.find("(non-blocking)"), std::string::npos) << text;
    EXPECT_NE(text.find("issued at emu/plain_streams.cpp:"), std::string::npos)
        << "the launches' lines\n"
        << text;
    EXPECT_EQ(race->allocation_base, reinterpret_cast<std::uintptr_t>(a_));
    EXPECT_GE(race->address, race->allocation_base);
    EXPECT_LT(race->address, race->allocation_base + kCount * sizeof(float));
    EXPECT_FALSE(rec.clean());
  }
}

TEST_F(StreamsTest, AnEventWaitOrdersTheConsumerAfterTheProducer) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "3", "42", "12345"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudaStream_t side = stream(cudaStreamNonBlocking);
    cudaEvent_t filled = event(cudaEventDisableTiming);
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, nullptr);
    ASSERT_EQ(cudaEventRecord(filled, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(side, filled, 0), cudaSuccess);
    plain_streams::sum(a_, kCount, out_, side);
    EXPECT_EQ(result_after(side), static_cast<float>(kCount));
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
  }
}

TEST_F(StreamsTest, TheAdversarialScheduleRunsTheConsumerFirstAndFifoDoesNot) {
  cudaStream_t side = stream(cudaStreamNonBlocking);
  {
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, nullptr);
    plain_streams::sum(a_, kCount, out_, side);
    EXPECT_TRUE(std::isnan(result_after(side))) << "the sum should see A's fresh 0xff bytes";
    ASSERT_EQ(rec.launches().size(), 2u);
    EXPECT_NE(rec.launches()[0].kernel.find("sum_kernel"), std::string::npos);
  }
  ASSERT_EQ(cudaMemset(a_, 0xff, kCount * sizeof(float)), cudaSuccess);
  {
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule("fifo"));
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, nullptr);
    plain_streams::sum(a_, kCount, out_, side);
    // Both run here, in issue order; a synchronisation with `side` alone
    // would run the sum only (the fill is not ordered before it).
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(result_after(side), static_cast<float>(kCount));
    ASSERT_EQ(rec.launches().size(), 2u);
    EXPECT_NE(rec.launches()[0].kernel.find("fill_kernel"), std::string::npos);
  }
}

TEST_F(StreamsTest, ABlockingStreamWaitsForTheLegacyDefaultStream) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t blocking = stream(cudaStreamDefault);
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, nullptr);
  plain_streams::sum(a_, kCount, out_, blocking);
  EXPECT_EQ(result_after(blocking), static_cast<float>(kCount));
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
}

TEST_F(StreamsTest, TheLegacyDefaultStreamWaitsForABlockingStream) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t blocking = stream(cudaStreamDefault);
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, blocking);
  plain_streams::sum(a_, kCount, out_, nullptr);
  EXPECT_EQ(result_after(nullptr), static_cast<float>(kCount));
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
}

TEST_F(StreamsTest, ThePerThreadDefaultStreamSynchronisesWithTheLegacyOneOnly) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t blocking = stream(cudaStreamDefault);
  {
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, nullptr);
    plain_streams::sum(a_, kCount, out_, cudaStreamPerThread);
    EXPECT_EQ(result_after(cudaStreamPerThread), static_cast<float>(kCount));
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
  }
  {
    Recording rec;
    plain_streams::fill(a_, kCount, 2.0f, cudaStreamPerThread);
    plain_streams::sum(a_, kCount, out_, blocking);
    result_after(blocking);
    const auto* race = first_report(rec, ReportKind::stream_race);
    ASSERT_NE(race, nullptr) << rec.reports_text();
    EXPECT_NE(race->to_string().find("per-thread default stream"), std::string::npos);
  }
}

TEST_F(StreamsTest, AWaitBindsToTheRecordMadeBeforeIt) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t producer = stream(cudaStreamNonBlocking);
  cudaStream_t consumer = stream(cudaStreamNonBlocking);
  cudaEvent_t e = event();
  float* b = nullptr;
  ASSERT_EQ(cudaMalloc(&b, kCount * sizeof(float)), cudaSuccess);
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, producer);
  ASSERT_EQ(cudaEventRecord(e, producer), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(consumer, e, 0), cudaSuccess);
  // Recorded again after the wait: the wait still means the first record.
  plain_streams::fill(b, kCount, 2.0f, producer);
  ASSERT_EQ(cudaEventRecord(e, producer), cudaSuccess);
  plain_streams::sum(a_, kCount, out_, consumer);  // ordered after the first fill
  EXPECT_EQ(result_after(consumer), static_cast<float>(kCount));
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
  plain_streams::fill(b, kCount, 3.0f, producer);
  ASSERT_EQ(cudaEventRecord(e, producer), cudaSuccess);
  plain_streams::sum(b, kCount, out_, consumer);  // the wait above does not cover this fill
  // The fill runs (and the race shows) once something waits for it.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NE(first_report(rec, ReportKind::stream_race), nullptr) << rec.reports_text();
  ASSERT_EQ(cudaFree(b), cudaSuccess);
}

TEST_F(StreamsTest, WaitingForANeverRecordedEventIsNoWait) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t side = stream(cudaStreamNonBlocking);
  cudaEvent_t never = event();
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, nullptr);
  ASSERT_EQ(cudaStreamWaitEvent(side, never, 0), cudaSuccess);
  plain_streams::sum(a_, kCount, out_, side);
  result_after(side);
  EXPECT_NE(first_report(rec, ReportKind::stream_race), nullptr) << rec.reports_text();
}

TEST_F(StreamsTest, ASynchronousCopyIsOrderedAfterBlockingStreamsOnly) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  std::vector<float> host(kCount);
  {
    cudaStream_t blocking = stream(cudaStreamDefault);
    Recording rec;
    plain_streams::fill(a_, kCount, 1.0f, blocking);
    ASSERT_EQ(cudaMemcpy(host.data(), a_, kCount * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(host[kCount - 1], 1.0f);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
  }
  {
    cudaStream_t non_blocking = stream(cudaStreamNonBlocking);
    Recording rec;
    plain_streams::fill(a_, kCount, 2.0f, non_blocking);
    ASSERT_EQ(cudaMemcpy(host.data(), a_, kCount * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_TRUE(rec.clean()) << "the copy did not wait for the non-blocking stream's fill";
    ASSERT_EQ(cudaStreamSynchronize(non_blocking), cudaSuccess);
    const auto* race = first_report(rec, ReportKind::stream_race);
    ASSERT_NE(race, nullptr) << rec.reports_text();
    EXPECT_NE(race->to_string().find("cudaMemcpy DtoH 4096 bytes"), std::string::npos)
        << race->to_string();
  }
}

TEST_F(StreamsTest, WithTheRaceCheckOffNothingIsReported) {
  cudalab::emu::Options o = quiet_with_schedule("adversarial");
  o.checks.races = false;
  cudalab::emu::ScopedOptions scoped(o);
  cudaStream_t side = stream(cudaStreamNonBlocking);
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, nullptr);
  plain_streams::sum(a_, kCount, out_, side);
  result_after(side);
  EXPECT_EQ(first_report(rec, ReportKind::stream_race), nullptr) << rec.reports_text();
  EXPECT_EQ(first_report(rec, ReportKind::stream_race_unchecked), nullptr) << rec.reports_text();
}

TEST(StreamsReset, ADeviceResetRunsTheQueueAndInvalidatesStreamsAndEvents) {
  cudaStream_t s = nullptr;
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  std::vector<int> calls;
  ASSERT_EQ(cudaLaunchHostFunc(s, append, &calls), cudaSuccess);
  ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  EXPECT_EQ(calls.size(), 1u);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(e, nullptr), cudaErrorInvalidResourceHandle);
  static_cast<void>(cudaGetLastError());
}

TEST_F(StreamsTest, AHostSynchronisationOrdersWhatFollowsIt) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t one = stream(cudaStreamNonBlocking);
  cudaStream_t two = stream(cudaStreamNonBlocking);
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, one);
  ASSERT_EQ(cudaStreamSynchronize(one), cudaSuccess);
  plain_streams::sum(a_, kCount, out_, two);
  EXPECT_EQ(result_after(two), static_cast<float>(kCount));
  float* scratch = nullptr;
  ASSERT_EQ(cudaMalloc(&scratch, 64), cudaSuccess);
  plain_streams::fill(a_, kCount, 2.0f, one);
  ASSERT_EQ(cudaFree(scratch), cudaSuccess);  // synchronises the device
  plain_streams::sum(a_, kCount, out_, two);
  EXPECT_EQ(result_after(two), 2.0f * kCount);
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
}

TEST_F(StreamsTest, WorkWaitsInItsQueueUntilTheHostSynchronises) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("fifo"));
  cudaStream_t s = stream(cudaStreamNonBlocking);
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, kCount * sizeof(float)), cudaSuccess);
  for (int i = 0; i < kCount; ++i) pinned[i] = -5.0f;
  plain_streams::fill(a_, kCount, 7.0f, s);
  ASSERT_EQ(cudaMemcpyAsync(pinned, a_, kCount * sizeof(float), cudaMemcpyDeviceToHost, s),
            cudaSuccess);
  EXPECT_EQ(pinned[0], -5.0f) << "an async copy to pinned memory returns before it runs";
  // The first query finds the work unfinished (and runs it); the next finds it done.
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
  EXPECT_EQ(pinned[0], 7.0f);
  EXPECT_EQ(pinned[kCount - 1], 7.0f);
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

// A polling loop ends, and a query on finished work does not say not ready.
TEST_F(StreamsTest, AQueryAnswersNotReadyOnceForWorkTheHostHasNotSeenFinish) {
  cudaStream_t s = stream(cudaStreamNonBlocking);
  cudaEvent_t e = event();
  plain_streams::fill(a_, kCount, 7.0f, s);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  int polls = 0;
  while (cudaEventQuery(e) == cudaErrorNotReady) ++polls;
  EXPECT_EQ(polls, 1);
  EXPECT_EQ(cudaStreamQuery(s), cudaSuccess) << "the event's success ordered the host after it";
  plain_streams::fill(a_, kCount, 8.0f, s);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cudaSuccess) << "the host waited for it";
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);
  cudaGetLastError();
}

TEST_F(StreamsTest, AnAsyncCopyToPageableMemoryIsSynchronous) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t s = stream(cudaStreamNonBlocking);
  std::vector<float> pageable(kCount, -5.0f);
  plain_streams::fill(a_, kCount, 7.0f, s);
  ASSERT_EQ(cudaMemcpyAsync(pageable.data(), a_, kCount * sizeof(float), cudaMemcpyDeviceToHost, s),
            cudaSuccess);
  EXPECT_EQ(pageable[0], 7.0f);
  EXPECT_EQ(pageable[kCount - 1], 7.0f);
}

TEST_F(StreamsTest, AnAsyncCopyAndAMemsetRaceWithAKernelOnAnotherStream) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("3"));
  cudaStream_t one = stream(cudaStreamNonBlocking);
  cudaStream_t two = stream(cudaStreamNonBlocking);
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, kCount * sizeof(float)), cudaSuccess);
  Recording rec;
  ASSERT_EQ(cudaMemcpyAsync(a_, pinned, kCount * sizeof(float), cudaMemcpyHostToDevice, one),
            cudaSuccess);
  plain_streams::sum(a_, kCount, out_, two);
  ASSERT_EQ(cudaMemsetAsync(out_, 0, sizeof(float), one), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::string> texts;
  for (const auto& r : rec.reports()) {
    if (r.kind == ReportKind::stream_race) texts.push_back(r.to_string());
  }
  ASSERT_EQ(texts.size(), 2u) << rec.reports_text();
  const std::string all = texts[0] + texts[1];
  EXPECT_NE(all.find("cudaMemcpyAsync HtoD 4096 bytes"), std::string::npos) << all;
  EXPECT_NE(all.find("cudaMemsetAsync 4 bytes"), std::string::npos) << all;
  EXPECT_NE(all.find("test_streams.cpp"), std::string::npos) << "the host call site\n" << all;
  ASSERT_EQ(cudaFreeHost(pinned), cudaSuccess);
}

TEST_F(StreamsTest, AKernelFaultOnAStreamComesBackAtTheNextSynchronisation) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t s = stream(cudaStreamNonBlocking);
  static_cast<void>(cudaGetLastError());         // what earlier tests left
  plain_streams::fill(a_, kCount + 1, 1.0f, s);  // one element past the end
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "queued: nothing ran yet";
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
}

TEST_F(StreamsTest, ElapsedTimeReadsTheModelledClock) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t s = stream(cudaStreamNonBlocking);
  cudaEvent_t start = event(), stop = event(), untimed = event(cudaEventDisableTiming);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  plain_streams::fill(a_, kCount, 1.0f, s);  // 4 blocks of 256 threads
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(untimed, s), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventQuery(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_NEAR(ms, (2.0 + 1e-5 * kCount) / 1000.0, 1e-6);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

constexpr std::uint64_t kSpinNs = 20'000'000;  // the lecture's 20 ms spins
constexpr double kSpinMs = 20.0;

// Milliseconds between two events, once their work ran.
float elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
  EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  return ms;
}

TEST_F(StreamsTest, ASpinOnTheGlobalTimerLastsItsTimeOnTheModelledClock) {
  cudaStream_t s = stream(cudaStreamNonBlocking);
  cudaEvent_t start = event(), stop = event();
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  plain_streams::spin(kSpinNs, s);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  EXPECT_NEAR(elapsed_ms(start, stop), kSpinMs, 0.01);
  // Without __nanosleep the timer reads alone move the thread on.
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  plain_streams::spin_on_the_timer_alone(kSpinNs / 100, s);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  EXPECT_NEAR(elapsed_ms(start, stop), kSpinMs / 100, 0.01);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  plain_streams::sleep(1'000'000, s);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  EXPECT_NEAR(elapsed_ms(start, stop), 1.0, 0.01);
}

TEST(StreamsFastPath, EventsAroundAKernelRunAtOnceMeasureItOnTheModelledClock) {
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&stop), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start), cudaSuccess);
  plain_streams::spin(kSpinNs, nullptr);
  ASSERT_EQ(cudaEventRecord(stop), cudaSuccess);
  EXPECT_NEAR(elapsed_ms(start, stop), kSpinMs, 0.01);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
}

// The lecture's three spins (s, the default stream, s), timed from before
// the first to after all three: the legacy default stream serialises them
// with a blocking s; a non-blocking s overlaps its first spin with the
// default stream's.
TEST_F(StreamsTest, ThreeSpinsTakeSixtyMsWithABlockingStreamAndFortyWithANonBlockingOne) {
  for (const unsigned flags : {cudaStreamDefault, cudaStreamNonBlocking}) {
    cudaStream_t s = stream(flags);
    cudaEvent_t start = event(), stop = event();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
    plain_streams::spin(kSpinNs, s);
    plain_streams::spin(kSpinNs, nullptr);
    plain_streams::spin(kSpinNs, s);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
    EXPECT_NEAR(elapsed_ms(start, stop), flags == cudaStreamDefault ? 3 * kSpinMs : 2 * kSpinMs,
                0.1)
        << "stream flags " << flags;
  }
}

TEST_F(StreamsTest, TheModelledTimelineHasARowPerStreamAndShowsTheOverlap) {
  cudaStream_t s = stream(cudaStreamNonBlocking);
  cudalab::emu::start_modelled_timeline();
  plain_streams::spin(kSpinNs, s);
  plain_streams::spin(kSpinNs, nullptr);
  plain_streams::spin(kSpinNs, s);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const cudalab::Timeline t = cudalab::emu::take_modelled_timeline("three spins");
  EXPECT_EQ(t.name, "three spins");
  ASSERT_EQ(t.rows.size(), 2u);
  const cudalab::TimelineRow* side = nullptr;
  const cudalab::TimelineRow* legacy = nullptr;
  for (const auto& row : t.rows) {
    (row.name == "the legacy default stream" ? legacy : side) = &row;
  }
  ASSERT_NE(legacy, nullptr);
  ASSERT_NE(side, nullptr);
  EXPECT_NE(side->name.find("(non-blocking)"), std::string::npos) << side->name;
  ASSERT_EQ(side->spans.size(), 2u);
  ASSERT_EQ(legacy->spans.size(), 1u);
  for (const auto* span : {&side->spans[0], &side->spans[1], &legacy->spans[0]}) {
    EXPECT_EQ(span->kind, "kernel");
    EXPECT_NE(span->name.find("spin_kernel"), std::string::npos) << span->name;
    EXPECT_NEAR(span->end_ms - span->start_ms, kSpinMs, 0.01);
  }
  EXPECT_NEAR(side->spans[0].start_ms, 0.0, 1e-9);
  EXPECT_NEAR(legacy->spans[0].start_ms, 0.0, 0.01) << "overlaps the first spin on s";
  EXPECT_NEAR(side->spans[1].start_ms, side->spans[0].end_ms, 1e-9);
  const cudalab::Timeline empty = cudalab::emu::take_modelled_timeline("not collecting");
  EXPECT_TRUE(empty.rows.empty());
}

// The spans a timeline row holds whose name contains `what`.
std::vector<const cudalab::Span*> spans_named(const cudalab::Timeline& t, const std::string& what) {
  std::vector<const cudalab::Span*> found;
  for (const auto& row : t.rows) {
    for (const auto& span : row.spans) {
      if (span.name.find(what) != std::string::npos) found.push_back(&span);
    }
  }
  return found;
}

TEST_F(StreamsTest, TheModelledTimelineHasEventWaitsAsArrowsAndRacesMarked) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t producer = stream(cudaStreamNonBlocking);
  cudaStream_t consumer = stream(cudaStreamNonBlocking);
  cudaEvent_t filled = event(cudaEventDisableTiming);
  cudalab::emu::start_modelled_timeline();
  plain_streams::fill(a_, kCount, 1.0f, producer);
  ASSERT_EQ(cudaEventRecord(filled, producer), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(consumer, filled, 0), cudaSuccess);
  plain_streams::sum(a_, kCount, out_, consumer);  // ordered: an arrow
  float* b = nullptr;
  ASSERT_EQ(cudaMalloc(&b, kCount * sizeof(float)), cudaSuccess);
  plain_streams::fill(b, kCount, 2.0f, producer);
  plain_streams::sum(b, kCount, out_, consumer);  // not ordered after the second fill: a race
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaFree(b), cudaSuccess);
  const cudalab::Timeline t = cudalab::emu::take_modelled_timeline("arrows and races");
  const auto fills = spans_named(t, "fill_kernel");
  const auto sums = spans_named(t, "sum_kernel");
  ASSERT_EQ(fills.size(), 2u);
  ASSERT_EQ(sums.size(), 2u);
  ASSERT_GE(fills[0]->id, 0);
  EXPECT_EQ(sums[0]->after, std::vector<int>{fills[0]->id}) << "the event wait";
  EXPECT_TRUE(sums[0]->race.empty()) << sums[0]->race;
  EXPECT_TRUE(sums[1]->after.empty()) << "no new ordering";
  EXPECT_FALSE(fills[1]->race.empty());
  EXPECT_EQ(fills[1]->race, sums[1]->race) << "both spans carry the one report";
  EXPECT_NE(sums[1]->race.find("Race between streams"), std::string::npos) << sums[1]->race;
  EXPECT_TRUE(fills[0]->race.empty()) << fills[0]->race;
}

TEST_F(StreamsTest, ADestroyedStreamIsAnInvalidHandle) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaMemsetAsync(a_, 0, 4, s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
}

TEST_F(StreamsTest, AHostFunctionRunsInItsStreamsOrder) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("adversarial"));
  cudaStream_t s = stream(cudaStreamNonBlocking);
  std::vector<int> calls;
  ASSERT_EQ(cudaLaunchHostFunc(s, append, &calls), cudaSuccess);
  EXPECT_TRUE(calls.empty());
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(calls.size(), 1u);
}

// Not instrumented (this file is rewritten, so the launch below works, but
// compiled without cudalab_emu_instrument): its accesses are not traced.
__global__ void untraced_fill(float* a) { a[threadIdx.x] = 1.0f; }

TEST_F(StreamsTest, AnUntracedKernelIsReportedAsUncheckedNotAsClean) {
  cudalab::emu::ScopedOptions scoped(quiet_with_schedule("fifo"));
  cudaStream_t one = stream(cudaStreamNonBlocking);
  cudaStream_t two = stream(cudaStreamNonBlocking);
  Recording rec;
  untraced_fill<<<dim3(1), dim3(32), 0, one>>>(a_);
  plain_streams::sum(a_, kCount, out_, two);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_report(rec, ReportKind::stream_race), nullptr) << rec.reports_text();
  const auto* unchecked = first_report(rec, ReportKind::stream_race_unchecked);
  ASSERT_NE(unchecked, nullptr) << rec.reports_text();
  EXPECT_NE(unchecked->message.find("made no traced access"), std::string::npos)
      << unchecked->message;
}

TEST(StreamsFastPath, WithoutStreamsALaunchRunsBeforeTheCallReturns) {
  DeviceBuffer<float> a(kCount);
  Recording rec;
  plain_streams::fill(a.data(), kCount, 4.0f, nullptr);
  ASSERT_EQ(rec.launches().size(), 1u) << "no synchronisation was needed";
}

}  // namespace
}  // namespace emu_tests
