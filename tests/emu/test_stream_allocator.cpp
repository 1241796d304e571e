// Stream-ordered allocation on the emulator: cudaMallocAsync / cudaFreeAsync,
// reuse in stream order, and the use-after-free race that record_stream
// exists for (docs/emulator.md, "Stream-ordered allocation").
#include <string>
#include <vector>

#include "emu_test_support.hpp"
#include "plain_streams.hpp"
#include "schedules.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

constexpr int kCount = 1000;  // not a multiple of the kernels' 256-thread blocks
constexpr std::size_t kBytes = kCount * sizeof(float);

class StreamAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(cudaMalloc(&out_, sizeof(float)), cudaSuccess); }
  void TearDown() override {
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (cudaStream_t s : streams_) EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    for (cudaEvent_t e : events_) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
    EXPECT_EQ(cudaFree(out_), cudaSuccess);
  }
  cudaStream_t stream(unsigned flags = cudaStreamNonBlocking) {
    cudaStream_t s = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    streams_.push_back(s);
    return s;
  }
  cudaEvent_t event() {
    cudaEvent_t e = nullptr;
    EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    events_.push_back(e);
    return e;
  }
  float sum_after(cudaStream_t s) {
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    float h = 0;
    EXPECT_EQ(cudaMemcpy(&h, out_, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

  float* out_ = nullptr;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
};

TEST_F(StreamAllocatorTest, ABlockFreedOnAStreamIsReusedByThatStreamAtOnce) {
  cudaStream_t s = stream();
  float* a = nullptr;
  float* b = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&b, kBytes, s), cudaSuccess);
  EXPECT_EQ(a, b);
  plain_streams::fill(b, kCount, 1.0f, s);
  plain_streams::sum(b, kCount, out_, s);
  EXPECT_EQ(sum_after(s), static_cast<float>(kCount));
  EXPECT_EQ(cudaFreeAsync(b, s), cudaSuccess);
}

TEST_F(StreamAllocatorTest, AnotherStreamGetsTheBlockOnlyOnceOrderedAfterTheFree) {
  cudaStream_t s1 = stream(), s2 = stream();
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, s1), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, s1), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&b, kBytes, s2), cudaSuccess);
  EXPECT_NE(a, b) << "s2 is not ordered after the free on s1";
  cudaEvent_t freed = event();
  ASSERT_EQ(cudaEventRecord(freed, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, freed, 0), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&c, kBytes, s2), cudaSuccess);
  EXPECT_EQ(a, c) << "the event wait orders s2 after the free";
  EXPECT_EQ(cudaFreeAsync(b, s2), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(c, s2), cudaSuccess);
}

TEST_F(StreamAllocatorTest, AHostSynchronisationOrdersEveryStreamAfterTheFree) {
  cudaStream_t s1 = stream(), s2 = stream();
  float* a = nullptr;
  float* b = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, s1), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&b, kBytes, s2), cudaSuccess);
  EXPECT_EQ(a, b);
  EXPECT_EQ(cudaFreeAsync(b, s2), cudaSuccess);
}

// The lecture's record_stream hazard in the runtime API: A is produced on the
// default stream and summed on a side stream; the default stream frees A and
// its next allocation, B, gets A's block and is overwritten while the side
// stream may still be reading A.
TEST_F(StreamAllocatorTest, FreeingABlockAnotherStreamStillReadsIsAUseAfterFreeRace) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "3", "42", "12345"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudaStream_t side = stream();
    cudaEvent_t produced = event();
    Recording rec;
    float* a = nullptr;
    float* b = nullptr;
    ASSERT_EQ(cudaMallocAsync(&a, kBytes, nullptr), cudaSuccess);
    plain_streams::fill(a, kCount, 1.0f, nullptr);
    ASSERT_EQ(cudaEventRecord(produced, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(side, produced, 0), cudaSuccess);
    plain_streams::sum(a, kCount, out_, side);
    ASSERT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
    ASSERT_EQ(cudaMallocAsync(&b, kBytes, nullptr), cudaSuccess);
    EXPECT_EQ(a, b) << "the default stream reuses its own freed block at once";
    plain_streams::fill(b, kCount, 2.0f, nullptr);
    // Where the schedule runs the sum between the free and the reuse, its
    // reads of the freed block also fail the launch, as under compute-sanitizer.
    const cudaError_t synced = cudaDeviceSynchronize();
    EXPECT_TRUE(synced == cudaSuccess || synced == cudaErrorIllegalAddress)
        << cudaGetErrorName(synced);
    cudaGetLastError();
    const auto* report = first_report(rec, ReportKind::stream_use_after_free);
    ASSERT_NE(report, nullptr) << rec.reports_text();
    const std::string text = report->to_string();
    EXPECT_NE(text.find("cudaFreeAsync"), std::string::npos) << text;
    EXPECT_NE(text.find("sum_kernel"), std::string::npos) << text;
    EXPECT_NE(text.find("(non-blocking)"), std::string::npos) << text;
    EXPECT_NE(text.find("the legacy default stream"), std::string::npos) << text;
    EXPECT_NE(text.find("issued at emu/test_stream_allocator.cpp:"), std::string::npos)
        << "the cudaFreeAsync call's line\n"
        << text;
    EXPECT_EQ(report->address, reinterpret_cast<std::uintptr_t>(a));
    EXPECT_EQ(cudaFreeAsync(b, nullptr), cudaSuccess);
  }
}

// The fix record_stream makes: the freeing stream waits for the reader first.
TEST_F(StreamAllocatorTest, AnEventWaitBeforeTheFreeMakesTheReuseSafe) {
  for (const char* schedule : {"adversarial", "fifo", "1", "2", "3", "42", "12345"}) {
    SCOPED_TRACE(schedule);
    cudalab::emu::ScopedOptions scoped(quiet_with_schedule(schedule));
    cudaStream_t side = stream();
    cudaEvent_t produced = event(), consumed = event();
    Recording rec;
    float* a = nullptr;
    float* b = nullptr;
    ASSERT_EQ(cudaMallocAsync(&a, kBytes, nullptr), cudaSuccess);
    plain_streams::fill(a, kCount, 1.0f, nullptr);
    ASSERT_EQ(cudaEventRecord(produced, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(side, produced, 0), cudaSuccess);
    plain_streams::sum(a, kCount, out_, side);
    ASSERT_EQ(cudaEventRecord(consumed, side), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(nullptr, consumed, 0), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
    ASSERT_EQ(cudaMallocAsync(&b, kBytes, nullptr), cudaSuccess);
    EXPECT_EQ(a, b);
    plain_streams::fill(b, kCount, 2.0f, nullptr);
    EXPECT_EQ(sum_after(side), static_cast<float>(kCount));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(rec.clean()) << rec.reports_text();
    EXPECT_EQ(cudaFreeAsync(b, nullptr), cudaSuccess);
  }
}

TEST_F(StreamAllocatorTest, AKernelAfterTheFreeInItsOwnStreamIsAUseAfterFree) {
  cudalab::emu::ScopedOptions scoped(quiet());
  cudaStream_t s = stream();
  float* a = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
  Recording rec;
  plain_streams::fill(a, kCount, 1.0f, s);
  cudaStreamSynchronize(s);
  cudaGetLastError();
  EXPECT_TRUE(has_report(rec, ReportKind::use_after_free)) << rec.reports_text();
}

TEST_F(StreamAllocatorTest, AReusedBlockIsUnwrittenAgain) {
  cudalab::emu::ScopedOptions scoped(quiet());
  cudaStream_t s = stream();
  float* a = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, s), cudaSuccess);
  plain_streams::fill(a, kCount, 1.0f, s);
  ASSERT_EQ(cudaFreeAsync(a, s), cudaSuccess);
  float* b = nullptr;
  ASSERT_EQ(cudaMallocAsync(&b, kBytes, s), cudaSuccess);
  ASSERT_EQ(a, b);
  Recording rec;
  plain_streams::sum(b, kCount, out_, s);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(has_report(rec, ReportKind::uninitialized_read)) << rec.reports_text();
  EXPECT_EQ(cudaFreeAsync(b, s), cudaSuccess);
}

TEST(StreamAllocatorFastPath, WithoutStreamsTheDefaultStreamReusesItsBlocks) {
  float* a = nullptr;
  float* b = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, 1, nullptr), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMallocAsync(&b, 200, nullptr), cudaSuccess);
  EXPECT_EQ(a, b) << "1 and 200 bytes round to the same 256-byte class";
  ASSERT_EQ(cudaFree(b), cudaSuccess) << "cudaFree releases a stream-ordered block";
}

TEST(StreamAllocatorErrors, BadCallsAreRefusedAndChangeNothing) {
  float* a = nullptr;
  ASSERT_EQ(cudaMallocAsync(&a, kBytes, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMallocAsync(static_cast<void**>(nullptr), kBytes, nullptr), cudaErrorInvalidValue);
  cudaStream_t gone = nullptr;
  ASSERT_EQ(cudaStreamCreate(&gone), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(gone), cudaSuccess);
  float* b = nullptr;
  EXPECT_EQ(cudaMallocAsync(&b, kBytes, gone), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(cudaFreeAsync(a + 1, nullptr), cudaErrorInvalidValue) << "not the block's start";
  int on_the_host = 0;
  EXPECT_EQ(cudaFreeAsync(&on_the_host, nullptr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFreeAsync(a, nullptr), cudaSuccess);
  EXPECT_EQ(cudaFreeAsync(a, nullptr), cudaErrorInvalidValue) << "freed twice";
  EXPECT_EQ(cudaFree(a), cudaErrorInvalidValue) << "freed already";
  cudaGetLastError();
}

}  // namespace
}  // namespace emu_tests
