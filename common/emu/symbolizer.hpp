// Machine address -> the source line it was compiled from, for reports.
// The emulator records an access site as a bare pc (the return address of
// an instrumentation hook) because that costs nothing; only a report or an
// export turns it into file:line through the debug information (DWARF) of
// the executable or shared object the pc lies in.
//
// Not for signal handlers: symbolize takes a mutex, allocates and reads
// files, so it must not be called from one (nor from any other context
// that allows only async-signal-safe calls): record the pc there and
// symbolise it later.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cudalab::emu::detail {

struct SourcePlace {
  std::string file;      // absolute or as compiled; empty when unknown
  unsigned line = 0;     // 0 when unknown
  unsigned column = 0;   // 0 when unknown (the compiler or the reader gave none)
  std::string function;  // demangled, may be empty
  // Where the code was inlined, innermost call first (file, line); read
  // where the DWARF reader is in-process (libdw), empty otherwise.
  std::vector<std::pair<std::string, unsigned>> inlined_at;
};

// Where the instruction at `pc` comes from (pass the return address of a
// call minus one, so that the pc lies inside the call instruction).
// `line` is the innermost one: for code inlined from a helper, the helper's
// line, unless the helper is not a lab's code and a lab's code line called
// it (inlined_at): then that line, so that reports name the student's file. `function` is the
// function whose machine code holds the pc (for inlined code, the function it was inlined into).
// Thread-safe, cached per pc; never throws. A pc without line information
// gives {"", 0, 0, "<symbol>"} when a symbol table of its module names the
// function, else {"", 0, 0, "<module>+0x<offset>"}, or {"", 0, 0, "0x<pc>"} when no
// loaded module holds it.
SourcePlace symbolize(const void* pc) noexcept;

// A C++ symbol as source code names it ("ns::f(float*, int)"); the symbol
// itself when it is not a mangled C++ name.
std::string demangle(const char* symbol);

// The file a copy made by tools/emu_rewrite.py stands for: a file whose first
// line is `#line 1 "<original>"` gives <original> (the copy keeps every line
// where it was); any other file gives itself. symbolize() answers with it:
// some DWARF readers name the copy for some instructions (seen with GCC 13's
// DWARF 5 read by addr2line), and a report must name the student's file.
std::string original_of_rewritten(const std::string& file);

// The rest is for tests: the two ways symbolize can read DWARF, so that
// one test can check that they agree.

// True when this build reads DWARF in-process through elfutils' libdwfl;
// false when symbolize runs addr2line instead (libdw was not found when
// the emulator was built).
bool symbolizer_uses_libdw() noexcept;

// What `addr2line -C -f -i` says about pc, uncached (one process per call).
// addr2line prints no column, so `column` is always 0.
SourcePlace symbolize_with_addr2line(const void* pc) noexcept;

}  // namespace cudalab::emu::detail
