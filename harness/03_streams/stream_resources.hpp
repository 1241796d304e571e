// What lab 03's harness holds while an experiment runs, released at its end
// (page-locked host memory, spinning slots; streams and events are
// cudalab/stream_handles.hpp's), and the event timeline that turns CUDA
// events into spans. Compiled by each backend inside its inline
// namespace CUDALAB_BACKEND.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "cudalab/check.hpp"
#include "cudalab/device_buffer.hpp"
#include "cudalab/kernel.hpp"
#include "cudalab/stream_handles.hpp"
#include "given/stream_kernels.cuh"

namespace lab03::harness {
inline namespace CUDALAB_BACKEND {

using cudalab::is_default_stream;
using cudalab::OwnedEvent;
using cudalab::OwnedStream;

// Host memory for `count` floats: page-locked (cudaMallocHost) or, for
// comparison, ordinary pageable memory.
class HostFloats {
 public:
  HostFloats(std::size_t count, bool pinned) : count_(count), pinned_(pinned) {
    if (pinned) {
      CUDA_CHECK(cudaMallocHost(&data_, std::max<std::size_t>(count, 1) * sizeof(float)));
    } else {
      pageable_.resize(std::max<std::size_t>(count, 1));
      data_ = pageable_.data();
    }
  }
  HostFloats(const HostFloats&) = delete;
  HostFloats& operator=(const HostFloats&) = delete;
  ~HostFloats() {
    if (pinned_) static_cast<void>(cudaFreeHost(data_));
  }
  float* data() { return data_; }
  std::size_t size() const { return count_; }

 private:
  float* data_ = nullptr;
  std::size_t count_ = 0;
  bool pinned_ = true;
  std::vector<float> pageable_;
};

// Launches spins (stream_kernels.cuh), each with a slot of its own in a
// device buffer allocated up front (a cudaMalloc during an experiment would
// synchronise it).
class Spinner {
 public:
  Spinner() : slots_(kSlots) {}
  void operator()(double ms, cudaStream_t stream) {
    spin_kernel<<<1, 1, 0, stream>>>(static_cast<long long>(ms * 1e6),
                                     slots_.data() + next_++ % kSlots);
  }

 private:
  static constexpr std::size_t kSlots = 4096;
  cudalab::DeviceBuffer<unsigned long long> slots_;
  std::size_t next_ = 0;
};

// Spans from events recorded around work on streams:
//   const int begin = timeline.mark(s);  spin(ms, s);  timeline.span("s", "spin 1", begin,
//   timeline.mark(s));
// spans() after the work has completed: milliseconds from the earliest
// mark (cudaEventElapsedTime: the GPU's clock, or the emulator's modelled one).
class EventTimeline {
 public:
  EventTimeline() = default;
  EventTimeline(const EventTimeline&) = delete;
  EventTimeline& operator=(const EventTimeline&) = delete;
  ~EventTimeline() {
    for (cudaEvent_t event : events_) static_cast<void>(cudaEventDestroy(event));
  }

  int mark(cudaStream_t stream) {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreate(&event));
    events_.push_back(event);
    CUDA_CHECK(cudaEventRecord(event, stream));
    return static_cast<int>(events_.size()) - 1;
  }

  void span(std::string row, std::string name, int begin_mark, int end_mark) {
    pending_.push_back({std::move(row), std::move(name), begin_mark, end_mark});
  }

  std::vector<Span> spans() const {
    std::vector<double> at(events_.size());
    double earliest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < events_.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[i]));
      at[i] = ms;
      earliest = std::min(earliest, at[i]);
    }
    std::vector<Span> result;
    for (const Pending& p : pending_) {
      result.push_back({p.row, p.name, at[p.begin] - earliest, at[p.end] - earliest});
    }
    return result;
  }

 private:
  struct Pending {
    std::string row, name;
    int begin = 0, end = 0;
  };
  std::vector<cudaEvent_t> events_;
  std::vector<Pending> pending_;
};

// First start to last end of `spans` (0 for none).
inline double total_ms(const std::vector<Span>& spans) {
  if (spans.empty()) return 0;
  double first = spans.front().start_ms, last = spans.front().end_ms;
  for (const Span& s : spans) {
    first = std::min(first, s.start_ms);
    last = std::max(last, s.end_ms);
  }
  return last - first;
}

}  // namespace CUDALAB_BACKEND
}  // namespace lab03::harness
