// TEMPORARY (hooks branch): the interface of the symbolizer helper's header,
// as fixed in the plain-CUDA contract (section C). The symbolizer branch
// replaces this file and symbolizer.cpp when it is merged.
#pragma once

#include <string>

namespace cudalab::emu::detail {

struct SourcePlace {
  std::string file;   // absolute or as compiled; empty when unknown
  unsigned line = 0;  // 0 when unknown
  unsigned column = 0;
  std::string function;  // demangled, may be empty
};

// Where the instruction at `pc` comes from (pass the return address of a call minus one).
// Thread-safe, cached per pc; never throws; an unknown pc gives {"", 0, 0, "<module>+0x..."}.
SourcePlace symbolize(const void* pc) noexcept;

}  // namespace cudalab::emu::detail
