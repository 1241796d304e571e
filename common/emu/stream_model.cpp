// The device model's state and its happens-before relation: the one Model,
// the stream handles (default streams per device and host thread, created
// streams), and the vector clocks every ordering question is answered with
// (stream_model.hpp explains them). The scheduler, capture and the runtime
// API read and change the model through these functions, under its mutex.
#include "stream_model.hpp"

#include <atomic>

#include "cudalab/emu/runtime.hpp"

namespace cudalab::emu::detail {

namespace {

// This host thread's per-thread default stream of each device, made on first use.
thread_local std::vector<Stream*> this_thread_streams;

// The default streams are those of the current device.
// Set by a translation unit built with --default-stream per-thread (shim.hpp).
std::atomic<bool> zero_is_per_thread{false};

}  // namespace

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

std::atomic<bool> model_active{false};

void update_active(Model& m) {
  model_active.store(m.queued > 0 || m.running > 0 || !m.live_created.empty() || !m.done.empty() ||
                         !m.captures.empty(),
                     std::memory_order_release);
}

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
VectorClock start_clock(Model& m, const Stream& s, bool with_host) {
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

Event* live_event(Model& m, cudaEvent_t handle) {
  auto* e = reinterpret_cast<Event*>(handle);
  return e && m.live_events.count(e) ? e : nullptr;
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

int device_of_stream(cudaStream_t stream) noexcept {
  if (is_default_stream(stream)) return current_device();
  Model& m = model();
  std::lock_guard lock(m.mutex);
  const auto* s = reinterpret_cast<const Stream*>(stream);
  return m.live_created.count(s) ? s->device : -1;
}

bool next_happens_after(cudaStream_t stream, OperationRef op) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = stream_of(m, stream);
  return s && component(start_clock(m, *s), op.stream_index) >= op.seq;
}

void set_stream_label(cudaStream_t stream, std::string label) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  if (Stream* s = stream_of(m, stream)) s->label = std::move(label);
}

}  // namespace cudalab::emu::detail
