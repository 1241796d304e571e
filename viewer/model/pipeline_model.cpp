#include "pipeline_model.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace cudalab::viewer {
namespace {

using emu::AsyncEvent;
using emu::AsyncEventKind;

std::string barrier_name(const std::vector<std::string>& names, int barrier) {
  if (barrier < 0) return "cuda::pipeline stages";
  if (static_cast<std::size_t>(barrier) < names.size()) return names[std::size_t(barrier)];
  return "barrier " + std::to_string(barrier);
}

// The lanes of one warp doing one thing (waiting on, or arriving on, one
// phase of one barrier): first and last event, and how many lanes.
struct WarpGroup {
  double first = 0, last = 0;
  unsigned lanes = 0;
};
using GroupKey = std::tuple<unsigned, bool, int, std::uint64_t>;  // warp, waits?, barrier, phase

// Spans of one warp in as few rows as they need without overlapping.
void add_warp_rows(Timeline& timeline, unsigned warp, std::vector<Span> spans) {
  std::vector<TimelineRow> rows = pack_rows(std::move(spans), "");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].name = "warp " + std::to_string(warp) + (r ? " (" + std::to_string(r + 1) + ")" : "");
    timeline.rows.push_back(std::move(rows[r]));
  }
}

}  // namespace

Timeline pipeline_timeline(const emu::LaunchRecord& launch, std::uint32_t block,
                           const std::vector<std::string>& barrier_names) {
  Timeline timeline;
  timeline.unit = "events";
  std::ostringstream title;
  title << launch.kernel << ", block " << block
        << ": x is the order the emulator ran the block's barrier and copy events";
  timeline.title = title.str();

  std::map<int, std::vector<Span>> barrier_spans;     // by barrier (-1: cuda::pipeline)
  std::map<std::uint32_t, const AsyncEvent*> issued;  // copies in flight, by number
  std::map<GroupKey, WarpGroup> groups;
  std::map<int, unsigned> counts;  // barrier -> its count of arrivals
  for (const AsyncEvent& e : launch.async_events) {
    if (e.block != block) continue;
    const double at = e.order;
    const std::string name = barrier_name(barrier_names, e.barrier);
    switch (e.kind) {
      case AsyncEventKind::barrier_init:
        counts[e.barrier] = static_cast<unsigned>(e.bytes);
        barrier_spans[e.barrier];
        break;
      case AsyncEventKind::copy_issue:
        issued[e.copy] = &e;
        break;
      case AsyncEventKind::copy_land: {
        const auto it = issued.find(e.copy);
        if (it == issued.end()) break;
        const AsyncEvent& from = *it->second;
        std::ostringstream s;
        s << "copy " << e.copy << ": " << e.bytes << " bytes to shared byte " << e.shared_offset
          << ", issued by thread " << from.thread << " (event " << from.order
          << "), landed at event " << e.order << (e.barrier >= 0 ? " for " : " in stage ")
          << (e.barrier >= 0 ? name + " phase " : "") << e.phase;
        Span span{s.str(), double(from.order), at + 1, kCopyInFlight};
        span.label = std::to_string(e.bytes) + " B";
        barrier_spans[e.barrier].push_back(std::move(span));
        issued.erase(it);
        break;
      }
      case AsyncEventKind::phase_complete: {
        std::ostringstream s;
        s << name << ": phase " << e.phase << " (parity " << (e.phase & 1)
          << ") completes at event " << e.order << "; its waiters run again";
        barrier_spans[e.barrier].push_back({s.str(), at, at + 1, kPhaseDone});
        break;
      }
      case AsyncEventKind::wait_begin:
      case AsyncEventKind::wait_end:
      case AsyncEventKind::arrive: {
        if (e.thread == emu::kNoThread) break;
        const bool waits = e.kind != AsyncEventKind::arrive;
        WarpGroup& g = groups[{e.thread / 32u, waits, e.barrier, e.phase}];
        if (g.lanes == 0 || at < g.first) g.first = at;
        g.last = std::max(g.last, at);
        if (e.kind != AsyncEventKind::wait_end) ++g.lanes;
        break;
      }
      default:
        break;
    }
  }
  for (auto& [barrier, spans] : barrier_spans) {
    std::string name = barrier_name(barrier_names, barrier);
    if (counts.count(barrier)) name += " (count " + std::to_string(counts[barrier]) + ")";
    timeline.rows.push_back({name, std::move(spans)});
  }
  std::map<unsigned, std::vector<Span>> warp_spans;
  for (const auto& [key, g] : groups) {
    const auto [warp, waits, barrier, phase] = key;
    std::ostringstream s;
    s << "warp " << warp << ": " << g.lanes << (g.lanes == 1 ? " lane " : " lanes ")
      << (waits ? "wait for " : "arrive on ") << barrier_name(barrier_names, barrier) << " phase "
      << phase << " (parity " << (phase & 1) << "), events " << g.first << " to " << g.last;
    warp_spans[warp].push_back({s.str(), g.first, g.last + 1, waits ? kWaiting : kArrivals});
  }
  for (auto& [warp, spans] : warp_spans) add_warp_rows(timeline, warp, std::move(spans));
  return timeline;
}

}  // namespace cudalab::viewer
