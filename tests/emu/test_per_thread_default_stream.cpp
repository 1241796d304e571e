// Built as nvcc --default-stream per-thread builds code (the macro it
// defines), in a program of its own: stream 0 is then the calling host
// thread's default stream, which is ordered with the legacy default stream
// and with nothing else (docs/emulator.md, "The device model").
#define CUDA_API_PER_THREAD_DEFAULT_STREAM 1

#include <string>
#include <thread>

#include "emu_test_support.hpp"
#include "plain_streams.hpp"

namespace emu_tests {
namespace {

using cudalab::emu::Recording;
using cudalab::emu::ReportKind;

constexpr int kCount = 999;

class PerThreadDefaultStream : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaMalloc(&a_, kCount * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out_, sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&blocking_), cudaSuccess);
  }
  void TearDown() override {
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(blocking_), cudaSuccess);
    EXPECT_EQ(cudaFree(a_), cudaSuccess);
    EXPECT_EQ(cudaFree(out_), cudaSuccess);
  }
  float* a_ = nullptr;
  float* out_ = nullptr;
  cudaStream_t blocking_ = nullptr;
};

TEST_F(PerThreadDefaultStream, StreamZeroIsNotOrderedWithABlockingStream) {
  cudalab::emu::ScopedOptions scoped(quiet());
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, nullptr);
  plain_streams::sum(a_, kCount, out_, blocking_);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto* race = first_report(rec, ReportKind::stream_race);
  ASSERT_NE(race, nullptr) << "with the legacy default stream they would be ordered\n"
                           << rec.reports_text();
  EXPECT_NE(race->to_string().find("the per-thread default stream"), std::string::npos)
      << race->to_string();
}

TEST_F(PerThreadDefaultStream, TheLegacyStreamStillOrdersABlockingStream) {
  cudalab::emu::ScopedOptions scoped(quiet());
  Recording rec;
  plain_streams::fill(a_, kCount, 1.0f, cudaStreamLegacy);
  plain_streams::sum(a_, kCount, out_, blocking_);
  ASSERT_EQ(cudaStreamSynchronize(blocking_), cudaSuccess);
  float sum = 0;
  ASSERT_EQ(cudaMemcpy(&sum, out_, sizeof sum, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(sum, static_cast<float>(kCount));
  EXPECT_TRUE(rec.clean()) << rec.reports_text();
}

TEST_F(PerThreadDefaultStream, TwoHostThreadsStreamZerosAreNotOrdered) {
  cudalab::emu::ScopedOptions scoped(quiet());
  Recording rec;
  std::thread producer([&] { plain_streams::fill(a_, kCount, 1.0f, nullptr); });
  producer.join();
  plain_streams::sum(a_, kCount, out_, nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NE(first_report(rec, ReportKind::stream_race), nullptr)
      << "each thread's stream 0 is its own stream\n"
      << rec.reports_text();
}

}  // namespace
}  // namespace emu_tests
