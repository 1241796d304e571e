#!/usr/bin/env python3
"""check_labs.py passes the repository's labs and names each planted
disagreement between a lab's descriptor and what is written around it:
a TODO region, a test name, the handout, the README's table of labs, the
bench and viewer folders, the tests' scenario files, the harness's size,
and the descriptor's own form."""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "check_labs.py"
REPO = TOOL.parent.parent
LAB = "01_broadcast"


def copy_tree(root):
    """The part of the repository check_labs.py reads, for lab 01 only."""
    for name in ("README.md", "viewer/model/ui_state.hpp", f"harness/{LAB}/lab.json",
                 f"harness/{LAB}/bench_main.cu"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, root / name)
    for folder in (f"labs/{LAB}", f"solutions/{LAB}", f"tests/{LAB}"):
        shutil.copytree(REPO / folder, root / folder)
    (root / "viewer/labs" / LAB).mkdir(parents=True)
    readme = root / "README.md"
    # Only lab 01 is in the copy: its table lists only lab 01.
    readme.write_text("\n".join(line for line in readme.read_text().splitlines()
                                if not line.startswith("| 0") or line.startswith("| 01 ")))


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{path} has no {old!r}"
    path.write_text(text.replace(old, new, 1))


def edit_descriptor(root, change):
    path = root / "harness" / LAB / "lab.json"
    descriptor = json.loads(path.read_text())
    change(descriptor)
    path.write_text(json.dumps(descriptor))


def drop_exercise_6(d):
    d["exercises"].pop()


PLANTED = {
    "a descriptor without an exercise the lab has":
        (lambda root: edit_descriptor(root, drop_exercise_6),
         "a TODO(ex6) region, but lab.json has no exercise 6"),
    "exercises out of order":
        (lambda root: edit_descriptor(root, lambda d: d["exercises"][1].update(number=3)),
         "exercise 2 is numbered 3"),
    "an entry point the files do not have":
        (lambda root: edit_descriptor(root, lambda d: d["exercises"][0]["entry_points"].append(
            "no_such_function")), "entry point no_such_function is not in broadcast_sum.cuh"),
    "a region in a file the exercise does not list":
        (lambda root: edit_descriptor(root, lambda d: d["exercises"][4].update(
            files=["broadcast_nd.cuh"])), "gives exercise 5 the files broadcast_nd.cuh"),
    "a view the viewer does not have":
        (lambda root: edit_descriptor(root, lambda d: d["views"].append("hologram")),
         "the viewer has no view hologram"),
    "a test of an exercise the lab does not have":
        (lambda root: edit(root / "tests" / LAB / "ex1_index_test.cpp", "Ex1_", "Ex7_"),
         "tests are named Ex7_, but lab.json has no exercise 7"),
    "an exercise whose tests are gone":
        (lambda root: [p.unlink() for p in (root / "tests" / LAB).glob("ex5_*.cpp")],
         "no test is named Ex5_"),
    "a handout row that names another file":
        (lambda root: edit(root / "labs" / LAB / "README.md", "| 5 | `broadcast_vec.cuh`",
                           "| 5 | `broadcast_sum.cuh`"), "no heading \"### 5."),
    "a handout exercise the descriptor does not have":
        (lambda root: edit(root / "labs" / LAB / "README.md", "| 6 | `broadcast_op.cuh`",
                           "| 6 | `broadcast_op.cuh` |\n| 7 | `extra.cuh`"),
         "exercise 7 is not in lab.json"),
    "a README without the lab":
        (lambda root: edit(root / "README.md", "| 01 broadcast |", "| 01 broadcasting |"),
         "the table of labs lists"),
    "a bench the descriptor does not declare":
        (lambda root: edit_descriptor(root, lambda d: d.update(bench=False)),
         "bench is false, but harness/01_broadcast/bench_main.cu exists"),
    "a key the descriptor does not have":
        (lambda root: edit_descriptor(root, lambda d: d.update(test_scenario=["x.hpp"])),
         "the keys are"),
    "test scenarios that are not there":
        (lambda root: edit_descriptor(root, lambda d: d.update(test_scenarios=["gone.hpp"])),
         "test_scenarios names tests/01_broadcast/gone.hpp, which does not exist"),
    "test scenarios in a file the test program compiles":
        (lambda root: edit_descriptor(root, lambda d: d.update(
            test_scenarios=["ex1_index_test.cpp"])), "not a header of tests/01_broadcast/"),
    "a harness grown past its budget":
        (lambda root: (root / "harness" / LAB / "copied.hpp").write_text("int x;\n" * 301),
         "301 lines of code without the benchmark, over 300"),
    "a benchmark grown past the budget":
        (lambda root: edit(root / "harness" / LAB / "bench_main.cu", "#include",
                           "// padding\n" * 500 + "#include"),
         "lines of code with the benchmark, over 500"),
    "a lab folder without a descriptor":
        (lambda root: (root / "labs" / "07_more").mkdir(),
         "labs/07_more: no descriptor"),
}


class CheckLabsTest(unittest.TestCase):
    def run_tool(self, root):
        return subprocess.run([sys.executable, str(TOOL), str(root)], capture_output=True,
                              text=True)

    def test_the_repository_agrees(self):
        run = self.run_tool(REPO)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_the_copy_agrees(self):
        with tempfile.TemporaryDirectory() as tmp:
            copy_tree(pathlib.Path(tmp))
            run = self.run_tool(pathlib.Path(tmp))
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_each_disagreement_is_named(self):
        for what, (plant, words) in PLANTED.items():
            with self.subTest(what=what), tempfile.TemporaryDirectory() as tmp:
                root = pathlib.Path(tmp)
                copy_tree(root)
                plant(root)
                run = self.run_tool(root)
                self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
                self.assertIn(words, run.stdout)


if __name__ == "__main__":
    unittest.main()
