// The launcher and the text building of plain_strings.cpp.
#pragma once

#include <string>

namespace plain_strings {

// "3: 1 2 3", built in the instrumented translation unit.
std::string count_to(int n);
// a[n] = 1 by one thread: an out-of-bounds write the emulator reports.
void write_one_past_the_end(float* a, int n);

}  // namespace plain_strings
