#include "cudalab/harness/crash_report.hpp"

#include "cudalab/emu/crash_context.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace cudalab::harness {
namespace {

// Written before tests run or between them; read by the handler only.
char current_test[512] = "";
int report_descriptor = -1;

struct FatalSignal {
  int number;
  const char* words;
};
constexpr FatalSignal kFatalSignals[] = {
    {SIGSEGV, "segmentation fault (an access to memory the process does not own)"},
    {SIGBUS, "bus error (a misaligned or unmapped access)"},
    {SIGFPE, "arithmetic exception (integer division by zero?)"},
    {SIGILL, "illegal instruction"},
    {SIGABRT, "abort (a failed assert, or std::terminate after an uncaught exception)"},
};

// Appends `text` to `out` (capacity `size`, kept NUL-terminated); safe in a
// signal handler, unlike snprintf.
void append(char* out, std::size_t size, const char* text, bool json_escape = false) {
  std::size_t used = std::strlen(out);
  for (; *text != '\0' && used + 2 < size; ++text) {
    if (json_escape && (*text == '"' || *text == '\\')) out[used++] = '\\';
    if (json_escape && static_cast<unsigned char>(*text) < 0x20) continue;
    out[used++] = *text;
  }
  out[used] = '\0';
}

void write_all(int fd, const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(fd, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

void on_fatal_signal(int number) {
  const char* words = "a fatal signal";
  for (const auto& fatal : kFatalSignals) {
    if (fatal.number == number) words = fatal.words;
  }
  char what[1024] = "";
  append(what, sizeof what, words);
  if (current_test[0] != '\0') {
    append(what, sizeof what, " in test ");
    append(what, sizeof what, current_test);
  }
  char thread[384] = "";
  if (emu::describe_current_cuda_thread(thread, sizeof thread)) {
    append(what, sizeof what, ", while running ");
    append(what, sizeof what, thread);
  }

  char line[1200] = "\n*** crashed: ";
  append(line, sizeof line, what);
  append(line, sizeof line, "\n");
  write_all(STDERR_FILENO, line);
  if (report_descriptor >= 0) {
    char json[2400] = "{\"crash\": \"";
    append(json, sizeof json, what, true);
    append(json, sizeof json, "\"}\n");
    write_all(report_descriptor, json);
  }
  // SA_RESETHAND restored the default action: the signal kills the process.
  raise(number);
}

}  // namespace

void install_crash_reporter(int report_fd) {
  report_descriptor = report_fd;
  // Its own stack, so that a stack overflow can still be reported.
  static char alternate_stack[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (const auto& fatal : kFatalSignals) sigaction(fatal.number, &action, nullptr);
}

void set_current_test(const char* full_name) {
  current_test[0] = '\0';
  append(current_test, sizeof current_test, full_name);
}

}  // namespace cudalab::harness
