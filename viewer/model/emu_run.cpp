#include "emu_run.hpp"

#include <filesystem>
#include <fstream>
#include <map>

namespace cudalab::viewer {
namespace {

std::uint32_t linear(dim3 index, dim3 extent) {
  return index.x + extent.x * (index.y + extent.y * index.z);
}

// The source line itself, trimmed, when the file is readable here.
std::string source_line(const std::string& file, unsigned line) {
  std::ifstream in(file);
  std::string text;
  for (unsigned n = 0; n < line && std::getline(in, text); ++n) {
  }
  if (!in) return "";
  const auto first = text.find_first_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first);
}

std::string site_label(const emu::LaunchRecord& launch, std::uint32_t site, bool is_write) {
  std::string label = is_write ? "store " : "load  ";
  const emu::Site* s = launch.find_site(site);
  if (s == nullptr) return label + "site " + std::to_string(site);
  const std::string code = source_line(s->file, s->line);
  const std::string where =
      std::filesystem::path(s->file).filename().string() + ":" + std::to_string(s->line);
  return label + (code.empty() ? where : code + "   (" + where + ")");
}

// "lab01::on_emu::broadcast_sum_kernel(float*, float const*, int, int, int)"
// -> "broadcast_sum_kernel": the name a student wrote.
std::string short_name(const std::string& kernel) {
  std::string name = kernel.substr(0, kernel.find('('));
  const auto scope = name.rfind("::");
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

}  // namespace

KernelRun kernel_run_from_launch(const emu::LaunchRecord& launch, const OutputTensor& output) {
  KernelRun run;
  run.kernel = short_name(launch.kernel);
  run.grid = {launch.grid.x, launch.grid.y, launch.grid.z};
  run.block = {launch.block.x, launch.block.y, launch.block.z};
  run.rows = output.rows;
  run.cols = output.cols;
  run.writes.assign(run.elements(), {});

  const emu::Coverage coverage =
      emu::coverage(launch, output.base, output.element_bytes, run.elements());
  for (std::uint64_t i = 0; i < run.elements(); ++i) {
    const emu::ElementCoverage& from = coverage.elements[i];
    ElementWrites& to = run.writes[i];
    to.count = from.writes;
    ThreadRef* refs[] = {&to.first, &to.second};
    for (std::size_t w = 0; w < 2 && w < from.writes; ++w)
      *refs[w] = {linear(from.writers[w].block, launch.grid),
                  linear(from.writers[w].thread, launch.block)};
  }

  // One viewer site per (source site, load or store): `a[i] += b` is both.
  std::map<std::pair<std::uint32_t, bool>, std::uint32_t> site_index;
  for (const emu::WarpRequest& r : emu::warp_requests(launch)) {
    if (r.is_shared) continue;
    const auto key = std::pair{r.site, r.is_write};
    auto [it, inserted] = site_index.try_emplace(key, static_cast<std::uint32_t>(run.sites.size()));
    if (inserted) run.sites.push_back({site_label(launch, r.site, r.is_write), r.is_write});
    WarpRequest request;
    request.site = it->second;
    request.block = r.block;
    request.warp = r.warp;
    request.bytes_per_lane = r.bytes_per_lane;
    request.active_mask = r.active_mask;
    request.address = r.addresses;
    run.requests.push_back(request);
  }
  return run;
}

std::string run_problems(const harness::Observation& seen, const emu::Recording& recording) {
  std::string text;
  if (seen.failed()) text = seen.error_type + ": " + seen.error;
  const auto reports = recording.reports();
  for (std::size_t r = 0; r < reports.size() && r < 3; ++r)
    text += (text.empty() ? "" : "\n") + reports[r].to_string();
  if (reports.size() > 3) text += "\n... " + std::to_string(reports.size() - 3) + " more reports";
  return text;
}

}  // namespace cudalab::viewer
