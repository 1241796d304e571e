// What a lab's tests tell the people reading their results besides pass or
// fail, collected per test: notes for `./lab run` ("stores: 4.00 sectors per
// warp request"), the emulator reports of the calls a test made, and the
// one-line title of each exercise. Backend-free and GoogleTest-free.
#pragma once

#include <map>
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

// Registers exercise k's title for `./lab run`; returns true so that a test
// file can write `const bool titled = describe_exercise(3, "coalesced stores");`.
bool describe_exercise(int exercise, std::string title);
const std::map<int, std::string>& exercise_titles();

}  // namespace cudalab::harness
