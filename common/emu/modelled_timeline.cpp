// What ran when on the modelled clock, as a result file's Timeline
// (cudalab/emu/timeline.hpp): while collecting, the scheduler adds one entry
// per operation that ran and one per race reported; take_modelled_timeline
// turns them into rows per stream, spans with their dependency arrows, and
// the race each span took part in.
#include <algorithm>
#include <limits>
#include <map>

#include "cudalab/emu/timeline.hpp"
#include "stream_model.hpp"

namespace cudalab::emu {

namespace {

// A span's kind, from what the operation is.
std::string kind_of(const std::string& what) {
  const auto starts = [&](const char* prefix) { return what.rfind(prefix, 0) == 0; };
  if (starts("kernel")) return "kernel";
  if (starts("cudaMemcpy")) return "copy";
  if (starts("cudaMemset")) return "memset";
  if (starts("cudaLaunchHostFunc")) return "host_function";
  if (starts("cudaMallocAsync")) return "allocation";
  if (starts("cudaFreeAsync")) return "free";
  return "";
}

}  // namespace

void start_modelled_timeline() {
  detail::Model& m = detail::model();
  std::lock_guard lock(m.mutex);
  m.timeline.clear();
  m.timeline_races.clear();
  m.collecting = true;
}

Timeline take_modelled_timeline(std::string name) {
  detail::Model& m = detail::model();
  std::lock_guard lock(m.mutex);
  Timeline timeline;
  timeline.name = std::move(name);
  double origin_us = std::numeric_limits<double>::infinity();
  for (const auto& e : m.timeline) origin_us = std::min(origin_us, e.start_us);
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> id_of;  // (stream, seq) -> span id
  for (std::size_t i = 0; i < m.timeline.size(); ++i) {
    const auto& e = m.timeline[i];
    if (e.seq > 0) id_of[{e.stream_index, e.seq}] = static_cast<int>(i);
  }
  std::map<int, std::string> race_of;
  for (const auto& r : m.timeline_races) {
    const auto a = id_of.find(r.first), b = id_of.find(r.second);
    if (a != id_of.end()) race_of.try_emplace(a->second, r.message);
    if (b != id_of.end()) race_of.try_emplace(b->second, r.message);
  }
  std::map<std::uint32_t, std::size_t> row_of;  // stream index -> row, in order of first use
  for (std::size_t i = 0; i < m.timeline.size(); ++i) {
    const auto& e = m.timeline[i];
    auto [it, added] = row_of.try_emplace(e.stream_index, timeline.rows.size());
    if (added) timeline.rows.push_back({m.streams[e.stream_index]->name(), {}});
    Span span{e.what, (e.start_us - origin_us) / 1000.0, (e.end_us - origin_us) / 1000.0,
              kind_of(e.what)};
    span.id = static_cast<int>(i);
    for (const auto& dependency : e.after) {
      // The latest operation it follows that ran while the timeline was collected.
      for (std::uint32_t seq = dependency.second; seq > 0; --seq) {
        if (auto found = id_of.find({dependency.first, seq}); found != id_of.end()) {
          span.after.push_back(found->second);
          break;
        }
      }
    }
    if (auto race = race_of.find(span.id); race != race_of.end()) span.race = race->second;
    timeline.rows[it->second].spans.push_back(std::move(span));
  }
  m.timeline.clear();
  m.timeline_races.clear();
  m.collecting = false;
  return timeline;
}

}  // namespace cudalab::emu
