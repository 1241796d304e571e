// The names lab 03's code, harness and tests share (backend-free).
#pragma once

#include <string>

namespace lab03 {

// Exercise 1: which kind of side stream, and which default stream.
enum class StreamKind { blocking, non_blocking, per_thread };

inline std::string to_string(StreamKind kind) {
  switch (kind) {
    case StreamKind::blocking:
      return "blocking";
    case StreamKind::non_blocking:
      return "non_blocking";
    case StreamKind::per_thread:
      return "per_thread";
  }
  return "?";
}

// Exercise 3: how the lecture's consumer stream keeps the allocator from
// handing its block to the next tensor too early.
enum class ReuseGuard {
  none,           // free at once: the hazard
  record_stream,  // allocator.record_stream(block, side) before the free
  wait_stream,    // the default stream waits for the side stream before the free
};

inline std::string to_string(ReuseGuard guard) {
  switch (guard) {
    case ReuseGuard::none:
      return "none";
    case ReuseGuard::record_stream:
      return "record_stream";
    case ReuseGuard::wait_stream:
      return "wait_stream";
  }
  return "?";
}

}  // namespace lab03
