// Stream capture (docs/emulator.md, "Graphs"): between cudaStreamBeginCapture
// and cudaStreamEndCapture, work issued to a capturing stream becomes a node
// of a graph instead of running (enqueue adds it); events recorded in the
// capture fork other streams into it and join them back. Here: the capture
// API, and the rules a capture imposes on the rest of the runtime (calls it
// forbids, legacy-stream work it refuses, waits it makes illegal). Graphs
// themselves (instantiate, launch) are graphs.cpp.
#include <algorithm>
#include <thread>

#include "cudalab/emu/runtime.hpp"
#include "stream_model.hpp"

namespace cudalab::emu::detail {

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

cudaError_t legacy_work_during_capture() {
  if (!model_active.load(std::memory_order_acquire)) return cudaSuccess;
  Model& m = model();
  std::lock_guard lock(m.mutex);
  return refuse_legacy_work(m, current_device()) ? cudaErrorStreamCaptureImplicit : cudaSuccess;
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

cudaError_t capture_forbids_waiting_for(cudaStream_t stream) {
  Model& m = model();
  std::lock_guard lock(m.mutex);
  Stream* s = stream_of(m, stream);
  if (!s || !s->capture) return cudaSuccess;
  s->capture->invalidate(cudaErrorStreamCaptureUnsupported);
  return cudaErrorStreamCaptureUnsupported;
}

}  // namespace cudalab::emu::detail

// ---- the runtime API of stream capture ----------------------------------------------

namespace cudalab::emu {

namespace {

using detail::model;
using detail::Stream;

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

}  // namespace

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

}  // namespace cudalab::emu
