#!/usr/bin/env python3
"""Tests of tools/check_skeletons.py: it accepts a skeleton that differs from
its solution only inside TODO regions and rejects every other kind of drift.

Each test writes a small lab tree (labs/01_demo, solutions/01_demo) into a
temporary folder, changes one thing, and runs the checker on it as `./lab
test` does.
"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

CHECKER = pathlib.Path(__file__).resolve().parents[1] / "check_skeletons.py"

SKELETON = """\
// Demo lab: a += b.
__global__ void add(float* a, const float* b, int n) {
  // TODO(ex1) begin, about 2 lines: a[i] += b[i] for this thread's i.
  // TODO(ex1) end
}

inline void launch_add(float* a, const float* b, int n) {
  if (n == 0) return;
  add<<<(n + 255) / 256, 256>>>(a, b, n);
}

// The blocks of 256 threads that n threads need.
inline int blocks_for(int n) {
  // TODO(ex2) begin, about 1 line: not always 1.
  return 1;
  // TODO(ex2) end
}
"""

SOLUTION = """\
// Demo lab: a += b.
__global__ void add(float* a, const float* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i];
}

inline void launch_add(float* a, const float* b, int n) {
  if (n == 0) return;
  add<<<(n + 255) / 256, 256>>>(a, b, n);
}

// The blocks of 256 threads that n threads need.
inline int blocks_for(int n) {
  return (n + 255) / 256;
}
"""


class CheckSkeletonsTest(unittest.TestCase):
    def setUp(self):
        self._folder = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._folder.name)
        self.write("labs/01_demo/README.md", "# Lab 01: the handout, in labs/ only\n")
        self.write("labs/01_demo/add.cuh", SKELETON)
        self.write("solutions/01_demo/add.cuh", SOLUTION)

    def tearDown(self):
        self._folder.cleanup()

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def replace(self, relative, old, new):
        path = self.root / relative
        text = path.read_text()
        self.assertIn(old, text, f"the fixture {relative} has no {old!r}")
        path.write_text(text.replace(old, new))

    def check(self):
        run = subprocess.run([sys.executable, str(CHECKER), str(self.root)],
                             capture_output=True, text=True, check=False)
        return run.returncode, run.stdout + run.stderr

    def assert_rejected(self, *expected):
        code, output = self.check()
        self.assertEqual(code, 1, output)
        for text in expected:
            self.assertIn(text, output)

    def test_accepts_a_pair_that_differs_only_inside_todo_regions(self):
        code, output = self.check()
        self.assertEqual(code, 0, output)
        self.assertIn("1 lab, 1 file, 2 TODO regions", output)

    def test_accepts_any_answer_inside_a_region_even_an_empty_one(self):
        self.replace("solutions/01_demo/add.cuh",
                     "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "  if (i < n) a[i] += b[i];\n", "")
        code, output = self.check()
        self.assertEqual(code, 0, output)

    def test_rejects_a_line_only_the_solution_has_outside_a_region(self):
        # Lab 01's drift: the solution fixed a host wrapper that has no TODO.
        self.replace("solutions/01_demo/add.cuh", "  add<<<",
                     "  if (n < 0) throw std::invalid_argument(\"n < 0\");\n  add<<<")
        self.assert_rejected(
            "labs/01_demo/add.cuh:9: differs from solutions/01_demo/add.cuh:9 "
            "outside a TODO region",
            '    +   if (n < 0) throw std::invalid_argument("n < 0");')

    def test_rejects_a_line_only_the_skeleton_has_outside_a_region(self):
        self.replace("solutions/01_demo/add.cuh", "  if (n == 0) return;\n", "")
        self.assert_rejected(
            "labs/01_demo/add.cuh:8: differs from solutions/01_demo/add.cuh:8 "
            "outside a TODO region",
            "    -   if (n == 0) return;")

    def test_rejects_a_line_the_solution_adds_at_the_end(self):
        path = self.root / "solutions/01_demo/add.cuh"
        path.write_text(path.read_text() + "// only in the solution\n")
        self.assert_rejected("labs/01_demo/add.cuh:17: differs from solutions/01_demo/add.cuh:16",
                             "    + // only in the solution")

    def test_rejects_a_changed_comment_outside_a_region(self):
        self.replace("solutions/01_demo/add.cuh", "// Demo lab: a += b.", "// Demo lab: a = a + b.")
        self.assert_rejected("labs/01_demo/add.cuh:1: differs from solutions/01_demo/add.cuh:1",
                             "    - // Demo lab: a += b.", "    + // Demo lab: a = a + b.")

    def test_rejects_a_file_missing_from_the_solution(self):
        (self.root / "solutions/01_demo/add.cuh").unlink()
        self.write("solutions/01_demo/other.cuh", "// only here\n")
        self.assert_rejected("labs/01_demo/add.cuh: missing from solutions/01_demo/",
                             "solutions/01_demo/other.cuh: missing from labs/01_demo/")

    def test_rejects_a_handout_in_solutions(self):
        self.write("solutions/01_demo/README.md", "# a second handout\n")
        self.assert_rejected(
            "solutions/01_demo/README.md: the handout belongs in labs/01_demo/ only")

    def test_rejects_a_lab_without_a_solution(self):
        self.write("labs/02_more/kernel.cuh", "// no reference\n")
        self.assert_rejected("labs/02_more: no solutions/02_more reference for it")

    def test_rejects_a_todo_without_a_size(self):
        self.replace("labs/01_demo/add.cuh", "TODO(ex1) begin, about 2 lines: a[i]",
                     "TODO(ex1): a[i]")
        self.assert_rejected("labs/01_demo/add.cuh:3: a TODO must open a region and say its size",
                             "// TODO(ex1) begin, about 2 lines: ...")

    def test_rejects_a_todo_colon_outside_a_region(self):
        self.replace("labs/01_demo/add.cuh", "inline void", "// TODO: check n\ninline void")
        self.assert_rejected("labs/01_demo/add.cuh:7: a TODO must open a region")

    def test_rejects_a_region_without_an_end(self):
        self.replace("labs/01_demo/add.cuh", "  // TODO(ex1) end\n", "")
        self.assert_rejected("labs/01_demo/add.cuh:3: TODO(ex1) has no end line")

    def test_rejects_an_end_of_another_exercise(self):
        self.replace("labs/01_demo/add.cuh", "TODO(ex1) end", "TODO(ex2) end")
        self.assert_rejected("labs/01_demo/add.cuh:4: TODO(ex2) end closes the TODO(ex1) region")

    def test_rejects_a_size_far_from_the_solutions_answer(self):
        self.replace("labs/01_demo/add.cuh", "about 2 lines", "about 9 lines")
        self.assert_rejected("labs/01_demo/add.cuh:3: TODO(ex1) says about 9 lines, but the "
                             "solution's answer has 2")

    def test_rejects_a_void_cast_in_a_stub(self):
        self.replace("labs/01_demo/add.cuh", "  // TODO(ex1) end",
                     "  static_cast<void>(n);\n  // TODO(ex1) end")
        self.assert_rejected("labs/01_demo/add.cuh:4: a void cast that only silences a warning")


if __name__ == "__main__":
    unittest.main()
