// Spans from CUDA events recorded around work on streams:
//
//   EventTimeline timeline;
//   timeline.time(s, "s", "spin 1", [&] { spin(ms, s); });
//   const int begin = timeline.mark(t);  // or mark by hand
//   ...
//   timeline.span("t", "copy", begin, timeline.mark(t));
//   ...  // once the work has completed:
//   std::vector<EventSpan> spans = timeline.spans();
//
// Milliseconds from the earliest mark, by cudaEventElapsedTime: the GPU's
// clock, or the emulator's modelled one. The events are destroyed with the
// timeline. observe_timed runs such work observed and reads its spans back:
//
//   TimedObservation run;
//   observe_timed(run, [&](EventTimeline& timeline) { timeline.time(s, "s", "spin", ...); });
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/check.hpp"
#include "cudalab/harness/device_call.hpp"
#include "cudalab/harness/event_span.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab::harness {
inline namespace CUDALAB_BACKEND {

class EventTimeline {
 public:
  EventTimeline() = default;
  EventTimeline(const EventTimeline&) = delete;
  EventTimeline& operator=(const EventTimeline&) = delete;
  ~EventTimeline() {
    for (cudaEvent_t event : events_) static_cast<void>(cudaEventDestroy(event));
  }

  // Records a new event on `stream`; returns its number for span().
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

  // The span of what `enqueue` issues on `stream`, between a mark before and one after.
  template <class Enqueue>
  void time(cudaStream_t stream, std::string row, std::string name, Enqueue&& enqueue) {
    const int begin = mark(stream);
    enqueue();
    span(std::move(row), std::move(name), begin, mark(stream));
  }

  std::vector<EventSpan> spans() const {
    std::vector<double> at(events_.size());
    double earliest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < events_.size(); ++i) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events_[0], events_[i]));
      at[i] = ms;
      earliest = std::min(earliest, at[i]);
    }
    std::vector<EventSpan> result;
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

// Runs `issue(timeline)`, which queues work on streams and times it on
// `timeline`, observed (observe_call: the device synchronised, and on the
// emulator the race checker's reports); when it ran, reads the spans back
// into `into` (spans of a failed call would time work that never ran).
template <class Issue>
void observe_timed(TimedObservation& into, Issue&& issue) {
  EventTimeline timeline;
  into.observation = observe_call({}, {}, [&] { issue(timeline); });
  if (into.observation.failed()) return;
  into.spans = timeline.spans();
  into.total_ms = total_ms(into.spans);
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab::harness
