// The runtime API of events: cudaEventCreate[WithFlags], cudaEventDestroy,
// cudaEventRecord, cudaEventSynchronize, cudaEventQuery and
// cudaEventElapsedTime (docs/emulator.md, "The device model"). A record
// takes the clock its stream's next operation would start from; a wait
// (cudaStreamWaitEvent, streams.cpp) joins that clock; elapsed time is read
// on the modelled clock, not host time. Inside a capture a record marks the
// captured nodes instead (stream_capture.cpp).
#include <algorithm>

#include "cudalab/emu/runtime.hpp"
#include "device_side_effects.hpp"
#include "stream_model.hpp"

namespace cudalab::emu {

namespace {

using detail::Event;
using detail::live_event;
using detail::model;
using detail::Stream;

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

}  // namespace

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
