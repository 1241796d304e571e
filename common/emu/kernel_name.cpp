// A kernel's name for reports, from its address: dladdr finds the symbol
// (executables link with ENABLE_EXPORTS, i.e. -rdynamic), the C++ ABI
// demangles it. Kernels with internal linkage fall back to the address.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "engine.hpp"
#include "symbolizer.hpp"

namespace cudalab::emu::detail {

namespace {

std::string look_up(const void* kernel) {
  Dl_info info{};
  if (dladdr(kernel, &info) && info.dli_sname && info.dli_saddr == kernel) {
    return demangle(info.dli_sname);
  }
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "kernel@%p", kernel);
  return buffer;
}

}  // namespace

std::string kernel_name(const void* kernel) {
  static std::mutex mutex;
  static std::map<const void*, std::string> names;
  std::lock_guard lock(mutex);
  auto it = names.find(kernel);
  if (it == names.end()) it = names.emplace(kernel, look_up(kernel)).first;
  return it->second;
}

}  // namespace cudalab::emu::detail
