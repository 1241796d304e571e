// Streams and events that release themselves at the end of their scope: the
// one RAII family for CUDA streams and events (labs 03 and 04 hold their
// experiments' streams and events in them), and one stream waiting for
// another (wait_stream, as PyTorch's Stream.wait_stream).
//
//   OwnedStream side(cudaStreamNonBlocking);   // cudaStreamCreateWithFlags
//   OwnedEvent done;                           // cudaEventCreateWithFlags
//   CUDA_CHECK(cudaEventRecord(done.get(), side.get()));
//
// Move-only, like std::unique_ptr. Creation is checked and throws
// cudalab::CudaError; destruction is not (a destructor must not throw, and
// work still queued on a destroyed stream runs to its end, as CUDA defines).
// An OwnedStream may also take over a stream made elsewhere (reset), the
// default streams included, which it never destroys.
#pragma once

#include <utility>

#include "cudalab/check.hpp"
#include "cudalab/kernel.hpp"

namespace cudalab {
inline namespace CUDALAB_BACKEND {

// The legacy default stream, the per-thread one, or 0: never destroyed.
inline bool is_default_stream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

class OwnedStream {
 public:
  OwnedStream() = default;
  explicit OwnedStream(unsigned flags) { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags)); }
  OwnedStream(OwnedStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  OwnedStream& operator=(OwnedStream&& other) noexcept {
    if (this != &other) reset(std::exchange(other.stream_, nullptr));
    return *this;
  }
  OwnedStream(const OwnedStream&) = delete;
  OwnedStream& operator=(const OwnedStream&) = delete;
  ~OwnedStream() { reset(nullptr); }

  // Destroys the stream held (unless a default one) and takes `stream` over.
  void reset(cudaStream_t stream) {
    if (!is_default_stream(stream_)) static_cast<void>(cudaStreamDestroy(stream_));
    stream_ = stream;
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class OwnedEvent {
 public:
  explicit OwnedEvent(unsigned flags = cudaEventDefault) {
    CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  }
  OwnedEvent(OwnedEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  OwnedEvent& operator=(OwnedEvent&& other) noexcept {
    if (this != &other) {
      release();
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  ~OwnedEvent() { release(); }

  cudaEvent_t get() const { return event_; }

 private:
  void release() {
    if (event_ != nullptr) static_cast<void>(cudaEventDestroy(event_));
    event_ = nullptr;
  }

  cudaEvent_t event_ = nullptr;
};

// PyTorch's waiter.wait_stream(waited_on): work queued on `waiter` from now
// on waits for the work queued on `waited_on` so far, through `event`
// (recorded on `waited_on`, waited for by `waiter`); the host does not wait.
inline void wait_stream(cudaStream_t waiter, cudaStream_t waited_on, cudaEvent_t event) {
  CUDA_CHECK(cudaEventRecord(event, waited_on));
  CUDA_CHECK(cudaStreamWaitEvent(waiter, event, 0));
}

}  // namespace CUDALAB_BACKEND
}  // namespace cudalab
