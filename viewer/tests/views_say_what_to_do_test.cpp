// The rule every lab's views follow (issue 35): on the code a new student
// meets (the skeletons in labs/) every typed view shows something
// meaningful, or says in words what the student must do first, naming the
// exercise and `./lab run NN`. Each version of each listed lab runs with its
// default parameters; every view the version fills must either have
// something to draw (shows_something) or carry that sentence
// (RunOutcome::unfinished). With the reference code (a staff or CI build)
// every view must have something to draw and no sentence: the reference has
// nothing left to do.
#include <gtest/gtest.h>

#include "model/lab_source.hpp"
#include "model/ui_state.hpp"

namespace cudalab::viewer {
namespace {

bool grades_the_reference(const LabSource& lab) {
  return lab.code_origin().find("reference") != std::string::npos;
}

// Keeps the slow runs short: lab 02's error plot on a few K only.
RunRequest quick_request(const LabSource& lab, std::size_t version) {
  RunRequest r = default_request(lab);
  r.version = version;
  if (const auto k_max = parameter_index(lab, "k_max")) r.values[*k_max] = 1024;
  return r;
}

TEST(ViewsSayWhatToDo, EveryViewOfEveryVersionShowsSomethingOrSaysWhatToDoFirst) {
  const auto labs = available_labs();
  if (labs.empty()) GTEST_SKIP() << "no lab in this build";
  for (const auto& lab : labs) {
    const std::string number = lab->title().substr(0, lab->title().find(' '));
    const auto versions = lab->versions();
    for (std::size_t v = 0; v < versions.size(); ++v) {
      const std::string where = lab->title() + " / " + versions[v].name;
      RunOutcome out;
      try {
        out = lab->run(quick_request(*lab, v));
      } catch (const std::exception& e) {
        ADD_FAILURE() << where << ": the run threw instead of saying what to do: " << e.what();
        continue;
      }
      for (View view : views_filled(*lab, v)) {
        const auto todo = out.unfinished.find(view);
        const std::string said = todo == out.unfinished.end() ? "" : todo->second;
        const std::string tab = kPanelNames[static_cast<int>(view)];
        if (grades_the_reference(*lab)) {
          EXPECT_TRUE(shows_something(out, view)) << where << ", " << tab << ": " << out.error;
          EXPECT_EQ(said, "") << where << ", " << tab;
          continue;
        }
        if (shows_something(out, view) && said.empty()) continue;
        EXPECT_NE(said.find(" is not done yet: "), std::string::npos)
            << where << ", " << tab << " shows nothing and says nothing (run: " << out.error << ")";
        EXPECT_NE(said.find("`./lab run " + number + "`"), std::string::npos)
            << where << ", " << tab << ": " << said;
      }
    }
  }
}

}  // namespace
}  // namespace cudalab::viewer
