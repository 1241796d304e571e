#include "kernel_run.hpp"

namespace cudalab::viewer {

Dim3 unflatten(std::uint64_t linear, Dim3 extent) {
  Dim3 d;
  d.x = static_cast<std::uint32_t>(linear % extent.x);
  linear /= extent.x;
  d.y = static_cast<std::uint32_t>(linear % extent.y);
  d.z = static_cast<std::uint32_t>(linear / extent.y);
  return d;
}

void record_write(KernelRun& run, std::uint64_t index, ThreadRef who) {
  ElementWrites& e = run.writes[index];
  if (e.count == 0) e.first = who;
  if (e.count == 1) e.second = who;
  ++e.count;
}

}  // namespace cudalab::viewer
