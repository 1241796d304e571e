// The device model: streams, events, the queue of work they hold, the
// scheduler that runs it and the happens-before relation the race checker
// asks about (docs/emulator.md, "The device model").
//
// Happens-before is a vector clock per operation with one component per
// stream: operation k of stream s has clock[s] == k, and it happens after
// operation j of stream t exactly when its clock[t] >= j. An operation's
// clock joins its stream's previous clock, the host's clock (what the host
// waited for before issuing it), the events its stream waits for and the
// default-stream rules. The same clocks decide when a queued operation may
// run (every operation it happens after has run), so the scheduler can pick
// any ready operation and still respect every ordering the program asked for.
//
// Several devices share these clocks, so happens-before spans devices (an
// event recorded on device 0 and waited for by a stream of device 1 orders
// them). Queued operations run without the model's mutex held: host threads
// that synchronise at once run operations side by side, which a kernel
// spinning on a flag that another device's kernel sets needs.
#include "streams.hpp"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_set>

#include "cudalab/emu/recorder.hpp"
#include "cudalab/emu/runtime.hpp"
#include "cudalab/emu/timeline.hpp"
#include "device_side_effects.hpp"
#include "engine.hpp"

namespace cudalab::emu::detail {

namespace {

using VectorClock = std::vector<std::uint32_t>;

void join(VectorClock& into, const VectorClock& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (std::size_t i = 0; i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

std::uint32_t component(const VectorClock& c, std::size_t i) { return i < c.size() ? c[i] : 0; }

enum class StreamKind { legacy, per_thread, blocking, non_blocking };

struct Operation;
struct Stream;

// A capture sequence (cudaStreamBeginCapture to cudaStreamEndCapture): the
// graph being built and the streams taking part (the origin, and those an
// event recorded in the capture brought in).
struct Capture {
  Graph graph;
  Stream* origin = nullptr;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread;                 // the thread that began it
  cudaError_t invalidated = cudaSuccess;  // the error that invalidated it, if one did
  std::vector<Stream*> members;

  // The first error that invalidates a capture is the one it keeps.
  void invalidate(cudaError_t why) {
    if (invalidated == cudaSuccess) invalidated = why;
  }
};

struct Stream {
  StreamKind kind = StreamKind::blocking;
  int device = 0;
  std::uint32_t index = 0;   // its component in vector clocks
  std::uint32_t number = 0;  // created streams are numbered 1, 2, ... in reports
  std::uint32_t issued = 0;
  std::uint32_t executed = 0;
  VectorClock last;               // the clock its next operation starts from
  VectorClock last_operation;     // the clock of its latest operation
  std::vector<double> end_times;  // modelled end of its operation k at [k - 1], once it ran
  std::deque<std::unique_ptr<Operation>> queue;
  std::uint64_t not_ready_at = 0;  // `issued` + 1 when a query last answered not ready
  bool destroyed = false;
  // While it takes part in a capture: the capture, and the nodes its next
  // operation depends on.
  std::shared_ptr<Capture> capture;
  std::vector<std::size_t> capture_tail;
  std::string label;  // a name of the emulator's own (a graph's lane), else ""

  std::string name() const {
    if (device_count() > 1) return kind_name() + " on device " + std::to_string(device);
    return kind_name();
  }
  std::string kind_name() const {
    if (!label.empty()) return label;
    switch (kind) {
      case StreamKind::legacy:
        return "the legacy default stream";
      case StreamKind::per_thread:
        return "the per-thread default stream of thread " + std::to_string(number);
      case StreamKind::blocking:
        return "stream " + std::to_string(number);
      case StreamKind::non_blocking:
        return "stream " + std::to_string(number) + " (non-blocking)";
    }
    return "a stream";
  }
  bool blocking() const { return kind == StreamKind::blocking || kind == StreamKind::per_thread; }
};

struct Operation {
  Stream* stream = nullptr;
  std::uint32_t seq = 0;
  std::uint64_t issue_order = 0;
  // The operations of other streams (stream index, seq) an event wait or a
  // default-stream rule ordered it after, beyond what its stream already
  // was: the timeline's dependency arrows.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> after;
  double issue_time_us = 0;  // the host's modelled time when it was issued: it starts no earlier
  VectorClock clock;
  QueuedOperation work;
  OperationName name;
  OperationAccesses accesses;
};

// An operation that ran, kept for the race checker until the host's clock
// shows that every later operation happens after it.
struct Done {
  std::uint32_t stream_index;
  std::uint32_t seq;
  OperationName name;
  OperationAccesses accesses;
};

struct Event {
  unsigned flags = 0;
  int device = 0;
  bool recorded = false;
  VectorClock clock;
  double record_time_us = 0;       // the host's modelled time at the record call
  std::uint64_t records = 0;       // how many times it was recorded
  std::uint64_t not_ready_at = 0;  // `records` when a query last answered not ready
  bool destroyed = false;
  // Recorded in a capture: the capture and the nodes a wait for it depends on.
  std::shared_ptr<Capture> capture;
  std::vector<std::size_t> captured_tail;
};

// One operation on the modelled clock, for take_modelled_timeline.
struct TimelineEntry {
  std::uint32_t stream_index = 0;
  std::uint32_t seq = 0;  // 0: run at once, outside the queue
  std::string what;
  double start_us = 0;
  double end_us = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> after;
};

// A race reported while a timeline was collected: both operations and the report.
struct TimelineRace {
  std::pair<std::uint32_t, std::uint32_t> first, second;  // (stream index, seq)
  std::string message;
};

struct Model {
  // Operations run without it held (run_until); nothing may call run_until
  // while holding it.
  std::recursive_mutex mutex;
  bool collecting = false;  // between start_modelled_timeline and take_modelled_timeline
  std::vector<TimelineEntry> timeline;
  std::vector<TimelineRace> timeline_races;
  std::condition_variable_any finished;          // an operation finished running
  std::size_t running = 0;                       // operations running now, on any host thread
  std::vector<std::unique_ptr<Stream>> streams;  // never shrinks: handles stay recognisable
  std::unordered_set<const Stream*> live_created;
  std::vector<std::unique_ptr<Event>> events;
  std::unordered_set<const Event*> live_events;
  Stream* legacy = nullptr;               // device 0's
  std::vector<Stream*> legacy_by_device;  // made on first use
  std::uint32_t created_count = 0;
  std::uint32_t per_thread_count = 0;
  VectorClock host;         // what the host has waited for
  double host_time_us = 0;  // the modelled time the host last waited until
  std::uint64_t issue_counter = 0;
  std::size_t queued = 0;
  std::vector<Done> done;
  std::set<std::string> reported;  // pairs reported in this run of the queue
  std::mt19937_64 random;
  std::vector<std::shared_ptr<Capture>> captures;  // the captures in progress

  Model() {
    legacy = add_stream(StreamKind::legacy, 0);
    legacy_by_device.push_back(legacy);
  }

  Stream* add_stream(StreamKind kind, int device) {
    auto s = std::make_unique<Stream>();
    s->kind = kind;
    s->device = device;
    s->index = static_cast<std::uint32_t>(streams.size());
    streams.push_back(std::move(s));
    return streams.back().get();
  }
};

Model& model() {
  static Model m;
  return m;
}

Stream* legacy_of(Model& m, int device) {
  const auto d = static_cast<std::size_t>(device);
  if (m.legacy_by_device.size() <= d) m.legacy_by_device.resize(d + 1, nullptr);
  if (!m.legacy_by_device[d]) m.legacy_by_device[d] = m.add_stream(StreamKind::legacy, device);
  return m.legacy_by_device[d];
}

// Set while anything is queued, any created stream lives or any operation
// waits to be checked: the one thing the single-stream fast path reads.
std::atomic<bool> model_active{false};

void update_active(Model& m) {
  model_active.store(m.queued > 0 || m.running > 0 || !m.live_created.empty() || !m.done.empty() ||
                         !m.captures.empty(),
                     std::memory_order_release);
}

// This host thread's per-thread default stream of each device, made on first use.
thread_local std::vector<Stream*> this_thread_streams;

// The default streams are those of the current device.
// Set by a translation unit built with --default-stream per-thread (shim.hpp).
std::atomic<bool> zero_is_per_thread{false};

Stream* stream_of(Model& m, cudaStream_t handle) {
  const int device = current_device();
  if (handle == nullptr && zero_is_per_thread.load(std::memory_order_relaxed)) {
    handle = cudaStreamPerThread;
  }
  if (handle == nullptr || handle == cudaStreamLegacy) return legacy_of(m, device);
  if (handle == cudaStreamPerThread) {
    const auto d = static_cast<std::size_t>(device);
    if (this_thread_streams.size() <= d) this_thread_streams.resize(d + 1, nullptr);
    Stream*& mine = this_thread_streams[d];
    if (!mine) {
      mine = m.add_stream(StreamKind::per_thread, device);
      mine->number = ++m.per_thread_count;
    }
    return mine;
  }
  auto* s = reinterpret_cast<Stream*>(handle);
  return m.live_created.count(s) ? s : nullptr;
}

// The clock the next operation of `s` starts from: its own order, what the
// host waited for, and the legacy default stream's rules (it waits for the
// blocking streams' earlier work; they wait for its earlier work), which
// hold within one device: each device has its own legacy default stream.
VectorClock start_clock(Model& m, const Stream& s, bool with_host = true) {
  VectorClock c = s.last;
  if (with_host) join(c, m.host);
  if (s.kind == StreamKind::legacy) {
    for (const auto& other : m.streams) {
      if (other->blocking() && other->device == s.device) join(c, other->last);
    }
  } else if (s.blocking()) {
    join(c, legacy_of(m, s.device)->last);
  }
  return c;
}

VectorClock everything_issued(const Model& m) {
  VectorClock all;
  for (const auto& s : m.streams) join(all, s->last);
  return all;
}

// Everything issued so far to `device`'s streams.
VectorClock all_work_of(Model& m, int device) {
  VectorClock all;
  for (const auto& s : m.streams) {
    if (s->device == device) join(all, s->last);
  }
  return all;
}

// When every operation `clock` names has ended, on the modelled clock; they
// have all run (durations are known once an operation ran: a kernel's
// depends on what its threads did).
double end_of(const Model& m, const VectorClock& clock) {
  double t = 0;
  for (std::size_t i = 0; i < clock.size(); ++i) {
    if (clock[i] > 0) t = std::max(t, m.streams[i]->end_times[clock[i] - 1]);
  }
  return t;
}

bool has_run(const Model& m, const VectorClock& clock) {
  for (std::size_t i = 0; i < clock.size(); ++i) {
    if (m.streams[i]->executed < clock[i]) return false;
  }
  return true;
}

// ---- the scheduler ---------------------------------------------------------------

enum class Policy { fifo, adversarial, seeded };

struct Schedule {
  Policy policy = Policy::adversarial;
  std::string text = "adversarial";
};

Schedule current_schedule(Model& m) {
  std::string text = current_options().schedule;
  if (text.empty()) {
    if (const char* env = std::getenv("CUDALAB_EMU_SCHEDULE")) text = env;
  }
  Schedule s;
  if (text.empty() || text == "adversarial") return s;
  if (text == "fifo") return {Policy::fifo, text};
  char* end = nullptr;
  const unsigned long long seed = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') {
    std::cerr << "cudalab emulator: CUDALAB_EMU_SCHEDULE=" << text
              << " is neither fifo, adversarial nor a seed; using adversarial\n";
    return s;
  }
  // Seeded afresh for each run of the queue: the same program and seed give
  // the same order, whatever ran before in the process.
  m.random.seed(seed);
  return {Policy::seeded, "seed " + text};
}

// Among the ready operations that `eligible` accepts, the one to run next.
template <class Eligible>
Operation* pick(Model& m, const Schedule& schedule, const Eligible& eligible) {
  std::vector<Operation*> ready;
  for (const auto& s : m.streams) {
    if (s->queue.empty()) continue;
    Operation* head = s->queue.front().get();
    if (!eligible(*head)) continue;
    // Ready when what it happens after has run (its own stream's earlier
    // work has: it is the head).
    VectorClock before = head->clock;
    before[s->index] = head->seq - 1;
    if (has_run(m, before)) ready.push_back(head);
  }
  if (ready.empty()) return nullptr;
  auto by_issue = [](const Operation* a, const Operation* b) {
    return a->issue_order < b->issue_order;
  };
  switch (schedule.policy) {
    case Policy::fifo:
      return *std::min_element(ready.begin(), ready.end(), by_issue);
    case Policy::adversarial:
      // The latest issued first: a consumer runs before its producer
      // wherever nothing orders them.
      return *std::max_element(ready.begin(), ready.end(), by_issue);
    case Policy::seeded:
      std::sort(ready.begin(), ready.end(), by_issue);
      return ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(m.random)];
  }
  return nullptr;
}

void check_against_done(Model& m, const Operation& op, const std::string& schedule) {
  if (!current_options().checks.races) return;
  for (const Done& d : m.done) {
    if (d.stream_index == op.stream->index) continue;
    if (component(op.clock, d.stream_index) >= d.seq) continue;  // ordered
    std::string report =
        check_unordered_pair(d.name, d.accesses, op.name, op.accesses, schedule, m.reported);
    if (m.collecting && !report.empty()) {
      m.timeline_races.push_back(
          {{d.stream_index, d.seq}, {op.stream->index, op.seq}, std::move(report)});
    }
  }
}

thread_local double running_start_us = 0;
thread_local double running_measured_us = -1;

void execute(Model& m, std::unique_lock<std::recursive_mutex>& lock,
             std::unique_ptr<Operation> owned, const std::string& schedule) {
  Operation& op = *owned;
  // Everything it happens after has run: its modelled start is known.
  VectorClock before = op.clock;
  before[op.stream->index] = op.seq - 1;
  const double start_us = std::max(op.issue_time_us, end_of(m, before));
  ++m.running;
  lock.unlock();
  running_start_us = start_us;
  running_measured_us = -1;
  device_work_begins();
  op.work.run(op.accesses);
  device_work_ends();
  const double end_us =
      start_us + (running_measured_us >= 0 ? running_measured_us : op.work.modelled_us);
  merge_ranges(op.accesses.reads);
  merge_ranges(op.accesses.writes);
  lock.lock();
  op.stream->end_times[op.seq - 1] = end_us;
  if (m.collecting) {
    m.timeline.push_back({op.stream->index, op.seq, op.name.what, start_us, end_us, op.after});
  }
  check_against_done(m, op, schedule);
  op.stream->executed = op.seq;
  m.done.push_back({op.stream->index, op.seq, std::move(op.name), std::move(op.accesses)});
  --m.running;
  m.finished.notify_all();
}

// Runs queued operations until everything `target` names has run: the ready
// ones it needs, whoever issued them; while another thread runs one it
// needs, it waits. Work it does not need stays queued, as a synchronisation
// on the GPU waits for what it orders and nothing else (checked on an H200:
// tests/emu/test_stream_probes.cpp), and an operation it does not need may
// wait for work another thread has yet to issue (a kernel spinning on a
// flag that a later kernel sets), which would hold this thread for good.
// Called without the mutex held.
void run_until(const VectorClock& target) {
  Model& m = model();
  std::unique_lock lock(m.mutex);
  if (m.queued == 0 && has_run(m, target)) return;
  const Schedule schedule = current_schedule(m);
  m.reported.clear();
  auto eligible = [&](const Operation& op) {
    return component(target, op.stream->index) >= op.seq;
  };
  for (;;) {
    if (Operation* op = pick(m, schedule, eligible)) {
      std::unique_ptr<Operation> owned = std::move(op->stream->queue.front());
      op->stream->queue.pop_front();
      --m.queued;
      execute(m, lock, std::move(owned), schedule.text);
      continue;
    }
    if (has_run(m, target)) break;
    if (m.running == 0) {
      std::cerr << "cudalab emulator: queued stream work waits for itself (a bug in the "
                   "emulator); it is dropped\n";
      for (auto& s : m.streams) s->queue.clear();
      m.queued = 0;
      break;
    }
    m.finished.wait(lock);
  }
  update_active(m);
}

// Forgets the operations every later one happens after: the host waited for them.
// Work still queued may be unordered with it (a synchronisation runs only
// what it waits for), so an operation is forgotten only once every queued
// operation happens after it too.
void forget_ordered(Model& m) {
  VectorClock queued_after;  // what every queued operation happens after
  bool first = true;
  for (const auto& s : m.streams) {
    for (const auto& op : s->queue) {
      if (first) {
        queued_after = op->clock;
        first = false;
      } else {
        queued_after.resize(std::max(queued_after.size(), op->clock.size()), 0);
        for (std::size_t i = 0; i < queued_after.size(); ++i) {
          queued_after[i] = std::min(queued_after[i], component(op->clock, i));
        }
      }
    }
  }
  std::erase_if(m.done, [&](const Done& d) {
    return component(m.host, d.stream_index) >= d.seq &&
           (first || component(queued_after, d.stream_index) >= d.seq);
  });
}

void host_waits_for(Model& m, const VectorClock& clock) {
  join(m.host, clock);
  m.host_time_us = std::max(m.host_time_us, end_of(m, clock));
  forget_ordered(m);
  update_active(m);
}

// A host synchronisation point: runs what `clock` names (and this thread's
// other ready work), then orders the host after it.
void run_until_and_wait(const VectorClock& clock) {
  run_until(clock);
  Model& m = model();
  std::lock_guard lock(m.mutex);
  host_waits_for(m, clock);
}

}  // namespace

bool runs_at_once(cudaStream_t stream) noexcept {
  if (model_active.load(std::memory_order_acquire)) return false;
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

double operation_start_us() noexcept { return running_start_us; }

void set_operation_duration_us(double us) noexcept { running_measured_us = us; }

double unqueued_start_us() {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  return m.host_time_us;
}

void unqueued_ended(double start_us, double duration_us, const std::function<std::string()>& what) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  m.host_time_us = std::max(m.host_time_us, start_us + duration_us);
  if (m.collecting)
    m.timeline.push_back({m.legacy->index, 0, what(), start_us, start_us + duration_us, {}});
}

bool make_stream_zero_per_thread() noexcept {
  zero_is_per_thread.store(true);
  return true;
}

bool is_valid_stream(cudaStream_t stream) noexcept {
  if (is_default_stream(stream)) return true;
  Model& m = model();
  std::lock_guard lock(m.mutex);
  return m.live_created.count(reinterpret_cast<const Stream*>(stream)) != 0;
}

void run_queued() {
  if (!model_active.load(std::memory_order_acquire)) return;
  VectorClock all;
  {
    Model& m = model();
    std::lock_guard lock(m.mutex);
    all = everything_issued(m);
  }
  run_until(all);
}

int device_of_stream(cudaStream_t stream) noexcept {
  if (is_default_stream(stream)) return current_device();
  Model& m = model();
  std::lock_guard lock(m.mutex);
  const auto* s = reinterpret_cast<const Stream*>(stream);
  return m.live_created.count(s) ? s->device : -1;
}

namespace {

// The legacy default stream's work would wait for a capturing blocking
// stream's, which runs only when a graph is launched: true when a capture
// with a blocking stream of `device` is in progress, which is then invalidated.
bool refuse_legacy_work(Model& m, int device) {
  bool refused = false;
  for (const auto& c : m.captures) {
    const bool blocking_member = std::any_of(
        c->members.begin(), c->members.end(),
        [&](const Stream* member) { return member->blocking() && member->device == device; });
    if (!blocking_member) continue;
    refused = true;
    c->invalidate(cudaErrorStreamCaptureImplicit);
  }
  return refused;
}

}  // namespace

cudaError_t legacy_work_during_capture() {
  if (!model_active.load(std::memory_order_acquire)) return cudaSuccess;
  Model& m = model();
  std::lock_guard lock(m.mutex);
  return refuse_legacy_work(m, current_device()) ? cudaErrorStreamCaptureImplicit : cudaSuccess;
}

OperationRef enqueue(QueuedOperation work, bool wait) {
  // Reports name the student's line that issued the work, not a harness
  // helper's (before the lock: symbolizing reads debug information).
  work.call_site = in_lab_code(work.call_site);
  Model& m = model();
  std::unique_lock lock(m.mutex);
  Stream* s = stream_of(m, work.stream);
  if (s->kind == StreamKind::legacy && refuse_legacy_work(m, s->device)) {
    set_last_error(cudaErrorStreamCaptureImplicit);
    return {};
  }
  if (s->capture) {  // captured: a node of the graph, run by cudaGraphLaunch
    Capture& c = *s->capture;
    if (c.invalidated != cudaSuccess) {
      set_last_error(cudaErrorStreamCaptureInvalidated);
      return {};
    }
    c.graph.nodes.push_back({std::move(work), std::move(s->capture_tail)});
    s->capture_tail = {c.graph.nodes.size() - 1};
    return {};
  }
  auto op = std::make_unique<Operation>();
  op->stream = s;
  const VectorClock ordered = start_clock(m, *s, false);
  for (std::uint32_t t = 0; t < ordered.size(); ++t) {
    if (t != s->index && ordered[t] > component(s->last_operation, t)) {
      op->after.emplace_back(t, ordered[t]);
    }
  }
  op->clock = start_clock(m, *s);
  op->issue_time_us = m.host_time_us;
  op->seq = ++s->issued;
  if (op->clock.size() <= s->index) op->clock.resize(s->index + 1, 0);
  op->clock[s->index] = op->seq;
  s->last = op->clock;
  s->last_operation = op->clock;
  op->issue_order = ++m.issue_counter;
  s->end_times.push_back(0);
  op->name = {work.what, s->name(), work.call_site};
  op->work = std::move(work);
  const VectorClock clock = op->clock;
  const OperationRef ref{s->index, op->seq};
  s->queue.push_back(std::move(op));
  ++m.queued;
  model_active.store(true, std::memory_order_release);
  lock.unlock();
  if (wait) run_until_and_wait(clock);
  return ref;
}

void set_stream_label(cudaStream_t stream, std::string label) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  if (Stream* s = stream_of(m, stream)) s->label = std::move(label);
}

bool is_capturing(cudaStream_t stream) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  const Stream* s = stream_of(m, stream);
  return s && s->capture;
}

cudaError_t unsafe_during_capture() {
  if (!model_active.load(std::memory_order_acquire)) return cudaSuccess;
  Model& m = model();
  std::lock_guard lock(m.mutex);
  bool forbidden = false;
  for (const auto& c : m.captures) {
    const bool applies =
        c->mode == cudaStreamCaptureModeGlobal ||
        (c->mode == cudaStreamCaptureModeThreadLocal && c->thread == std::this_thread::get_id());
    if (!applies) continue;
    forbidden = true;
    c->invalidate(cudaErrorStreamCaptureUnsupported);
  }
  return forbidden ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

bool next_happens_after(cudaStream_t stream, OperationRef op) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = stream_of(m, stream);
  return s && component(start_clock(m, *s), op.stream_index) >= op.seq;
}

void synchronize_device(int device) {
  if (!model_active.load(std::memory_order_acquire)) return;
  Model& m = model();
  VectorClock all;
  {
    std::lock_guard lock(m.mutex);
    all = all_work_of(m, device < 0 ? current_device() : device);
  }
  run_until_and_wait(all);
}

void reset_device() {
  synchronize_device();
  const int device = current_device();
  forget_peer_access(device);
  Model& m = model();
  std::lock_guard lock(m.mutex);
  std::erase_if(m.live_created, [&](const Stream* s) {
    if (s->device != device) return false;
    const_cast<Stream*>(s)->destroyed = true;
    return true;
  });
  std::erase_if(m.live_events, [&](const Event* e) {
    if (e->device != device) return false;
    const_cast<Event*>(e)->destroyed = true;
    return true;
  });
  update_active(m);
}

namespace {

// What a synchronisation with `stream` waits for: the default streams' own
// rules decide what a wait for them covers.
VectorClock stream_target(Model& m, cudaStream_t stream) {
  std::lock_guard lock(m.mutex);
  Stream* s = stream_of(m, stream);
  if (!s) return {};
  return is_default_stream(stream) ? start_clock(m, *s) : s->last;
}

}  // namespace

bool device_has_queued_work(int device) {
  if (!model_active.load(std::memory_order_acquire)) return false;
  Model& m = model();
  std::lock_guard lock(m.mutex);
  return std::any_of(m.streams.begin(), m.streams.end(),
                     [&](const auto& s) { return s->device == device && !s->queue.empty(); });
}

void synchronize_stream(cudaStream_t stream) {
  if (!model_active.load(std::memory_order_acquire)) return;
  run_until_and_wait(stream_target(model(), stream));
}

bool query_done(const VectorClock& target, std::uint64_t asking, std::uint64_t& not_ready_at) {
  Model& m = model();
  {
    std::lock_guard lock(m.mutex);
    bool host_waited = true;
    for (std::size_t i = 0; i < target.size(); ++i) {
      host_waited = host_waited && component(m.host, i) >= target[i];
    }
    if (host_waited || (not_ready_at == asking && has_run(m, target))) {
      host_waits_for(m, target);
      return true;
    }
    not_ready_at = asking;
  }
  // The adversarial answer: not finished. The work runs now, so that a loop
  // polling the query ends at its next call; the host is ordered after it
  // only when a query answers cudaSuccess or a synchronisation waits for it.
  run_until(target);
  return false;
}

bool query_stream(cudaStream_t stream) {
  if (!model_active.load(std::memory_order_acquire)) return true;
  Model& m = model();
  const VectorClock target = stream_target(m, stream);
  std::uint64_t asking = 0;
  std::uint64_t* not_ready_at = nullptr;
  {
    std::lock_guard lock(m.mutex);
    Stream* s = stream_of(m, stream);
    if (!s) return true;
    asking = std::uint64_t{s->issued} + 1;
    not_ready_at = &s->not_ready_at;
  }
  return query_done(target, asking, *not_ready_at);
}

}  // namespace cudalab::emu::detail

// ---- the runtime API of streams and events --------------------------------------------

namespace cudalab::emu {

namespace {

using detail::Event;
using detail::model;
using detail::Stream;

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

Event* live_event(detail::Model& m, cudaEvent_t handle) {
  auto* e = reinterpret_cast<Event*>(handle);
  return e && m.live_events.count(e) ? e : nullptr;
}

cudaError_t create_stream(cudaStream_t* stream, unsigned int flags) {
  if (!stream || (flags & ~unsigned{cudaStreamNonBlocking})) return fail(cudaErrorInvalidValue);
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = m.add_stream((flags & cudaStreamNonBlocking) ? detail::StreamKind::non_blocking
                                                           : detail::StreamKind::blocking,
                           detail::current_device());
  s->number = ++m.created_count;
  // Work issued before the stream existed is ordered before it only where the
  // host waited for it; the clock starts from there.
  s->last = m.host;
  m.live_created.insert(s);
  detail::model_active.store(true, std::memory_order_release);
  *stream = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

}  // namespace

cudaError_t detail::capture_forbids_waiting_for(cudaStream_t stream) {
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = detail::stream_of(m, stream);
  if (!s || !s->capture) return cudaSuccess;
  s->capture->invalidate(cudaErrorStreamCaptureUnsupported);
  return cudaErrorStreamCaptureUnsupported;
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return create_stream(stream, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return create_stream(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  auto* s = reinterpret_cast<Stream*>(stream);
  if (detail::is_default_stream(stream) || !m.live_created.count(s)) {
    return fail(cudaErrorInvalidResourceHandle);
  }
  // Its queued work still runs, as on the GPU; the handle is invalid from now on.
  s->destroyed = true;
  m.live_created.erase(s);
  detail::update_active(m);
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (cudaError_t e = detail::capture_forbids_waiting_for(stream); e != cudaSuccess) {
    return fail(e);
  }
  return detail::query_stream(stream) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  if (flags != 0) return fail(cudaErrorInvalidValue);
  Event* e = live_event(m, event);
  Stream* s = detail::stream_of(m, stream);
  if (!e || !s) return fail(cudaErrorInvalidResourceHandle);
  if (e->capture) {
    // An event recorded in a capture: the waiting stream joins the capture
    // (a fork) or, already in it, depends on the event's nodes too (a join).
    if (s->capture && s->capture != e->capture) {
      s->capture->invalidate(cudaErrorStreamCaptureMerge);
      return fail(cudaErrorStreamCaptureMerge);
    }
    if (!s->capture) {
      if (s->kind == detail::StreamKind::legacy) return fail(cudaErrorStreamCaptureImplicit);
      s->capture = e->capture;
      s->capture_tail.clear();
      e->capture->members.push_back(s);
    }
    for (std::size_t node : e->captured_tail) {
      if (std::find(s->capture_tail.begin(), s->capture_tail.end(), node) ==
          s->capture_tail.end()) {
        s->capture_tail.push_back(node);
      }
    }
    return cudaSuccess;
  }
  if (s->capture) {
    // Only the capture's own events may order captured work: a record
    // outside it is not part of the graph.
    s->capture->invalidate(cudaErrorStreamCaptureIsolation);
    return fail(cudaErrorStreamCaptureIsolation);
  }
  // Binds to the record made last before this call; a never-recorded event
  // is no wait at all.
  if (e->recorded) detail::join(s->last, e->clock);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  if (!fn) return fail(cudaErrorInvalidValue);
  if (!detail::is_valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  const bool at_once = detail::runs_at_once(stream);
  detail::QueuedOperation op;
  op.stream = stream;
  op.what = "cudaLaunchHostFunc";
  op.call_site = detail::SiteRef::at_pc(__builtin_return_address(0));
  op.run = [fn, user_data,
            device = detail::device_of_stream(stream)](detail::OperationAccesses& accesses) {
    accesses.complete = false;
    accesses.incomplete_reason = "a host function's accesses are not traced";
    detail::flush_device_output(device);  // the GPU flushes printf before a host function
    fn(user_data);
  };
  detail::enqueue(std::move(op), at_once);
  return cudaSuccess;
}

// ---- stream capture ---------------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return fail(cudaErrorInvalidValue);
  }
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = detail::stream_of(m, stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  // The legacy default stream synchronises with every blocking stream: its
  // work cannot be captured.
  if (s->kind == detail::StreamKind::legacy) return fail(cudaErrorStreamCaptureUnsupported);
  if (s->capture) return fail(cudaErrorIllegalState);
  auto c = std::make_shared<detail::Capture>();
  c->origin = s;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->members.push_back(s);
  s->capture = c;
  s->capture_tail.clear();
  m.captures.push_back(std::move(c));
  detail::update_active(m);
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (!graph) return fail(cudaErrorInvalidValue);
  detail::Model& m = model();
  std::unique_lock lock(m.mutex);
  Stream* s = detail::stream_of(m, stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (!s->capture) return fail(cudaErrorIllegalState);
  std::shared_ptr<detail::Capture> c = s->capture;
  if (c->origin != s) {
    // Ended on a stream it forked to: the capture is invalidated.
    c->invalidate(cudaErrorStreamCaptureUnmatched);
    return fail(cudaErrorStreamCaptureUnmatched);
  }
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id()) {
    return fail(cudaErrorStreamCaptureWrongThread);
  }
  const std::vector<std::size_t> tail = std::move(s->capture_tail);
  // The capture ends on every stream that took part.
  for (Stream* member : c->members) {
    member->capture.reset();
    member->capture_tail.clear();
  }
  std::erase(m.captures, c);
  detail::update_active(m);
  *graph = nullptr;
  if (c->invalidated != cudaSuccess) return fail(cudaErrorStreamCaptureInvalidated);
  // Every fork must have been joined back into the origin stream: each node
  // without a successor is one the origin's next operation would depend on.
  std::vector<bool> has_successor(c->graph.nodes.size(), false);
  for (const detail::GraphNode& node : c->graph.nodes) {
    for (std::size_t d : node.depends_on) has_successor[d] = true;
  }
  for (std::size_t i = 0; i < has_successor.size(); ++i) {
    if (!has_successor[i] && std::find(tail.begin(), tail.end(), i) == tail.end()) {
      return fail(cudaErrorStreamCaptureUnjoined);
    }
  }
  lock.unlock();
  *graph = detail::adopt_graph(std::move(c->graph));
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  if (!status) return fail(cudaErrorInvalidValue);
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = detail::stream_of(m, stream);
  if (!s) return fail(cudaErrorInvalidResourceHandle);
  if (!s->capture) {
    *status = cudaStreamCaptureStatusNone;
  } else {
    *status = s->capture->invalidated == cudaSuccess ? cudaStreamCaptureStatusActive
                                                     : cudaStreamCaptureStatusInvalidated;
  }
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return cudaEventCreateWithFlags(event, flags);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  constexpr unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (!event || (flags & ~known)) return fail(cudaErrorInvalidValue);
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  m.events.push_back(std::make_unique<Event>());
  Event* e = m.events.back().get();
  e->flags = flags;
  e->device = detail::current_device();
  m.live_events.insert(e);
  *event = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Event* e = live_event(m, event);
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  e->destroyed = true;
  m.live_events.erase(e);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Event* e = live_event(m, event);
  Stream* s = detail::stream_of(m, stream);
  if (!e || !s) return fail(cudaErrorInvalidResourceHandle);
  // An event is recorded only on a stream of its own device (a wait may
  // come from any device).
  if (s->device != e->device) return fail(cudaErrorInvalidResourceHandle);
  if (s->capture) {
    // A record in a capture marks the stream's captured work so far, for a
    // cudaStreamWaitEvent to fork or join on.
    e->capture = s->capture;
    e->captured_tail = s->capture_tail;
    return cudaSuccess;
  }
  e->capture.reset();
  e->captured_tail.clear();
  // The record completes when the work before it on the stream (with the
  // default-stream rules) has: that work is its clock.
  e->clock = detail::start_clock(m, *s);
  e->record_time_us = m.host_time_us;
  e->recorded = true;
  ++e->records;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  detail::Model& m = model();
  detail::VectorClock clock;
  bool recorded = false;
  int device = 0;
  {
    std::lock_guard lock(m.mutex);
    Event* e = live_event(m, event);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    if (e->capture) {  // its work runs only in a graph launch
      e->capture->invalidate(cudaErrorCapturedEvent);
      return fail(cudaErrorCapturedEvent);
    }
    recorded = e->recorded;
    clock = e->clock;
    device = e->device;
  }
  if (cudaError_t sticky = detail::sticky_error(device); sticky != cudaSuccess) return fail(sticky);
  // A never-recorded event is complete: nothing to wait for.
  if (recorded) detail::run_until_and_wait(clock);
  detail::host_synchronised(device, false);
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  detail::Model& m = model();
  detail::VectorClock clock;
  std::uint64_t asking = 0;
  std::uint64_t* not_ready_at = nullptr;
  {
    std::lock_guard lock(m.mutex);
    Event* e = live_event(m, event);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    if (e->capture) {
      e->capture->invalidate(cudaErrorCapturedEvent);
      return fail(cudaErrorCapturedEvent);
    }
    if (!e->recorded) return cudaSuccess;
    clock = e->clock;
    asking = e->records;
    not_ready_at = &e->not_ready_at;
  }
  return detail::query_done(clock, asking, *not_ready_at) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return fail(cudaErrorInvalidValue);
  detail::Model& m = model();
  std::lock_guard lock(m.mutex);
  Event* a = live_event(m, start);
  Event* b = live_event(m, end);
  if (!a || !b) return fail(cudaErrorInvalidResourceHandle);
  if (a->device != b->device) return fail(cudaErrorInvalidResourceHandle);
  if ((a->flags | b->flags) & cudaEventDisableTiming) return fail(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
  if (!detail::has_run(m, a->clock) || !detail::has_run(m, b->clock)) {
    return fail(cudaErrorNotReady);
  }
  const double a_us = std::max(a->record_time_us, detail::end_of(m, a->clock));
  const double b_us = std::max(b->record_time_us, detail::end_of(m, b->clock));
  *ms = static_cast<float>((b_us - a_us) / 1000.0);
  return cudaSuccess;
}

}  // namespace cudalab::emu

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
