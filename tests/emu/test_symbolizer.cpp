// The symbolizer turns a return address into the caller's file and line,
// the way the emulator's access hooks will. Compiled twice: with the
// build's -O2 -g, and with -O2 -g1 (line tables only), as instrumented
// kernel code may be.
#include "symbolizer.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

// Set by the build: this file is compiled twice, with -g and with -g1.
#ifndef SYMBOLIZER_SUITE
#define SYMBOLIZER_SUITE Symbolizer
#endif

namespace {

using cudalab::emu::detail::SourcePlace;
using cudalab::emu::detail::symbolize;
using cudalab::emu::detail::symbolize_with_addr2line;
using cudalab::emu::detail::symbolizer_uses_libdw;

// A pc inside a call instruction, with the source line the call is at.
struct CallSite {
  const void* pc;
  unsigned line;
};

// `line` is __LINE__ at the call, so both name the same line. The pc is the
// return address minus one: the call instruction, not the one after it.
__attribute__((noinline)) CallSite call_site(unsigned line) {
  return {static_cast<const char*>(__builtin_return_address(0)) - 1, line};
}

// Inlined into each caller, so its call to call_site lies in the caller's
// machine code but on this helper's line.
__attribute__((always_inline)) inline CallSite call_site_from_inlined_helper() {
  return call_site(__LINE__);
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(SYMBOLIZER_SUITE, NamesTheFileAndLineOfACall) {
  const CallSite site = call_site(__LINE__);
  const SourcePlace place = symbolize(site.pc);
  EXPECT_TRUE(ends_with(place.file, "/test_symbolizer.cpp")) << place.file;
  EXPECT_EQ(place.line, site.line);
  EXPECT_NE(place.function.find("NamesTheFileAndLineOfACall"), std::string::npos) << place.function;
}

TEST(SYMBOLIZER_SUITE, NamesTheInlinedHelpersLineAndTheFunctionItIsInlinedInto) {
  const CallSite site = call_site_from_inlined_helper();
  const SourcePlace place = symbolize(site.pc);
  EXPECT_TRUE(ends_with(place.file, "/test_symbolizer.cpp")) << place.file;
  EXPECT_EQ(place.line, site.line);
  EXPECT_NE(place.function.find("NamesTheInlinedHelpersLine"), std::string::npos) << place.function;
}

TEST(SYMBOLIZER_SUITE, CachedAnswerIsTheSame) {
  const CallSite site = call_site(__LINE__);
  const SourcePlace first = symbolize(site.pc);
  const SourcePlace again = symbolize(site.pc);
  EXPECT_EQ(again.file, first.file);
  EXPECT_EQ(again.line, first.line);
  EXPECT_EQ(again.column, first.column);
  EXPECT_EQ(again.function, first.function);
}

TEST(SYMBOLIZER_SUITE, AnAddressInNoModuleIsUnknown) {
  const void* nowhere = reinterpret_cast<const void*>(std::uintptr_t{0x10});
  const SourcePlace place = symbolize(nowhere);
  EXPECT_EQ(place.file, "");
  EXPECT_EQ(place.line, 0u);
  EXPECT_EQ(place.column, 0u);
  EXPECT_EQ(place.function, "0x10");
  EXPECT_EQ(symbolize_with_addr2line(nowhere).function, "0x10");
}

TEST(SYMBOLIZER_SUITE, NamesTheSymbolInASharedLibraryWithoutLineInformation) {
  // libc is a shared object loaded at some bias, with no DWARF of its own:
  // the symbol table still names the function (puts, or its alias _IO_puts).
  const void* in_puts = reinterpret_cast<const char*>(&std::puts) + 1;
  EXPECT_NE(symbolize(in_puts).function.find("puts"), std::string::npos)
      << symbolize(in_puts).function;
}

TEST(SYMBOLIZER_SUITE, Addr2lineAgreesWithLibdw) {
  if (!symbolizer_uses_libdw()) GTEST_SKIP() << "built without libdw: symbolize is addr2line";
  for (const CallSite site : {call_site(__LINE__), call_site_from_inlined_helper()}) {
    const SourcePlace from_libdw = symbolize(site.pc);
    const SourcePlace from_addr2line = symbolize_with_addr2line(site.pc);
    EXPECT_EQ(from_addr2line.file, from_libdw.file);
    EXPECT_EQ(from_addr2line.line, from_libdw.line);
    EXPECT_EQ(from_addr2line.line, site.line);
    EXPECT_EQ(from_addr2line.function, from_libdw.function);
  }
}

TEST(SYMBOLIZER_SUITE, LibdwReportsTheColumn) {
  if (!symbolizer_uses_libdw()) GTEST_SKIP() << "addr2line prints no column";
  const CallSite site = call_site(__LINE__);
  // GCC places a call at its opening parenthesis: column 34 of the line above.
  EXPECT_EQ(symbolize(site.pc).column, 34u);
}

TEST(SYMBOLIZER_SUITE, ManyThreadsAtOnceGetTheSameAnswers) {
  // Addresses no test has asked about yet, so that the threads race on
  // first look-ups (opening the module, filling the cache), not on hits.
  const CallSite site = call_site(__LINE__);
  std::vector<const void*> pcs;
  for (int i = 0; i < 64; ++i) pcs.push_back(static_cast<const char*>(site.pc) + 2 * i + 1);
  pcs.push_back(site.pc);

  constexpr int kThreads = 8;
  std::vector<std::vector<SourcePlace>> answers(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Each thread walks the addresses from a different start.
      for (std::size_t i = 0; i < pcs.size(); ++i) {
        answers[t].push_back(symbolize(pcs[(i + 8 * t) % pcs.size()]));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) {
    for (std::size_t i = 0; i < pcs.size(); ++i) {
      const SourcePlace expected = symbolize(pcs[(i + 8 * t) % pcs.size()]);
      EXPECT_EQ(answers[t][i].file, expected.file);
      EXPECT_EQ(answers[t][i].line, expected.line);
      EXPECT_EQ(answers[t][i].function, expected.function);
    }
  }
  EXPECT_EQ(symbolize(site.pc).line, site.line);
}

// A rewritten copy names its original on its first line; reports must name
// the original even where a DWARF reader names the copy.
TEST(SYMBOLIZER_SUITE, ARewrittenCopyStandsForItsOriginal) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string tag = std::to_string(::getpid());  // two suites run at once
  const std::string copy = (dir / ("cudalab_symbolizer_copy_" + tag + ".cuh")).string();
  const std::string plain = (dir / ("cudalab_symbolizer_plain_" + tag + ".cuh")).string();
  std::ofstream(copy) << "#line 1 \"/home/student/labs/01_broadcast/broadcast_sum.cuh\"\nint x;\n";
  std::ofstream(plain) << "// #line 1 \"/elsewhere.cuh\"\nint x;\n";
  EXPECT_EQ(cudalab::emu::detail::original_of_rewritten(copy),
            "/home/student/labs/01_broadcast/broadcast_sum.cuh");
  EXPECT_EQ(cudalab::emu::detail::original_of_rewritten(plain), plain);
  EXPECT_EQ(cudalab::emu::detail::original_of_rewritten(copy + ".missing"), copy + ".missing");
  std::filesystem::remove(copy);
  std::filesystem::remove(plain);
}

}  // namespace
