// The runtime API of streams: cudaStreamCreate[WithFlags], cudaStreamDestroy,
// cudaStreamQuery, cudaStreamWaitEvent and cudaLaunchHostFunc
// (docs/emulator.md, "The device model"). Each checks its arguments as CUDA
// does and then changes the model (stream_model.hpp): a new stream's clock,
// an event's clock joined into a stream's, a host function queued like any
// operation. Capture (stream_capture.cpp) and events (events.cpp) have
// their own files.
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

namespace {

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

}  // namespace cudalab::emu
