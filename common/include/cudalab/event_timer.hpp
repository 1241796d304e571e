// Timing GPU work.
//
//   EventTimer timer;
//   timer.start();
//   launch(kernel, shape, ...);
//   timer.stop();
//   double ms = timer.elapsed_ms();     // GPU time between the two marks
//
//   double ms = time_median_ms([&] { launch(kernel, shape, ...); },
//                              /*warmup=*/3, /*repeats=*/20);
//
// On the GPU the marks are CUDA events recorded in a stream, so the time is
// what the GPU spent, not what the host waited. On the emulator the timer
// reads the host's steady clock after waiting for all earlier work
// (cudaDeviceSynchronize), so it measures the emulator's wall time: useful to
// compare versions on the emulator, meaningless as a GPU figure.
#pragma once

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {

// The median of `samples_ms`: robust against the odd slow repeat (a clock
// change, another process) that would skew a mean. Throws for no samples.
inline double median(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("median: no samples");
  const auto middle = samples_ms.begin() + samples_ms.size() / 2;
  std::nth_element(samples_ms.begin(), middle, samples_ms.end());
  if (samples_ms.size() % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(samples_ms.begin(), middle);
  return (lower + upper) / 2;
}

inline namespace CUDALAB_BACKEND {

#if CUDALAB_GPU

class EventTimer {
 public:
  EventTimer() {
    CUDA_CHECK(cudaEventCreate(&start_));
    try {
      CUDA_CHECK(cudaEventCreate(&stop_));
    } catch (...) {
      static_cast<void>(cudaEventDestroy(start_));
      throw;
    }
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    static_cast<void>(cudaEventDestroy(start_));
    static_cast<void>(cudaEventDestroy(stop_));
  }

  void start(cudaStream_t stream = nullptr) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream = nullptr) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }

  // Waits for the stop mark, then returns the milliseconds between the marks.
  double elapsed_ms() const {
    CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

#else

// The emulator's stand-in: host wall time between synchronised marks. The
// stream argument is accepted for the same call syntax; all work is waited for.
class EventTimer {
 public:
  void start(cudaStream_t /*stream*/ = nullptr) {
    CUDA_CHECK(cudaDeviceSynchronize());
    start_ = std::chrono::steady_clock::now();
  }
  void stop(cudaStream_t /*stream*/ = nullptr) {
    CUDA_CHECK(cudaDeviceSynchronize());
    stop_ = std::chrono::steady_clock::now();
  }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(stop_ - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point stop_{};
};

#endif

// Runs `work` `warmup` times untimed (first-launch costs, caches, clocks),
// then `repeats` times each timed on its own, and returns the median in ms.
// `work` must only enqueue work on `stream`.
template <class Work>
double time_median_ms(Work&& work, int warmup, int repeats, cudaStream_t stream = nullptr) {
  if (warmup < 0 || repeats < 1) {
    throw std::invalid_argument("time_median_ms: need warmup >= 0 and repeats >= 1, got warmup " +
                                std::to_string(warmup) + " and repeats " + std::to_string(repeats));
  }
  for (int i = 0; i < warmup; ++i) work();
  EventTimer timer;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(repeats));
  for (int i = 0; i < repeats; ++i) {
    timer.start(stream);
    work();
    timer.stop(stream);
    samples.push_back(timer.elapsed_ms());
  }
  return median(std::move(samples));
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
