#!/usr/bin/env python3
"""Tests of tools/exercise_isolation.py (`./lab isolation`): it writes a lab's
solution with exactly one exercise's TODO regions taken from the skeleton,
and grades a test program with the isolation rule (the exercise's own tests
fail, every other exercise's pass), naming each test that breaks it.

The trees are small labs in a temporary folder; the test programs are a
Python stand-in for a GoogleTest program (--gtest_list_tests,
--gtest_filter, --gtest_fail_fast and its RUN/OK/FAILED lines), told by
environment variables which tests fail, crash or hang.
"""
import os
import pathlib
import stat
import sys
import tempfile
import textwrap
import unittest

TOOLS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))
import exercise_isolation  # noqa: E402

SKELETON = """\
// Demo lab.
#define IDX(i) i
__global__ void add(float* a, const float* b, int n) {
  // TODO(ex1) begin, about 2 lines: a[i] += b[i] for this thread's i.
  // TODO(ex1) end
}

inline int blocks_for(int n) {
  // TODO(ex2) begin, about 1 line: not always 1.
  return 1;
  // TODO(ex2) end
}
"""

SOLUTION = """\
// Demo lab.
#define IDX(i) i
__global__ void add(float* a, const float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}

inline int blocks_for(int n) {
  return (n + 255) / 256;
}
"""

# A GoogleTest program in miniature. FAKE_FAIL, FAKE_CRASH, FAKE_HANG: test
# names separated by commas.
FAKE_PROGRAM = """\
import fnmatch, os, sys, time
TESTS = {tests!r}
def listed(name):
    return [n for n in os.environ.get(name, "").split(",") if n]
def matches(name, patterns):
    return any(fnmatch.fnmatchcase(name, p) for p in patterns.split(":") if p)
args = sys.argv[1:]
if "--gtest_list_tests" in args:
    suites = {{}}
    for test in TESTS:
        suite, case = test.split(".")
        suites.setdefault(suite, []).append(case)
    for suite, cases in suites.items():
        print(suite + ".")
        for case in cases:
            print("  " + case + "  # GetParam() = x")
    sys.exit(0)
gtest_filter = next(a.split("=", 1)[1] for a in args if a.startswith("--gtest_filter="))
positive, _, negative = gtest_filter.partition("-")
fail_fast = "--gtest_fail_fast" in args
failed = 0
for test in TESTS:
    if not matches(test, positive) or matches(test, negative):
        continue
    print("[ RUN      ] " + test, flush=True)
    if test in listed("FAKE_CRASH"):
        os.abort()
    if test in listed("FAKE_HANG"):
        time.sleep(60)
    if test in listed("FAKE_FAIL"):
        print("[  FAILED  ] " + test + ", where GetParam() = x (1 ms)")
        failed += 1
        if fail_fast:
            break
    else:
        print("[       OK ] " + test + " (1 ms)")
sys.exit(1 if failed else 0)
"""

TESTS = [
    "Emu/Ex1Add.Ex1_Small/emulator",
    "Emu/Ex1Add.Ex1_Large/emulator",
    "Gpu/Ex1Add.Ex1_Small/gpu",
    "Emu/Ex2Blocks.Ex2_Counts/emulator",
    "Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator",
    "Emu/Ex2Blocks.Ex2_Zero/emulator",
    "Emu/EndToEnd.Everything/emulator",
]


class ExerciseIsolationTest(unittest.TestCase):
    def setUp(self):
        self._folder = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._folder.name)
        self.write("labs/01_demo/README.md", "# the handout\n")
        self.write("labs/01_demo/add.cuh", SKELETON)
        self.write("solutions/01_demo/add.cuh", SOLUTION)
        self.write("solutions/01_demo/data.bin", "")
        (self.root / "solutions/01_demo/data.bin").write_bytes(b"\xff\x00\xfe")
        (self.root / "labs/01_demo/data.bin").write_bytes(b"\xff\x00\xfe")
        self.program = self.root / "test_lab01_demo"
        self.program.write_text(f"#!{sys.executable}\n" + FAKE_PROGRAM.format(tests=TESTS))
        self.program.chmod(self.program.stat().st_mode | stat.S_IXUSR)
        self._environment = dict(os.environ)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self._environment)
        self._folder.cleanup()

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def grade(self, exercise, fail=(), crash=(), hang=(), timeout=30, known=""):
        os.environ["FAKE_FAIL"] = ",".join(fail)
        os.environ["FAKE_CRASH"] = ",".join(crash)
        os.environ["FAKE_HANG"] = ",".join(hang)
        self.write("tests/01_demo/isolation_known.txt", known)
        couplings = exercise_isolation.read_known(self.root / "tests/01_demo/isolation_known.txt")
        status, report, log = exercise_isolation.grade(self.program, exercise, timeout, couplings)
        return status, "\n".join(report), log

    # ---- the tree ------------------------------------------------------------

    def test_lists_the_exercises_that_have_regions(self):
        self.assertEqual(exercise_isolation.exercises(self.root, "01_demo"), [1, 2])

    def test_writes_exactly_one_exercise_as_the_skeleton(self):
        tree = self.root / "tree"
        patch = self.root / "ex1.patch"
        written = exercise_isolation.write_tree(self.root, tree, "01_demo", 1, patch)
        self.assertEqual(sorted(written), ["add.cuh", "data.bin"])
        text = (tree / "01_demo/add.cuh").read_text()
        self.assertIn("  // TODO(ex1) begin, about 2 lines", text)
        self.assertNotIn("a[i] += b[i];\n", text)  # exercise 1's answer is gone
        self.assertIn("  return (n + 255) / 256;\n", text)  # exercise 2's answer stays
        self.assertNotIn("TODO(ex2)", text)
        self.assertTrue(text.startswith("// Demo lab.\n#define IDX(i) i\n"))
        self.assertTrue(text.endswith("}\n"))
        self.assertEqual((tree / "01_demo/data.bin").read_bytes(), b"\xff\x00\xfe")
        self.assertFalse((tree / "01_demo/README.md").exists())  # the handout is no code
        diff = patch.read_text()
        self.assertIn("+++ b/solutions/01_demo/add.cuh", diff)
        self.assertIn("-  if (i < n) a[i] += b[i];", diff)
        self.assertNotIn("256", diff)

    def test_writes_only_what_changes_and_restores_the_solution(self):
        tree = self.root / "tree"
        exercise_isolation.write_tree(self.root, tree, "01_demo", 2)
        self.assertEqual(exercise_isolation.write_tree(self.root, tree, "01_demo", 2), [])
        self.assertEqual(exercise_isolation.write_tree(self.root, tree, "01_demo"), ["add.cuh"])
        self.assertEqual((tree / "01_demo/add.cuh").read_text(), SOLUTION)

    def test_refuses_a_skeleton_that_differs_outside_its_regions(self):
        self.write("solutions/01_demo/add.cuh", SOLUTION.replace("// Demo lab.", "// Demo."))
        with self.assertRaisesRegex(exercise_isolation.IsolationError, "outside its TODO"):
            exercise_isolation.write_tree(self.root, self.root / "tree", "01_demo", 1)

    # ---- grading ---------------------------------------------------------------

    def test_an_isolated_exercise(self):
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Large/emulator"])
        self.assertEqual(status, 0, report)
        self.assertEqual(report, "caught by Emu/Ex1Add.Ex1_Large/emulator")

    def test_names_each_test_of_another_exercise_that_fails(self):
        status, report, log = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator",
                                                  "Emu/Ex2Blocks.Ex2_Counts/emulator",
                                                  "Emu/Ex2Blocks.Ex2_Zero/emulator"])
        self.assertEqual(status, 1, report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_Counts/emulator (FAILED) of exercise 2 "
                      "fails with exercise 1 as the skeleton", report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_Zero/emulator (FAILED)", report)
        self.assertIn("==== --gtest_filter=*Emu*.Ex1_* --gtest_fail_fast", log)

    def test_a_crash_costs_the_test_that_ran_and_the_rest_still_run(self):
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator",
                                                "Emu/Ex2Blocks.Ex2_Zero/emulator"],
                                       crash=["Emu/Ex2Blocks.Ex2_Counts/emulator"])
        self.assertEqual(status, 1, report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_Counts/emulator (CRASH (SIGABRT))", report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_Zero/emulator (FAILED)", report)

    def test_a_hang_is_a_timeout(self):
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator"],
                                       hang=["Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator"],
                                       timeout=3)
        self.assertEqual(status, 1, report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator (TIMEOUT)", report)

    def test_an_own_crash_catches_the_exercise(self):
        status, report, _ = self.grade(2, crash=["Emu/Ex2Blocks.Ex2_Counts/emulator"])
        self.assertEqual(status, 0, report)
        self.assertIn("caught by Emu/Ex2Blocks.Ex2_Counts/emulator (CRASH (SIGABRT))", report)

    def test_an_exercise_its_skeleton_passes_is_not_caught(self):
        status, report, _ = self.grade(2)
        self.assertEqual(status, 1, report)
        self.assertIn("NOT CAUGHT: none of the 3 emulator tests of exercise 2", report)

    def test_the_end_to_end_test_belongs_to_no_exercise(self):
        status, report, _ = self.grade(2, fail=["Emu/Ex2Blocks.Ex2_Zero/emulator",
                                                "Emu/EndToEnd.Everything/emulator"])
        self.assertEqual(status, 0, report)
        self.assertIn("also Emu/EndToEnd.Everything/emulator (FAILED): belongs to no exercise",
                      report)

    def test_a_known_coupling_excuses_the_tests_it_names(self):
        known = ("# exercise 2's kernel calls exercise 1's by design\n"
                 "1 *.Ex2_Adds* exercise 2 adds with exercise 1's kernel\n"
                 "2 *.Ex1_* not this exercise's\n")
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator",
                                                "Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator"],
                                       known=known)
        self.assertEqual(status, 0, report)
        self.assertIn("known: Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator (FAILED) of exercise 2: "
                      "exercise 2 adds with exercise 1's kernel", report)
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator",
                                                "Emu/Ex2Blocks.Ex2_AddsWithTheBlocks/emulator",
                                                "Emu/Ex2Blocks.Ex2_Zero/emulator"], known=known)
        self.assertEqual(status, 1, report)
        self.assertIn("VIOLATION: Emu/Ex2Blocks.Ex2_Zero/emulator", report)

    def test_a_known_coupling_that_excuses_nothing_is_stale(self):
        status, report, _ = self.grade(1, fail=["Emu/Ex1Add.Ex1_Small/emulator"],
                                       known="1 *.Ex2_Adds* exercise 2 adds with it\n")
        self.assertEqual(status, 1, report)
        self.assertIn("STALE: the known coupling 1 *.Ex2_Adds* (", report)
        self.assertIn("isolation_known.txt:1) matches no failing test: delete it", report)

    def test_a_malformed_known_coupling_is_refused(self):
        self.write("known.txt", "Ex2 exercise 2 adds\n")
        with self.assertRaisesRegex(exercise_isolation.IsolationError, "known.txt:1: not"):
            exercise_isolation.read_known(self.root / "known.txt")

    def test_lists_the_exercises_the_program_has_emulator_tests_of(self):
        # Exercise 3 has none here (lab 01's PyTorch operator is graded by pytest).
        self.assertEqual(exercise_isolation.tested_exercises([1, 2, 3], self.program),
                         ([1, 2], [3]))

    def test_an_exercise_without_emulator_tests_is_not_checked(self):
        status, report, _ = self.grade(3)
        self.assertEqual(status, 3, report)
        self.assertIn("not checked", report)


if __name__ == "__main__":
    unittest.main()
