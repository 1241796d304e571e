#include "cudalab/harness/crash_report.hpp"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "cudalab/emu/crash_context.hpp"
#include "cudalab/emu/lab_code_place.hpp"

namespace cudalab::harness {
namespace {

// Written before tests run or between them; read by the handler only.
char current_test[512] = "";
int report_descriptor = -1;

// Where this executable is loaded: frames are reported relative to it, since
// the process that reads them loads it elsewhere.
std::uintptr_t executable_low = 0, executable_high = 0;

int find_executable(dl_phdr_info* info, std::size_t, void*) {
  // The first object is the program itself.
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& header = info->dlpi_phdr[i];
    if (header.p_type != PT_LOAD) continue;
    const std::uintptr_t end = info->dlpi_addr + header.p_vaddr + header.p_memsz;
    if (end > executable_high) executable_high = end;
  }
  executable_low = info->dlpi_addr;
  return 1;
}

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

void append_number(char* out, std::size_t size, std::uint64_t value, int base = 10) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value % static_cast<unsigned>(base)];
    value /= static_cast<unsigned>(base);
  } while (value != 0);
  char text[26] = "";
  int k = 0;
  if (base == 16) {
    text[k++] = '0';
    text[k++] = 'x';
  }
  while (n > 0) text[k++] = digits[--n];
  text[k] = '\0';
  append(out, size, text);
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

// The cause in words, from the signal and what the kernel says about it.
void describe_cause(char* out, std::size_t size, int number, const siginfo_t* info) {
  const auto address = reinterpret_cast<std::uintptr_t>(info != nullptr ? info->si_addr : nullptr);
  switch (number) {
    case SIGSEGV:
      if (info != nullptr && emu::is_stack_overflow(info->si_addr)) {
        append(out, size, "stack overflow: the CUDA thread's local variables outgrew the ");
        append_number(out, size, emu::cuda_thread_stack_bytes() / 1024);
        append(out, size,
               " KiB stack the emulator gives each thread (a large local array? put it in "
               "shared or global memory)");
      } else if (address < 4096) {
        append(out, size, "segmentation fault: a null pointer was dereferenced (address ");
        append_number(out, size, address, 16);
        append(out, size, ")");
      } else {
        append(out, size, "segmentation fault: an access to ");
        append_number(out, size, address, 16);
        append(out, size,
               ", memory the process does not own (a host pointer on the device, a freed "
               "buffer, or an index far out of bounds?)");
      }
      return;
    case SIGBUS:
      append(out, size, "bus error: a misaligned or unmapped access at ");
      append_number(out, size, address, 16);
      return;
    case SIGFPE:
      if (info != nullptr && info->si_code == FPE_INTDIV) {
        append(out, size, "integer division by zero");
      } else if (info != nullptr && info->si_code == FPE_INTOVF) {
        append(out, size, "integer overflow in a division (INT_MIN / -1?)");
      } else {
        append(out, size, "arithmetic exception");
      }
      return;
    case SIGILL:
      append(out, size, "illegal instruction");
      return;
    case SIGABRT:
      append(out, size, "abort (a failed assert, or std::terminate after an uncaught exception)");
      return;
    default:
      append(out, size, "a fatal signal");
  }
}

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

void on_fatal_signal(int number, siginfo_t* info, void* context) {
  char what[1024] = "";
  describe_cause(what, sizeof what, number, info);
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
    // The faulting instruction, then its callers.
    void* frames[64];
    const int n = emu::interrupted_stack(context, frames, 64);
    char json[4096] = "{\"crash\": \"";
    append(json, sizeof json, what, true);
    append(json, sizeof json, "\", \"frames\": [");
    bool any = false;
    auto add = [&](std::uintptr_t address) {
      if (address < executable_low || address >= executable_high) return;
      if (any) append(json, sizeof json, ", ");
      append_number(json, sizeof json, address - executable_low);
      any = true;
    };
    for (int i = 0; i < n; ++i) add(reinterpret_cast<std::uintptr_t>(frames[i]));
    append(json, sizeof json, "]}\n");
    write_all(report_descriptor, json);
  }
  // SA_RESETHAND restored the default action: the signal kills the process.
  raise(number);
}

}  // namespace

void install_crash_reporter(int report_fd) {
  report_descriptor = report_fd;
  dl_iterate_phdr(find_executable, nullptr);
  void* warm[2];
  backtrace(warm, 2);  // loads the unwinder now, not inside the handler
  // Its own stack, so that a stack overflow can still be reported.
  static char alternate_stack[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (const int number : kFatalSignals) sigaction(number, &action, nullptr);
}

void set_current_test(const char* full_name) {
  current_test[0] = '\0';
  append(current_test, sizeof current_test, full_name);
}

std::string crash_frames_place(const std::vector<std::uint64_t>& offsets) {
  if (executable_low == 0) dl_iterate_phdr(find_executable, nullptr);
  std::vector<const void*> addresses;
  for (const std::uint64_t offset : offsets) {
    addresses.push_back(reinterpret_cast<const void*>(executable_low + offset));
  }
  return emu::lab_code_place(addresses);
}

}  // namespace cudalab::harness
