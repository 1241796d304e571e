// Which line of a lab's own code a stack is in: for reports of a crash or a
// hang, which must name the student's file and line, not the emulator's or
// the harness's.
#pragma once

#include <string>
#include <vector>

namespace cudalab::emu {

// The innermost frame of `return_addresses` (innermost first) that lies in a
// lab's code folder (labs/NN_name/, solutions/NN_name/ or a copy of one) as
// "labs/01_broadcast/broadcast_sum.cuh:54 (in broadcast_sum_kernel)"; else the
// innermost frame with a source line; "" when none has one. Not for signal
// handlers (it reads debug information).
std::string lab_code_place(const std::vector<const void*>& return_addresses);

// True for a source file of a lab's code: its folder is NN_name and that
// folder is not under harness/ or tests/.
bool is_lab_code_file(const std::string& file);

// The path from the lab folders' parent on ("labs/01_broadcast/x.cuh") for a
// lab code file; the file unchanged otherwise.
std::string short_source_path(const std::string& file);

}  // namespace cudalab::emu
