// What a lab's tests tell the people reading their results besides pass or
// fail, collected per test: notes for `./lab run` ("stores: 4.00 sectors per
// warp request") and the emulator reports of the calls a test made. (Each
// exercise's title comes from the lab's descriptor, harness/NN_name/lab.json.)
// Backend-free and GoogleTest-free.
#pragma once

#include <string>
#include <vector>

namespace cudalab::harness {

// A line `./lab run NN` prints under the test that noted it.
void note(std::string text);
// The notes since the last call (the runner takes them after each test).
std::vector<std::string> take_notes();

// Emulator reports of the calls made since the last call (the first report
// of each call, with a count). OnBackend fails a test that leaves any.
void add_emulator_reports(const std::vector<std::string>& reports, std::size_t count);
std::vector<std::string> take_emulator_reports();

}  // namespace cudalab::harness
