// Lab 00 behind one interface, whichever backend runs it: its entry points,
// each declared once here (cudalab/harness/entry_points.hpp), bound to the
// lab's code in backend_impl.hpp, called by the tests as
// backend().call(entry::scale, y, x, alpha, n).
#pragma once

#include <memory>
#include <string>

#include "cudalab/harness/entry_points.hpp"

namespace lab00::harness {

using cudalab::harness::Entry;
using cudalab::harness::In;
using cudalab::harness::Observation;
using cudalab::harness::Out;
using cudalab::harness::RunOptions;

namespace entry {
// Exercise 1: y = alpha * x on n elements.
inline constexpr Entry<void(Out<float> y, In<float> x, float alpha, int n)> scale{"scale"};
}  // namespace entry

using Backend = cudalab::harness::EntryBackend;

std::unique_ptr<Backend> make_emulator_backend();
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not = nullptr);
// The same over solutions/ (cmake/CudalabLab.cmake builds it for every lab):
// a lab whose exercises build on each other grades each one against these
// for the parts it does not own (OnBackend's reference()).
std::unique_ptr<Backend> make_reference_emulator_backend();
std::unique_ptr<Backend> make_reference_gpu_backend(std::string* why_not = nullptr);

}  // namespace lab00::harness
