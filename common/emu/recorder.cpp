// Options, the launch's life (set up, run, fold into a LaunchRecord), reports
// and the Recording that keeps the records.
#include "cudalab/emu/recorder.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "cudalab/emu/cluster_launch.hpp"
#include "cudalab/emu/cooperative_launch.hpp"
#include "cudalab/emu/launch.hpp"
#include "cudalab/emu/runtime.hpp"
#include "device_side_effects.hpp"
#include "engine.hpp"
#include "streams.hpp"
#include "symbolizer.hpp"

namespace cudalab::emu {

namespace detail {

void run_launch_state(LaunchState& launch);  // engine.cpp
std::uint64_t next_launch_id();              // engine.cpp

struct RecordingAccess {
  static std::vector<LaunchRecord>& launches(Recording& r) { return r.launches_; }
  static std::vector<Report>& stream_reports(Recording& r) { return r.stream_reports_; }
};

namespace {
Options global_options;
Recording* active_recording = nullptr;

void update_hooks() {
  const Checks& c = global_options.checks;
  access_hooks_on = c.bounds || c.races || c.uninitialized || active_recording != nullptr;
}
}  // namespace

const Options& current_options() noexcept { return global_options; }

ResolvedSite resolve(SiteRef site) {
  if (!site) return {};
  if (site.is_pc()) {
    // The pc is a return address: the call instruction ends just before it.
    SourcePlace p = symbolize(static_cast<const char*>(site.pc()) - 1);
    return {std::move(p.file), p.line, p.column, std::move(p.function)};
  }
  const std::source_location s = site.location();
  return {s.file_name(), s.line(), s.column(), s.function_name()};
}

std::string format_site(SiteRef site) {
  ResolvedSite s = resolve(site);
  std::string file = s.file;
  // The last two path components are enough to find the line.
  std::size_t cut = file.rfind('/');
  if (cut != std::string::npos && cut > 0) {
    std::size_t before = file.rfind('/', cut - 1);
    if (before != std::string::npos) file = file.substr(before + 1);
  }
  if (file.empty()) return s.function.empty() ? std::string("<unknown>") : s.function;
  return file + ":" + std::to_string(s.line);
}

ThreadId thread_id_of(const BlockInfo& block, unsigned linear_thread) {
  const dim3 b = block.block_dim;
  ThreadId id;
  id.block = dim3(block.block_idx.x, block.block_idx.y, block.block_idx.z);
  id.thread = dim3(linear_thread % b.x, linear_thread / b.x % b.y, linear_thread / (b.x * b.y));
  return id;
}

void LaunchState::report(Report r, cudaError_t fault, SiteRef site) {
  // Resolved outside the lock: the symbolizer may take a while on a new pc.
  const ResolvedSite place = resolve(site);
  if (site) {
    r.file = place.file;
    r.line = place.line;
  }
  std::lock_guard lock(mutex);
  if (fault != cudaSuccess && error == cudaSuccess) error = fault;
  // One report per kind and source line: a bug in a kernel fires in every
  // thread, and the first instance is the useful one.
  auto key = std::make_tuple(static_cast<int>(r.kind), place.file, place.line, place.column);
  if (!reported.insert(key).second) return;
  if (reports.size() >= options.max_reports_per_launch) {
    ++reports_suppressed;
    return;
  }
  if (options.print_reports) std::cerr << r.to_string() << std::flush;
  reports.push_back(std::move(r));
}

std::uint32_t LaunchState::site_id(SiteRef site) {
  // Called with `mutex` held.
  if (site.is_pc()) {
    // Resolved when the record is made (run_launch), not per block.
    auto [it, added] = pc_site_ids.emplace(site.bits(), static_cast<std::uint32_t>(sites.size()));
    if (added) {
      sites.push_back(Site{it->second, "", 0, 0, ""});
      site_refs.push_back(site);
    }
    return it->second;
  }
  const std::source_location s = site.location();
  SiteKey key = SiteKey::of(s);
  auto it = site_ids.find(key);
  if (it != site_ids.end()) return it->second;
  auto id = static_cast<std::uint32_t>(sites.size());
  sites.push_back(Site{id, s.file_name(), s.line(), s.column(), s.function_name()});
  site_refs.push_back(site);
  site_ids.emplace(key, id);
  return id;
}

namespace {

// What a launch needs to run, kept until it runs when its stream is queued.
struct LaunchRequest {
  const void* kernel = nullptr;
  dim3 grid, block;
  std::size_t shared_bytes = 0;
  void (*body)(void*) = nullptr;
  void* context = nullptr;
  std::size_t context_bytes = 0;
  int device = 0;            // current when it was issued
  bool cooperative = false;  // cudaLaunchCooperativeKernel
  dim3 cluster{1, 1, 1};     // cudaLaunchKernelEx's cluster dimension
};

// Queued launches keep this many traced accesses for the race checker (more
// than a Recording keeps by default: a missed byte would be a missed race).
constexpr std::size_t kRaceTraceLimit = std::size_t{1} << 24;

void collect_accesses(const LaunchState& launch, OperationAccesses& out) {
  if (!access_hooks_on) {
    out.complete = false;
    out.incomplete_reason = "the emulator's checks were off while " + launch.name + " ran";
    return;
  }
  if (launch.accesses_seen == 0) {
    out.complete = false;
    out.incomplete_reason = launch.name +
                            " made no traced access (is its file compiled with "
                            "cudalab_emu_instrument?)";
    return;
  }
  if (launch.accesses_kept < launch.accesses_seen) {
    out.complete = false;
    out.incomplete_reason = launch.name + " made more traced accesses than the race checker keeps";
  }
  for (const auto& [block, accesses] : launch.traces) {
    for (const AccessRecord& a : accesses) {
      if (a.is_shared()) continue;
      const ByteRange r{a.address, a.address + std::max<unsigned>(a.bytes, 1)};
      (a.is_write() || a.is_atomic() ? out.writes : out.reads).push_back(r);
    }
  }
}

void record_launch(LaunchState& launch);

// Runs a launch that starts at `start_us` on the modelled clock; with
// `accesses`, keeps the bytes it touched for the race checker. Returns its
// modelled duration.
double execute_launch(const LaunchRequest& request, OperationAccesses* accesses, double start_us) {
  LaunchState launch;
  launch.kernel = request.kernel;
  launch.name = kernel_name(request.kernel);
  launch.grid = request.grid;
  launch.block = request.block;
  launch.shared_bytes = request.shared_bytes;
  launch.body = request.body;
  launch.context = request.context;
  launch.context_bytes = request.context_bytes;
  launch.id = next_launch_id();
  launch.device = request.device;
  // Taken at the start: peer access enabled while the kernel runs does not
  // apply to it.
  launch.accessible_devices = accessible_devices(request.device);
  launch.options = global_options;
  launch.recording = active_recording != nullptr || accesses != nullptr;
  if (accesses) {
    launch.options.max_recorded_accesses =
        std::max(launch.options.max_recorded_accesses, kRaceTraceLimit);
  }
  launch.total_blocks = std::uint64_t{request.grid.x} * request.grid.y * request.grid.z;
  launch.threads_per_block = request.block.x * request.block.y * request.block.z;
  launch.start_us = start_us;
  launch.cooperative = request.cooperative;
  launch.cluster = request.cluster;

  device_work_begins();
  run_launch_state(launch);
  device_work_ends();

  if (launch.error != cudaSuccess) set_pending_fault(launch.error);
  if (launch.error == cudaErrorAssert) set_sticky_error(launch.device, cudaErrorAssert);
  if (accesses) collect_accesses(launch, *accesses);
  record_launch(launch);
  return kernel_modelled_us(launch.total_blocks * launch.threads_per_block,
                            launch.longest_thread_ns.load());
}

}  // namespace

namespace {
thread_local const std::source_location* innermost_launch_site = nullptr;
}  // namespace

LaunchSite::LaunchSite(const std::source_location& site) noexcept
    : saved_(innermost_launch_site), site_(site) {
  innermost_launch_site = &site_;
}
LaunchSite::~LaunchSite() { innermost_launch_site = saved_; }
const std::source_location* LaunchSite::current() noexcept { return innermost_launch_site; }

namespace {

std::string launch_description(const void* kernel, dim3 grid, dim3 block) {
  std::ostringstream what;
  what << "kernel " << kernel_name(kernel) << "<<<(" << grid.x << "," << grid.y << "," << grid.z
       << "), (" << block.x << "," << block.y << "," << block.z << ")>>>";
  return what.str();
}

}  // namespace

void run_launch(const void* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                cudaStream_t stream, void (*body)(void*), void* context, std::size_t context_bytes,
                ContextCopy copy_context) {
  LaunchRequest request{kernel, grid, block, shared_bytes, body, context, context_bytes};
  request.device = device_of_stream(stream);  // the stream's device runs it
  request.cooperative = CooperativeLaunch::active();
  request.cluster = ClusterLaunch::dims();
  if (const dim3 c = request.cluster; c.x * c.y * c.z == 1) {
    // No cluster attribute: the kernel's __cluster_dims__, if it has one.
    const dim3 compiled = compiled_cluster_dims(kernel);
    if (compiled.x * compiled.y * compiled.z != 1) {
      cudaError_t refused = request.cooperative ? cudaErrorNotSupported
                                                : check_cluster_launch(kernel, grid, compiled);
      if (refused != cudaSuccess) {
        set_last_error(refused);
        return;
      }
      request.cluster = compiled;
    }
  }
  // A device that failed an assert runs nothing until cudaDeviceReset.
  if (cudaError_t sticky = sticky_error(request.device); sticky != cudaSuccess) {
    set_last_error(sticky);
    return;
  }
  flush_device_output(request.device);  // the GPU flushes printf at a launch's start
  managed_kernel_launched(request.device, kernel);
  if (runs_at_once(stream)) {
    const double start_us = unqueued_start_us();
    unqueued_ended(start_us, execute_launch(request, nullptr, start_us),
                   [&] { return launch_description(kernel, grid, block); });
    // CUDA_LAUNCH_BLOCKING=1 makes the GPU flush at the launch's end too.
    static const bool launch_blocking = [] {
      const char* v = std::getenv("CUDA_LAUNCH_BLOCKING");
      return v && std::string_view(v) == "1";
    }();
    if (launch_blocking) flush_device_output(request.device);
    return;
  }
  // Queued: the parameter block is copied, as the GPU copies it at launch.
  std::shared_ptr<void> owned = copy_context(context);
  request.context = owned.get();
  QueuedOperation op;
  op.stream = stream;
  op.what = launch_description(kernel, grid, block);
  if (const std::source_location* site = LaunchSite::current()) op.call_site = SiteRef(*site);
  op.modelled_us =
      kernel_modelled_us(std::uint64_t{grid.x} * grid.y * grid.z * block.x * block.y * block.z, 0);
  op.run = [request, owned](OperationAccesses& accesses) {
    set_operation_duration_us(execute_launch(request, &accesses, operation_start_us()));
  };
  enqueue(std::move(op), false);
}

namespace {

// Launches on different devices end side by side.
std::mutex recording_mutex;

void record_launch(LaunchState& launch) {
  const dim3 grid = launch.grid, block = launch.block;
  const std::size_t shared_bytes = launch.shared_bytes;
  if (!active_recording) return;
  std::lock_guard lock(recording_mutex);

  LaunchRecord record;
  auto& launches = RecordingAccess::launches(*active_recording);
  record.index = launches.size();
  record.kernel = launch.name;
  record.grid = grid;
  record.block = block;
  record.shared_bytes = shared_bytes;
  for (std::size_t i = 0; i < launch.sites.size(); ++i) {
    if (!launch.site_refs[i].is_pc()) continue;
    ResolvedSite place = resolve(launch.site_refs[i]);
    Site& s = launch.sites[i];
    s.file = std::move(place.file);
    s.line = place.line;
    s.column = place.column;
    s.function = std::move(place.function);
  }
  record.sites = std::move(launch.sites);
  std::sort(launch.traces.begin(), launch.traces.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  record.accesses.reserve(launch.accesses_kept);
  for (auto& [b, accesses] : launch.traces) {
    record.accesses.insert(record.accesses.end(), accesses.begin(), accesses.end());
  }
  record.accesses_seen = launch.accesses_seen;
  record.accesses_truncated = launch.accesses_kept < launch.accesses_seen;
  record.allocations = live_allocations();
  std::sort(launch.reports.begin(), launch.reports.end(), [](const Report& a, const Report& b) {
    auto key = [](const Report& r) {
      return std::make_tuple(static_cast<int>(r.kind), r.where.block.z, r.where.block.y,
                             r.where.block.x, r.where.thread.z, r.where.thread.y, r.where.thread.x);
    };
    return key(a) < key(b);
  });
  record.reports = std::move(launch.reports);
  record.reports_suppressed = launch.reports_suppressed;
  record.error = launch.error;
  for (auto& [site, s] : launch.stats) {
    record.coalescing.loads.merge(s.loads);
    record.coalescing.stores.merge(s.stores);
    record.coalescing.atomics.merge(s.atomics);
    if (s.loads.requests || s.stores.requests || s.atomics.requests) {
      record.coalescing.per_site.push_back({site, s.loads, s.stores, s.atomics});
    }
    record.bank_conflicts.loads.merge(s.shared_loads);
    record.bank_conflicts.stores.merge(s.shared_stores);
    record.bank_conflicts.atomics.merge(s.shared_atomics);
    if (s.shared_loads.requests || s.shared_stores.requests || s.shared_atomics.requests) {
      record.bank_conflicts.per_site.push_back(
          {site, s.shared_loads, s.shared_stores, s.shared_atomics});
    }
  }
  for (auto& [site, s] : launch.stats) {
    record.constant_cache.loads.merge(s.constant_loads);
    if (s.constant_loads.requests)
      record.constant_cache.per_site.push_back({site, s.constant_loads});
  }
  auto by_site = [](const auto& a, const auto& b) { return a.site < b.site; };
  std::sort(record.constant_cache.per_site.begin(), record.constant_cache.per_site.end(), by_site);
  std::sort(record.coalescing.per_site.begin(), record.coalescing.per_site.end(), by_site);
  std::sort(record.bank_conflicts.per_site.begin(), record.bank_conflicts.per_site.end(), by_site);
  // Blocks end in any order on the workers; a reader wants them by block.
  auto by_block = [](const auto& a, const auto& b) {
    return std::tie(a.block, a.order) < std::tie(b.block, b.order);
  };
  record.async_events = std::move(launch.async_events);
  std::stable_sort(record.async_events.begin(), record.async_events.end(), by_block);
  record.tma_copies = std::move(launch.tma_copies);
  std::stable_sort(record.tma_copies.begin(), record.tma_copies.end(), by_block);
  launches.push_back(std::move(record));
}

}  // namespace

void add_stream_report(Report report) {
  if (global_options.print_reports) std::cerr << report.to_string() << std::flush;
  std::lock_guard lock(recording_mutex);
  if (active_recording)
    RecordingAccess::stream_reports(*active_recording).push_back(std::move(report));
}

}  // namespace detail

Options options() { return detail::global_options; }

void set_options(const Options& o) {
  detail::global_options = o;
  detail::update_hooks();
}

// ---- reports --------------------------------------------------------------------------

const char* to_string(AsyncEventKind kind) {
  switch (kind) {
    case AsyncEventKind::barrier_init:
      return "barrier_init";
    case AsyncEventKind::arrive:
      return "arrive";
    case AsyncEventKind::expect_tx:
      return "expect_tx";
    case AsyncEventKind::complete_tx:
      return "complete_tx";
    case AsyncEventKind::phase_complete:
      return "phase_complete";
    case AsyncEventKind::wait_begin:
      return "wait_begin";
    case AsyncEventKind::wait_end:
      return "wait_end";
    case AsyncEventKind::copy_issue:
      return "copy_issue";
    case AsyncEventKind::copy_land:
      return "copy_land";
  }
  return "unknown";
}

const char* to_string(ReportKind kind) {
  switch (kind) {
    case ReportKind::out_of_bounds:
      return "out_of_bounds";
    case ReportKind::use_after_free:
      return "use_after_free";
    case ReportKind::invalid_pointer:
      return "invalid_pointer";
    case ReportKind::misaligned_address:
      return "misaligned_address";
    case ReportKind::intra_block_race:
      return "intra_block_race";
    case ReportKind::inter_block_race:
      return "inter_block_race";
    case ReportKind::uninitialized_read:
      return "uninitialized_read";
    case ReportKind::divergent_barrier:
      return "divergent_barrier";
    case ReportKind::warp_collective:
      return "warp_collective";
    case ReportKind::kernel_exception:
      return "kernel_exception";
    case ReportKind::shared_memory_limit:
      return "shared_memory_limit";
    case ReportKind::stream_race:
      return "stream_race";
    case ReportKind::stream_race_unchecked:
      return "stream_race_unchecked";
    case ReportKind::stream_use_after_free:
      return "stream_use_after_free";
    case ReportKind::peer_access:
      return "peer_access";
    case ReportKind::grid_sync:
      return "grid_sync";
    case ReportKind::constant_write:
      return "constant_write";
    case ReportKind::device_assert:
      return "device_assert";
    case ReportKind::mbarrier:
      return "mbarrier";
    case ReportKind::tensor_map:
      return "tensor_map";
  }
  return "unknown";
}

std::string ThreadId::to_string() const {
  std::ostringstream s;
  s << "block (" << block.x << "," << block.y << "," << block.z << ") thread (" << thread.x << ","
    << thread.y << "," << thread.z << ")";
  return s.str();
}

std::string Report::to_string() const {
  std::ostringstream s;
  const char* prefix = "========= ";
  s << prefix << message << "\n";
  if (!second_operation.empty()) {
    // About two operations of the device model, not a thread of one kernel.
    s << prefix << "    kind " << cudalab::emu::to_string(kind) << "\n";
    s << prefix << "    first  " << kernel << "\n";
    s << prefix << "    second " << second_operation << "\n";
  } else {
    s << prefix << "    kind " << cudalab::emu::to_string(kind) << ", kernel " << kernel << "\n";
    if (!file.empty()) s << prefix << "    at " << file << ":" << line << "\n";
    s << prefix << "    by " << where.to_string() << "\n";
  }
  if (allocation_base) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer,
                  "address 0x%" PRIxPTR " in allocation 0x%" PRIxPTR " (%zu bytes)", address,
                  allocation_base, allocation_bytes);
    s << prefix << "    " << buffer << "\n";
  }
  return s.str();
}

// ---- records ----------------------------------------------------------------------------

double SectorStats::sectors_per_request() const {
  return requests ? static_cast<double>(sectors) / static_cast<double>(requests) : 0.0;
}
double SectorStats::lines_per_request() const {
  return requests ? static_cast<double>(lines) / static_cast<double>(requests) : 0.0;
}
double SectorStats::efficiency() const {
  return sectors ? static_cast<double>(bytes_requested) / (32.0 * static_cast<double>(sectors))
                 : 0.0;
}
void SectorStats::merge(const SectorStats& o) {
  requests += o.requests;
  sectors += o.sectors;
  lines += o.lines;
  bytes_requested += o.bytes_requested;
  if (sectors_histogram.size() < o.sectors_histogram.size()) {
    sectors_histogram.resize(o.sectors_histogram.size());
  }
  for (std::size_t i = 0; i < o.sectors_histogram.size(); ++i) {
    sectors_histogram[i] += o.sectors_histogram[i];
  }
}

double BankStats::ways_per_request() const {
  return requests ? static_cast<double>(wavefronts) / static_cast<double>(requests) : 0.0;
}
void BankStats::merge(const BankStats& o) {
  requests += o.requests;
  wavefronts += o.wavefronts;
  max_ways = std::max(max_ways, o.max_ways);
  if (ways_histogram.size() < o.ways_histogram.size())
    ways_histogram.resize(o.ways_histogram.size());
  for (std::size_t i = 0; i < o.ways_histogram.size(); ++i)
    ways_histogram[i] += o.ways_histogram[i];
}

dim3 LaunchRecord::block_index(std::uint32_t linear) const {
  return dim3(linear % grid.x, linear / grid.x % grid.y, linear / (grid.x * grid.y));
}
dim3 LaunchRecord::thread_index(std::uint32_t linear) const {
  return dim3(linear % block.x, linear / block.x % block.y, linear / (block.x * block.y));
}
const Site* LaunchRecord::find_site(std::uint32_t id) const {
  return id < sites.size() ? &sites[id] : nullptr;
}

// ---- coverage ---------------------------------------------------------------------------

std::size_t Coverage::unwritten() const {
  return static_cast<std::size_t>(
      std::count_if(elements.begin(), elements.end(), [](const auto& e) { return e.writes == 0; }));
}
std::size_t Coverage::written_twice() const {
  return static_cast<std::size_t>(
      std::count_if(elements.begin(), elements.end(), [](const auto& e) { return e.writes > 1; }));
}
std::string Coverage::describe(std::size_t i) const {
  std::ostringstream s;
  if (i >= elements.size()) return "element " + std::to_string(i) + " is outside the coverage";
  const ElementCoverage& e = elements[i];
  s << "element " << i << " written " << e.writes << (e.writes == 1 ? " time" : " times");
  for (std::uint32_t w = 0; w < std::min<std::uint32_t>(e.writes, 2); ++w) {
    s << (w ? " / " : ": ") << e.writers[w].to_string();
  }
  if (e.writes > 2) s << " / ...";
  return s.str();
}

void add_coverage(Coverage& c, const LaunchRecord& launch, const void* base,
                  std::size_t element_bytes) {
  c.complete = c.complete && !launch.accesses_truncated;
  const auto first = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t end = first + element_bytes * c.elements.size();
  for (const AccessRecord& a : launch.accesses) {
    if (!a.is_write() || a.is_shared()) continue;
    // A wide access (a float4 store) writes every element it overlaps.
    const std::uintptr_t lo = std::max<std::uintptr_t>(a.address, first);
    const std::uintptr_t hi =
        std::min<std::uintptr_t>(a.address + std::max<unsigned>(a.bytes, 1), end);
    if (lo >= hi) continue;
    const ThreadId writer{launch.block_index(a.block), launch.thread_index(a.thread)};
    for (std::size_t i = (lo - first) / element_bytes; i <= (hi - 1 - first) / element_bytes; ++i) {
      ElementCoverage& e = c.elements[i];
      if (e.writes < 2) e.writers[e.writes] = writer;
      ++e.writes;
    }
  }
}

Coverage coverage(const LaunchRecord& launch, const void* base, std::size_t element_bytes,
                  std::size_t count) {
  Coverage c;
  c.elements.resize(count);
  add_coverage(c, launch, base, element_bytes);
  return c;
}

// ---- recording ----------------------------------------------------------------------------

bool recording_alive() { return detail::active_recording != nullptr; }

Recording::Recording() {
  if (detail::active_recording) {
    throw std::logic_error("cudalab::emu::Recording: another Recording is already alive");
  }
  detail::active_recording = this;
  detail::update_hooks();
}

Recording::~Recording() {
  detail::active_recording = nullptr;
  detail::update_hooks();
}

const std::vector<LaunchRecord>& Recording::launches() const { return launches_; }

const LaunchRecord& Recording::last() const {
  if (launches_.empty()) {
    throw std::logic_error(
        "cudalab::emu::Recording::last(): no kernel was launched while recording");
  }
  return launches_.back();
}

std::vector<Report> Recording::reports() const {
  std::vector<Report> all;
  for (const auto& l : launches_) all.insert(all.end(), l.reports.begin(), l.reports.end());
  all.insert(all.end(), stream_reports_.begin(), stream_reports_.end());
  return all;
}

bool Recording::clean() const {
  return stream_reports_.empty() &&
         std::all_of(launches_.begin(), launches_.end(),
                     [](const LaunchRecord& l) { return l.reports.empty(); });
}

std::string Recording::reports_text() const {
  std::string text;
  for (const auto& r : reports()) text += r.to_string();
  return text.empty() ? "no reports\n" : text;
}

void Recording::clear() {
  launches_.clear();
  stream_reports_.clear();
}

}  // namespace cudalab::emu
