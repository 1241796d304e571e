// Helpers of the emulator tests: device buffers on the emulated runtime and
// quiet options for tests that plant bugs.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

#include "cudalab/kernel.hpp"

namespace emu_tests {

// A cudaMalloc'd array; the emulator's runtime sits behind the CUDA names.
template <class T>
class Device {
 public:
  explicit Device(std::size_t n) : n_(n) {
    EXPECT_EQ(cudaMalloc(&ptr_, n * sizeof(T)), cudaSuccess);
  }
  explicit Device(const std::vector<T>& host) : Device(host.size()) { upload(host); }
  ~Device() { cudaFree(ptr_); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  void upload(const std::vector<T>& host) {
    ASSERT_EQ(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    EXPECT_EQ(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return host;
  }
  void zero() { ASSERT_EQ(cudaMemset(ptr_, 0, n_ * sizeof(T)), cudaSuccess); }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

inline std::mt19937& rng() {
  static std::mt19937 engine(std::random_device{}());
  return engine;
}

inline std::vector<int> random_ints(std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}

inline std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng());
  return v;
}

// Options for a test that plants a bug: reports are expected, not printed.
inline cudalab::emu::Options quiet() {
  cudalab::emu::Options o = cudalab::emu::options();
  o.print_reports = false;
  return o;
}

inline bool has_report(const cudalab::emu::Recording& rec, cudalab::emu::ReportKind kind) {
  for (const auto& r : rec.reports()) {
    if (r.kind == kind) return true;
  }
  return false;
}

inline const cudalab::emu::Report* first_report(const cudalab::emu::Recording& rec,
                                                cudalab::emu::ReportKind kind) {
  static cudalab::emu::Report found;
  for (const auto& r : rec.reports()) {
    if (r.kind == kind) {
      found = r;
      return &found;
    }
  }
  return nullptr;
}

}  // namespace emu_tests
