// The queue of the device model and the scheduler that runs it: issued work
// (enqueue) waits in its stream's queue until a host synchronisation point
// needs it, and then runs in an order the scheduler picks among the ready
// operations (Options::schedule, CUDALAB_EMU_SCHEDULE: adversarial, fifo or
// seeded), on the host thread that waits, without the model's mutex held.
// Each operation that ran is checked against the unordered ones of other
// streams (the race checker, stream_races.cpp), timed on the modelled clock,
// and forgotten once the host's clock shows every later operation happens
// after it. Also here: the synchronisation points (device, stream, query).
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cudalab/emu/runtime.hpp"
#include "device_side_effects.hpp"
#include "stream_model.hpp"

namespace cudalab::emu::detail {

namespace {

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

}  // namespace

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
    GraphNode node;
    node.work = std::move(work);
    node.depends_on = std::move(s->capture_tail);
    c.graph.nodes.push_back(std::move(node));
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
