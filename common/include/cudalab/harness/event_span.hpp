// One interval of work on a stream, as CUDA events measured it, and a call
// observed with the spans of its work: what an experiment with streams
// reports (lab 03) and its tests compare. Backend-free;
// cudalab/harness/event_timeline.hpp records them (observe_timed).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"

namespace cudalab::harness {

struct EventSpan {
  std::string row;      // the stream: "s", "default", "stream 2", ...
  std::string name;     // "spin 1", "chunk 3", ...
  double start_ms = 0;  // from the experiment's earliest event
  double end_ms = 0;
};

// First start to last end of `spans` (0 for none).
inline double total_ms(const std::vector<EventSpan>& spans) {
  if (spans.empty()) return 0;
  double first = spans.front().start_ms, last = spans.front().end_ms;
  for (const EventSpan& s : spans) {
    first = std::min(first, s.start_ms);
    last = std::max(last, s.end_ms);
  }
  return last - first;
}

// A call whose work on streams was timed: how it went (on the emulator, the
// race checker's reports among them) and, when it ran, its spans in the
// order they were issued and their total.
struct TimedObservation {
  Observation observation;
  std::vector<EventSpan> spans;
  double total_ms = 0;  // first start to last end
};

}  // namespace cudalab::harness
