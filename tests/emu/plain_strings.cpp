// Instrumented plain CUDA that also builds text with the standard library:
// this translation unit instantiates std::string's out-of-line members
// (_M_mutate, _M_dispose: C++20 instantiates them where they are used) with
// the emulator's instrumentation, and test_emu_report_reentry links it
// first, so the linker keeps these instrumented copies for the whole
// program, the emulator's own report messages included.
#include "plain_strings.hpp"

#include <sstream>

#include "cudalab/kernel.hpp"

namespace plain_strings {

namespace device {

__global__ void write_one_past_the_end(float* a, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) a[n] = 1.0f;
}

}  // namespace device

std::string count_to(int n) {
  std::ostringstream text;
  text << n << ":";
  std::string s = text.str();
  for (int i = 1; i <= n; ++i) s += " " + std::to_string(i);
  return s;
}

void write_one_past_the_end(float* a, int n) { device::write_one_past_the_end<<<1, 32>>>(a, n); }

}  // namespace plain_strings
