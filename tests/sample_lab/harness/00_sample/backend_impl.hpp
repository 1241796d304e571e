// Lab 00's entry points bound to its code, once per backend (inline
// namespace CUDALAB_BACKEND).
#pragma once

#include "backend.hpp"
#include "cudalab/harness/device_call.hpp"
#include "scale.cuh"

namespace lab00::harness {
inline namespace CUDALAB_BACKEND {

class LabBackend final : public cudalab::harness::EntryBackendFor<Backend> {
 public:
  LabBackend() { bind(entry::scale, lab00::scale); }
};

}  // namespace CUDALAB_BACKEND
}  // namespace lab00::harness
