// Internal to the emulator library: the state of the device model (streams,
// events, their queues and clocks) that its files share. streams.hpp is what
// the rest of the library sees of the model; this header is for the files
// that implement it, one job each (docs/emulator.md, "The device model"):
//
//   stream_model.cpp      happens-before: vector clocks, the stream handles
//   stream_scheduler.cpp  the queue, the scheduler that runs it, host synchronisation
//   stream_capture.cpp    stream capture (work becomes graph nodes)
//   streams.cpp           the runtime API of streams (cudaStreamCreate ...)
//   events.cpp            the runtime API of events (cudaEventRecord ...)
//   modelled_timeline.cpp what ran when on the modelled clock, as a Timeline
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
#pragma once

#include <driver_types.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "engine.hpp"
#include "streams.hpp"

namespace cudalab::emu::detail {

using VectorClock = std::vector<std::uint32_t>;

inline void join(VectorClock& into, const VectorClock& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (std::size_t i = 0; i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

inline std::uint32_t component(const VectorClock& c, std::size_t i) {
  return i < c.size() ? c[i] : 0;
}

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

// ---- the model's state and clocks (stream_model.cpp) ------------------------------

// The one model of the process.
Model& model();
// Set while anything is queued, any created stream lives or any operation
// waits to be checked: the one thing the single-stream fast path reads.
extern std::atomic<bool> model_active;
// Sets model_active from the model's state (the mutex held).
void update_active(Model& m);
// `device`'s legacy default stream, made on first use.
Stream* legacy_of(Model& m, int device);
// The stream a handle names (0 and the default-stream handles: those of the
// current device); nullptr for a stream that is not (or no longer) created.
Stream* stream_of(Model& m, cudaStream_t handle);
// A live event, or nullptr.
Event* live_event(Model& m, cudaEvent_t handle);
// The clock the next operation of `s` starts from: its own order, what the
// host waited for (`with_host`), and the legacy default stream's rules.
VectorClock start_clock(Model& m, const Stream& s, bool with_host = true);
// Everything issued so far, to any stream.
VectorClock everything_issued(const Model& m);
// Everything issued so far to `device`'s streams.
VectorClock all_work_of(Model& m, int device);
// When every operation `clock` names has ended, on the modelled clock (they
// have all run).
double end_of(const Model& m, const VectorClock& clock);
// True when every operation `clock` names has run.
bool has_run(const Model& m, const VectorClock& clock);

// ---- running the queue (stream_scheduler.cpp) -------------------------------------

// Runs queued operations until everything `target` names has run. Called
// without the mutex held.
void run_until(const VectorClock& target);
// Orders the host after `clock` (the mutex held): later operations happen
// after it, and what every later operation happens after is forgotten.
void host_waits_for(Model& m, const VectorClock& clock);
// A host synchronisation point: runs what `clock` names (and this thread's
// other ready work), then orders the host after it.
void run_until_and_wait(const VectorClock& clock);

// ---- stream capture (stream_capture.cpp) ------------------------------------------

// The legacy default stream's work would wait for a capturing blocking
// stream's: true when a capture with a blocking stream of `device` is in
// progress, which is then invalidated (the mutex held).
bool refuse_legacy_work(Model& m, int device);

}  // namespace cudalab::emu::detail
