// When student code crashes a test process (a segmentation fault in a
// kernel, an abort), say so in words before the process dies: which test was
// running and, inside an emulated kernel, which CUDA thread. The signal then
// kills the process as it would have, so ctest still sees the crash.
#pragma once

namespace cudalab::harness {

// Installs the handlers. The report goes to stderr and, when `report_fd` is
// not negative, to that descriptor as one JSON line {"crash": "..."}.
void install_crash_reporter(int report_fd = -1);

// The test the report names; call it when each test starts.
void set_current_test(const char* full_name);

}  // namespace cudalab::harness
