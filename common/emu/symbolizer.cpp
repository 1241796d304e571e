// TEMPORARY stand-in until the symbolizer branch is merged (it replaces this
// file): the function through dladdr, file and line through binutils'
// addr2line when it is installed. Slow (one process per new pc), cached.
#include "symbolizer.hpp"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace cudalab::emu::detail {

namespace {

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                           std::free);
  return status == 0 && d ? std::string(d.get()) : std::string(name);
}

SourcePlace lookup(const void* pc) {
  SourcePlace place;
  Dl_info info{};
  if (!dladdr(pc, &info) || !info.dli_fname) return place;
  const auto offset =
      reinterpret_cast<std::uintptr_t>(pc) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  if (info.dli_sname) place.function = demangle(info.dli_sname);
  char command[4096];
  std::snprintf(command, sizeof command, "addr2line -C -f -e '%s' 0x%zx 2>/dev/null",
                info.dli_fname, static_cast<std::size_t>(offset));
  if (FILE* p = popen(command, "r")) {
    char function[2048] = "", where[2048] = "";
    if (std::fgets(function, sizeof function, p) && std::fgets(where, sizeof where, p)) {
      std::string w(where);
      while (!w.empty() && (w.back() == '\n' || w.back() == ' ')) w.pop_back();
      // "file:line" or "file:line (discriminator n)"
      if (auto paren = w.find(" ("); paren != std::string::npos) w.resize(paren);
      if (auto colon = w.rfind(':'); colon != std::string::npos && w.compare(0, 2, "??") != 0) {
        place.file = w.substr(0, colon);
        place.line = static_cast<unsigned>(std::strtoul(w.c_str() + colon + 1, nullptr, 10));
      }
    }
    pclose(p);
  }
  if (place.function.empty()) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "+0x%zx", static_cast<std::size_t>(offset));
    place.function = std::string(info.dli_fname) + buffer;
  }
  return place;
}

}  // namespace

SourcePlace symbolize(const void* pc) noexcept {
  static std::mutex mutex;
  static std::map<const void*, SourcePlace> cache;
  try {
    std::lock_guard lock(mutex);
    auto it = cache.find(pc);
    if (it == cache.end()) it = cache.emplace(pc, lookup(pc)).first;
    return it->second;
  } catch (...) {
    return {};
  }
}

}  // namespace cudalab::emu::detail
