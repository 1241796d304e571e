#include "lab_source.hpp"

#include <algorithm>
#include <cctype>

namespace cudalab::viewer {

bool shows(const LabSource& lab, View view) {
  const auto views = lab.views();
  return std::find(views.begin(), views.end(), view) != views.end();
}

std::vector<View> views_filled(const LabSource& lab, std::size_t version) {
  const auto versions = lab.versions();
  if (version < versions.size() && !versions[version].fills.empty()) return versions[version].fills;
  std::vector<View> views = lab.views();
  std::erase(views, View::kBars);
  return views;
}

bool fills(const LabSource& lab, std::size_t version, View view) {
  const auto views = views_filled(lab, version);
  return std::find(views.begin(), views.end(), view) != views.end();
}

bool shows_something(const RunOutcome& out, View view) {
  switch (view) {
    case View::kIndexing:
    case View::kCoalescing:
      return out.run && !out.run->requests.empty();
    case View::kBitLayout:
      return out.bits.has_value();
    case View::kFragments:
      return out.fragments.has_value();
    case View::kBars:
      return true;
    case View::kTimeline:
    case View::kPipeline: {
      const auto& timeline = view == View::kTimeline ? out.timeline : out.pipeline;
      if (timeline)
        for (const TimelineRow& row : timeline->rows)
          if (!row.spans.empty()) return true;
      return false;
    }
    case View::kSwizzle:
      return out.swizzle.has_value();
    case View::kErrors:
      if (out.errors)
        for (const Series& s : out.errors->series)
          if (!s.points.empty()) return true;
      return false;
    case View::kTiles:
      if (out.tiles)
        for (const ProgramWalk& p : out.tiles->programs)
          for (const auto& step : p.steps)
            if (!step.empty()) return true;
      return false;
    case View::kTraffic:
      if (out.traffic)
        for (const TrafficBar& bar : out.traffic->bars)
          if (bar.bytes > 0) return true;
      return false;
  }
  return false;
}

std::string not_done_yet(const LabSource& lab, int exercise, const std::string& what) {
  std::string why = what;
  // "exercise 3: gemm_fp64 is not written yet", as the skeletons throw it.
  const std::string prefix = "exercise ";
  if (why.rfind(prefix, 0) == 0) {
    std::size_t end = prefix.size();
    while (end < why.size() && std::isdigit(static_cast<unsigned char>(why[end]))) ++end;
    if (end > prefix.size() && why.compare(end, 2, ": ") == 0) {
      exercise = std::stoi(why.substr(prefix.size(), end - prefix.size()));
      why = why.substr(end + 2);
    }
  }
  while (!why.empty() && (why.back() == '\n' || why.back() == '.')) why.pop_back();
  const std::string title = lab.title();
  const std::string number = title.substr(0, title.find(' '));
  return "exercise " + std::to_string(exercise) + " is not done yet: " + why + ". `./lab run " +
         number + "` says what is right and what is wrong.";
}

void set_unfinished(RunOutcome& out, const LabSource& lab, std::size_t version,
                    const std::string& why) {
  for (View view : views_filled(lab, version)) out.unfinished[view] = why;
}

RunRequest default_request(const LabSource& lab) {
  RunRequest request;
  for (const Parameter& p : lab.parameters()) request.values.push_back(p.initial);
  return request;
}

std::optional<std::size_t> parameter_index(const LabSource& lab, const std::string& name) {
  const auto parameters = lab.parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].name == name) return i;
  return std::nullopt;
}

std::optional<std::string> validate(const LabSource& lab, const RunRequest& request) {
  if (request.version >= lab.versions().size())
    return "no version " + std::to_string(request.version) + " in lab " + lab.title();
  const auto parameters = lab.parameters();
  if (request.values.size() != parameters.size())
    return "the request has " + std::to_string(request.values.size()) + " values for " +
           std::to_string(parameters.size()) + " parameters";
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const Parameter& p = parameters[i];
    const std::int64_t v = request.values[i];
    if (v < p.min || v > p.max)
      return p.name + " must be in " + std::to_string(p.min) + " .. " + std::to_string(p.max) +
             ", not " + std::to_string(v);
  }
  if (!lab.has_launch_config()) return std::nullopt;
  if (request.block.volume() == 0) return "a block needs at least one thread";
  if (request.block.volume() > 1024)
    return "a block has at most 1024 threads, not " + std::to_string(request.block.volume());
  if (!request.auto_grid && request.grid.volume() == 0) return "the grid needs at least one block";
  if (!request.auto_grid && (request.grid.y > 65535 || request.grid.z > 65535))
    return "gridDim.y and gridDim.z are at most 65535";
  return std::nullopt;
}

}  // namespace cudalab::viewer
