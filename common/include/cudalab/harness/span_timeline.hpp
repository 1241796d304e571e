// Spans measured by CUDA events (event_span.hpp) as a result file's
// timeline (results.hpp), for a benchmark to record what ran when:
//
//   run.result().add_timeline(timeline_of("4 streams", pipeline.spans, "chunk"));
//
// Backend-free.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "cudalab/harness/event_span.hpp"
#include "cudalab/results.hpp"

namespace cudalab::harness {

// One row per EventSpan::row, in the order the rows first appear, each span
// of kind `kind` ("kernel", "chunk", ...).
inline Timeline timeline_of(const std::string& name, const std::vector<EventSpan>& spans,
                            const std::string& kind) {
  Timeline timeline{name, {}};
  for (const EventSpan& span : spans) {
    auto row = std::find_if(timeline.rows.begin(), timeline.rows.end(),
                            [&](const TimelineRow& r) { return r.name == span.row; });
    if (row == timeline.rows.end()) row = timeline.rows.insert(row, {span.row, {}});
    row->spans.push_back({span.name, span.start_ms, span.end_ms, kind});
  }
  return timeline;
}

}  // namespace cudalab::harness
