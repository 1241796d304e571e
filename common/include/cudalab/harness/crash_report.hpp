// When student code crashes a test process (a segmentation fault in a
// kernel, an abort), say so in words before the process dies: which test was
// running, the cause (stack overflow, null pointer, misaligned access,
// division by zero, ...) and, inside an emulated kernel, which CUDA thread.
// The signal then kills the process as it would have, so ctest still sees
// the crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::harness {

// Installs the handlers. The report goes to stderr and, when `report_fd` is
// not negative, to that descriptor as one JSON line
// {"crash": "...", "frames": [offsets]}: the crashing stack as offsets into
// this executable, which another process running the same executable turns
// into source lines with crash_frames_place().
void install_crash_reporter(int report_fd = -1);

// The test the report names; call it when each test starts.
void set_current_test(const char* full_name);

// The student's source line among a crash report's frames (see above), as
// cudalab::emu::lab_code_place words it; "" when none is known.
std::string crash_frames_place(const std::vector<std::uint64_t>& offsets);

}  // namespace cudalab::harness
