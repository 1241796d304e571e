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

}  // namespace lab03
