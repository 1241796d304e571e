// The JSON export of a launch for the viewer (schema: docs/emulator.md).
// Bounded: at most ExportLimits::max_accesses accesses, taken as whole blocks
// spread evenly over the grid (always the first and the last block), and the
// document says when it sampled.
#include <nlohmann/json.hpp>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu {

namespace {

using nlohmann::json;

json dims(const dim3& d) { return json::array({d.x, d.y, d.z}); }

json stats_json(const SectorStats& s) {
  return {{"requests", s.requests},
          {"sectors", s.sectors},
          {"lines", s.lines},
          {"bytes_requested", s.bytes_requested},
          {"sectors_per_request", s.sectors_per_request()},
          {"lines_per_request", s.lines_per_request()},
          {"efficiency", s.efficiency()},
          {"sectors_histogram", s.sectors_histogram}};
}

json stats_json(const BankStats& s) {
  return {{"requests", s.requests},
          {"wavefronts", s.wavefronts},
          {"ways_per_request", s.ways_per_request()},
          {"max_ways", s.max_ways},
          {"ways_histogram", s.ways_histogram}};
}

json stats_json(const ConstantStats& s) {
  return {{"requests", s.requests},
          {"transactions", s.transactions},
          {"transactions_per_request", s.transactions_per_request()},
          {"transactions_histogram", s.transactions_histogram}};
}

json report_json(const Report& r) {
  return {{"kind", to_string(r.kind)},
          {"kernel", r.kernel},
          {"block", dims(r.where.block)},
          {"thread", dims(r.where.thread)},
          {"address", r.address},
          {"access_bytes", r.access_bytes},
          {"is_write", r.is_write},
          {"allocation_base", r.allocation_base},
          {"allocation_bytes", r.allocation_bytes},
          {"file", r.file},
          {"line", r.line},
          {"message", r.message}};
}

// [first, last) ranges of `accesses` that hold one block each.
std::vector<std::pair<std::size_t, std::size_t>> block_ranges(const LaunchRecord& launch) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (std::size_t i = 0; i < launch.accesses.size();) {
    std::size_t j = i;
    while (j < launch.accesses.size() && launch.accesses[j].block == launch.accesses[i].block) ++j;
    ranges.emplace_back(i, j);
    i = j;
  }
  return ranges;
}

}  // namespace

nlohmann::json to_json(const LaunchRecord& launch, const ExportLimits& limits) {
  json doc;
  doc["schema"] = "cudalab.emu.launch/1";
  doc["index"] = launch.index;
  doc["kernel"] = launch.kernel;
  doc["grid"] = dims(launch.grid);
  doc["block"] = dims(launch.block);
  doc["shared_bytes"] = launch.shared_bytes;
  doc["error"] = cudaGetErrorName(launch.error);

  json sites = json::array();
  for (const Site& s : launch.sites) {
    sites.push_back({{"id", s.id},
                     {"file", s.file},
                     {"line", s.line},
                     {"column", s.column},
                     {"function", s.function}});
  }
  doc["sites"] = sites;
  json allocations = json::array();
  for (const auto& a : launch.allocations)
    allocations.push_back({{"base", a.base}, {"bytes", a.bytes}});
  doc["allocations"] = allocations;

  json per_site = json::array();
  for (const auto& s : launch.coalescing.per_site) {
    per_site.push_back({{"site", s.site},
                        {"loads", stats_json(s.loads)},
                        {"stores", stats_json(s.stores)},
                        {"atomics", stats_json(s.atomics)}});
  }
  doc["coalescing"] = {{"loads", stats_json(launch.coalescing.loads)},
                       {"stores", stats_json(launch.coalescing.stores)},
                       {"atomics", stats_json(launch.coalescing.atomics)},
                       {"per_site", per_site}};
  json bank_sites = json::array();
  for (const auto& s : launch.bank_conflicts.per_site) {
    bank_sites.push_back({{"site", s.site},
                          {"loads", stats_json(s.loads)},
                          {"stores", stats_json(s.stores)},
                          {"atomics", stats_json(s.atomics)}});
  }
  doc["bank_conflicts"] = {{"loads", stats_json(launch.bank_conflicts.loads)},
                           {"stores", stats_json(launch.bank_conflicts.stores)},
                           {"atomics", stats_json(launch.bank_conflicts.atomics)},
                           {"per_site", bank_sites}};

  json constant_sites = json::array();
  for (const auto& s : launch.constant_cache.per_site) {
    constant_sites.push_back({{"site", s.site}, {"loads", stats_json(s.loads)}});
  }
  doc["constant_cache"] = {{"loads", stats_json(launch.constant_cache.loads)},
                           {"per_site", constant_sites}};

  json reports = json::array();
  for (std::size_t i = 0; i < launch.reports.size() && i < limits.max_reports; ++i) {
    reports.push_back(report_json(launch.reports[i]));
  }
  doc["reports"] = reports;
  doc["reports_omitted"] =
      launch.reports_suppressed +
      (launch.reports.size() > limits.max_reports ? launch.reports.size() - limits.max_reports : 0);

  // Whole blocks, evenly spaced, within the access budget.
  auto ranges = block_ranges(launch);
  std::vector<std::size_t> chosen;
  std::size_t budget_blocks = ranges.size();
  if (launch.accesses.size() > limits.max_accesses && !ranges.empty()) {
    const double per_block =
        static_cast<double>(launch.accesses.size()) / static_cast<double>(ranges.size());
    budget_blocks = std::max<std::size_t>(
        1, static_cast<std::size_t>(static_cast<double>(limits.max_accesses) / per_block));
  }
  if (budget_blocks >= ranges.size()) {
    for (std::size_t i = 0; i < ranges.size(); ++i) chosen.push_back(i);
  } else {
    for (std::size_t k = 0; k < budget_blocks; ++k) {
      std::size_t i = budget_blocks == 1 ? 0 : k * (ranges.size() - 1) / (budget_blocks - 1);
      if (chosen.empty() || chosen.back() != i) chosen.push_back(i);
    }
  }
  json accesses = json::array();
  json blocks = json::array();
  std::size_t exported = 0;
  for (std::size_t i : chosen) {
    auto [first, last] = ranges[i];
    if (exported + (last - first) > limits.max_accesses && exported > 0) break;
    blocks.push_back(launch.accesses[first].block);
    for (std::size_t a = first; a < last; ++a) {
      const AccessRecord& r = launch.accesses[a];
      accesses.push_back(json::array({r.block, r.thread, r.site, r.address, r.bytes, r.flags}));
    }
    exported += last - first;
  }
  const bool sampled = exported < launch.accesses_seen;
  doc["trace"] = {
      {"accesses_seen", launch.accesses_seen},
      {"accesses_recorded", launch.accesses.size()},
      {"accesses_exported", exported},
      {"sampled", sampled},
      {"sampling", sampled ? "whole blocks spread evenly over the grid (first and last included) "
                             "until the access budget; coalescing and bank conflicts above cover "
                             "all accesses"
                           : "none: every access is here"},
      {"blocks_exported", blocks},
      {"columns", json::array({"block", "thread", "site", "address", "bytes", "flags"})},
      {"flags", {{"read", 1}, {"write", 2}, {"atomic", 4}, {"shared", 8}, {"constant", 16}}},
      {"accesses", accesses}};
  // Hopper's async machinery (mbarriers, async copies, TMA); only where the
  // launch used it, so older readers and launches that did not see nothing new.
  if (!launch.async_events.empty()) {
    json events = json::array();
    for (const AsyncEvent& e : launch.async_events) {
      events.push_back(json::array({e.block, e.order, to_string(e.kind),
                                    e.thread == kNoThread ? json(nullptr) : json(e.thread),
                                    e.barrier, e.phase, e.bytes, e.copy, e.shared_offset, e.site}));
    }
    doc["async_events"] = {
        {"columns", json::array({"block", "order", "kind", "thread", "barrier", "phase", "bytes",
                                 "copy", "shared_offset", "site"})},
        {"events", events}};
  }
  if (!launch.tma_copies.empty()) {
    json copies = json::array();
    for (const TmaCopyRecord& c : launch.tma_copies) {
      copies.push_back({{"block", c.block},
                        {"order", c.order},
                        {"thread", c.thread},
                        {"direction", c.is_store ? "store" : "load"},
                        {"copy", c.copy},
                        {"element_bytes", c.element_bytes},
                        {"swizzle_bytes", c.swizzle_bytes},
                        {"box", std::vector<std::uint32_t>(c.box.begin(), c.box.begin() + c.rank)},
                        {"coordinates", std::vector<std::int32_t>(c.coordinates.begin(),
                                                                  c.coordinates.begin() + c.rank)},
                        {"shared_offset", c.shared_offset},
                        {"global_sectors", c.global_sectors}});
    }
    doc["tma_copies"] = copies;
  }
  return doc;
}

nlohmann::json to_json(const Recording& recording, const ExportLimits& limits) {
  json doc;
  doc["schema"] = "cudalab.emu.recording/1";
  json launches = json::array();
  ExportLimits per_launch = limits;
  if (!recording.launches().empty()) {
    per_launch.max_accesses =
        std::max<std::size_t>(1, limits.max_accesses / recording.launches().size());
  }
  for (const auto& l : recording.launches()) launches.push_back(to_json(l, per_launch));
  doc["launches"] = launches;
  return doc;
}

}  // namespace cudalab::emu
