// `./lab run NN`: the lab's own GoogleTest cases, run one exercise at a time
// in a child process, printed as a report a student reads top-down: one line
// per exercise (pass, FAIL, CRASH, TIMEOUT) first, then what went wrong in
// each, with the notes the tests left. The same test cases as `ctest -L
// labNN`, so the two never disagree; a crash or a hang costs one exercise,
// not the run.
#pragma once

#include <string>

namespace cudalab::harness {

struct LabInfo {
  std::string number;     // "01"
  std::string name;       // "broadcast"
  int exercises = 0;      // as cudalab_add_lab declared it
  std::string code_from;  // "labs" (the student's code) or "solutions"
};

// main() of a lab's run program (labNN): parses the command line
// (--emu | --gpu, --exercise K, --verbose, --timeout S) and returns the
// process's exit status: 0 when every exercise passes, 1 when one does not,
// 2 for a usage error.
int run_exercises(int argc, char** argv, const LabInfo& lab);

}  // namespace cudalab::harness
