// `./lab run` for the harness fixture (tests/harness/fixture_lab.cpp).
#include "cudalab/harness/exercise_runner.hpp"

int main(int argc, char** argv) {
  return cudalab::harness::run_exercises(argc, argv, {"99", "fixture", 8, "tests/harness"});
}
