// Lab 00's Backend, compiled once per backend (inline namespace CUDALAB_BACKEND).
#pragma once

#include <vector>

#include "backend.hpp"
#include "cudalab/harness/device_call.hpp"
#include "scale.cuh"

namespace lab00::harness {
inline namespace CUDALAB_BACKEND {

class LabBackend final : public cudalab::harness::BackendFor<Backend> {
 public:
  Observation scale(std::vector<float>& y, const std::vector<float>& x, float alpha,
                    const RunOptions& options) override {
    cudalab::DeviceBuffer<float> x_device(x);
    return cudalab::harness::call_on_output(y, options, [&](float* y_device) {
      lab00::scale(y_device, x_device.data(), alpha, static_cast<int>(x.size()));
    });
  }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab00::harness
