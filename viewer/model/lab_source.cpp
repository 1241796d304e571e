#include "lab_source.hpp"

#include <algorithm>

namespace cudalab::viewer {

bool shows(const LabSource& lab, View view) {
  const auto views = lab.views();
  return std::find(views.begin(), views.end(), view) != views.end();
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
