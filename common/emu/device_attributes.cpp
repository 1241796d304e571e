// cudaDeviceGetAttribute and cudaGetDeviceProperties: both read the one table
// device_attributes.def (the H100's values, or the H200's under
// CUDALAB_EMU_PROFILE=h200), so a program that asks either way gets the
// same answer, as on the GPU.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string_view>
#include <thread>

#include "cudalab/emu/cooperative_launch.hpp"
#include "cudalab/emu/runtime.hpp"
#include "engine.hpp"

namespace cudalab::emu {

namespace {

cudaError_t fail(cudaError_t e) { return detail::set_last_error(e); }

enum class Profile { h100, h200 };

// Read at every query, so that a test may switch profiles in one process.
Profile profile_from_environment() {
  const char* env = std::getenv("CUDALAB_EMU_PROFILE");
  if (!env || !*env || std::string_view(env) == "h100") return Profile::h100;
  if (std::string_view(env) == "h200") return Profile::h200;
  static std::once_flag warned;
  std::call_once(warned, [env] {
    std::cerr << "cudalab emulator: CUDALAB_EMU_PROFILE=" << env
              << " is neither h100 nor h200; describing an H100\n";
  });
  return Profile::h100;
}

std::size_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : 0;
}

int host_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// What the GPU of the profile reports; false for a number that is no
// attribute.
constexpr bool gpu_attribute(cudaDeviceAttr attr, Profile profile, int* value) {
  const bool on_h200 = profile == Profile::h200;
  switch (attr) {
#define CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, field, h100, h200, source) \
  case attribute:                                                          \
    *value = on_h200 ? (h200) : (h100);                                    \
    return true;
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY(attribute, h100, h200, source) \
  CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, , h100, h200, source)
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED(attribute, field, h100, h200, emulator, source) \
  CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, field, h100, h200, source)
#define CUDALAB_EMU_DEVICE_PROPERTY(field, h100, h200, emulator, source)
#include "device_attributes.def"
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED
#undef CUDALAB_EMU_DEVICE_PROPERTY
    default:
      return false;
  }
}

constexpr int gpu_attribute(cudaDeviceAttr attr, Profile profile) {
  int value = 0;
  return gpu_attribute(attr, profile, &value) ? value : -1;
}

// The emulator's own limits are the table's GPUs', on either profile.
static_assert(gpu_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, Profile::h100) ==
              kMaxDynamicSharedBytes);
static_assert(gpu_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, Profile::h200) ==
              kMaxDynamicSharedBytes);
static_assert(gpu_attribute(cudaDevAttrMultiProcessorCount, Profile::h100) ==
              kCooperativeMultiprocessors);
static_assert(gpu_attribute(cudaDevAttrMultiProcessorCount, Profile::h200) ==
              kCooperativeMultiprocessors);

// What the emulator answers: the GPU's value, or its own for an _EMULATED row.
bool emulator_attribute(cudaDeviceAttr attr, int device, int* value) {
  switch (attr) {
#define CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, field, h100, h200, source)
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY(attribute, h100, h200, source)
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED(attribute, field, h100, h200, emulator, source) \
  case attribute:                                                                             \
    *value = (emulator);                                                                      \
    return true;
#define CUDALAB_EMU_DEVICE_PROPERTY(field, h100, h200, emulator, source)
#include "device_attributes.def"
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED
#undef CUDALAB_EMU_DEVICE_PROPERTY
    default:
      return gpu_attribute(attr, profile_from_environment(), value);
  }
}

template <class Field, class Value>
void set(Field& field, Value value) {
  field = static_cast<Field>(value);
}

}  // namespace

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return fail(cudaErrorInvalidValue);
  if (!detail::is_device(device)) return fail(cudaErrorInvalidDevice);
  int answer = 0;
  if (!emulator_attribute(attr, device, &answer)) return fail(cudaErrorInvalidValue);
  *value = answer;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return fail(cudaErrorInvalidValue);
  if (!detail::is_device(device)) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, kDeviceName, sizeof prop->name - 1);
  int value = 0;
  // Each member from its attribute's answer: the two cannot disagree.
#define CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, field, h100, h200, source) \
  emulator_attribute(attribute, device, &value);                           \
  set(prop->field, value);
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY(attribute, h100, h200, source)
#define CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED(attribute, field, h100, h200, emulator, source) \
  CUDALAB_EMU_DEVICE_ATTRIBUTE(attribute, field, h100, h200, source)
#define CUDALAB_EMU_DEVICE_PROPERTY(field, h100, h200, emulator, source) \
  set(prop->field, (emulator));
#include "device_attributes.def"
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_ONLY
#undef CUDALAB_EMU_DEVICE_ATTRIBUTE_EMULATED
#undef CUDALAB_EMU_DEVICE_PROPERTY
  return cudaSuccess;
}

}  // namespace cudalab::emu
