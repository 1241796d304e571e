// Lab 00 behind one interface, whichever backend runs it (see lab 01's
// backend.hpp for a lab with more to say).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cudalab/harness/observation.hpp"

namespace lab00::harness {

using cudalab::harness::Observation;
using cudalab::harness::RunOptions;

class Backend : public cudalab::harness::BackendBase {
 public:
  // Exercise 1: y = alpha * x; y comes back with what the device holds.
  virtual Observation scale(std::vector<float>& y, const std::vector<float>& x, float alpha,
                            const RunOptions& options = {}) = 0;
};

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/ (cmake/CudalabLab.cmake builds it for every lab):
// a lab whose exercises build on each other grades each one against these
// for the parts it does not own (OnBackend's reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab00::harness
