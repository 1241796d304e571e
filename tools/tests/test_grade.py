#!/usr/bin/env python3
"""grade.py: the table says pass / FAIL / CRASH / TIMEOUT per exercise, and
results.json is a valid Gradescope file whose entries hold the student-facing
message, at most 4 KB each, cut at a line end."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

GRADE = pathlib.Path(__file__).resolve().parent.parent / "grade.py"


def exercise(number, state, summary, message=""):
    return {"number": number, "title": f"title {number}", "state": state, "summary": summary,
            "message": message, "seconds": 0.1, "tests": []}


VERDICTS = {
    "lab": "01", "name": "broadcast", "code": "labs", "backend": "emulator", "seed": "1",
    "exercises": [
        exercise(1, "pass", "5 tests"),
        exercise(2, "CRASH", "stack overflow ... at labs/01_broadcast/broadcast_sum.cuh:54",
                 "  crashed: stack overflow\n  at labs/01_broadcast/broadcast_sum.cuh:54\n"),
        exercise(3, "TIMEOUT", "a test ran too long: details below",
                 "  test Ex3 was stopped after 30 s\n  In kernel k, block (0,0,0) ...\n"),
        exercise(4, "FAIL", "2 of 9 tests fail",
                 "".join(f"  line {i}: " + "x" * 60 + "\n" for i in range(200))),
        exercise(5, "SKIP", "no test ran on this backend"),
        # Graded by a test report instead (lab 01's pytest cases).
        exercise(6, "SKIP", "not run here: ./lab grade runs its pytest cases"),
    ],
}

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="pytest" tests="3">
  <testcase classname="t" name="test_good" time="0.1"/>
  <testcase classname="t" name="test_bad[a]" time="0.1"><failure message="m">x = 1
E   AssertionError: wrong
</failure></testcase>
  <testcase classname="t" name="test_bad[b]" time="0.1"><failure message="m">E   AssertionError: wrong
</failure></testcase>
</testsuite>
"""


class GradeTest(unittest.TestCase):
    def grade(self, with_junit=True):
        with tempfile.TemporaryDirectory() as tmp:
            verdicts = pathlib.Path(tmp, "verdicts.json")
            verdicts.write_text(json.dumps(VERDICTS))
            junit = pathlib.Path(tmp, "op.xml")
            junit.write_text(JUNIT)
            out = pathlib.Path(tmp, "results.json")
            reports = [f"01={verdicts}"] + ([f"01:6={junit}"] if with_junit else [])
            run = subprocess.run([sys.executable, str(GRADE), *reports, "--out", str(out)],
                                 check=True, capture_output=True, text=True)
            return run.stdout, json.loads(out.read_text())

    def test_a_test_report_takes_the_place_of_not_run_here(self):
        _, results = self.grade()
        sixes = [t for t in results["tests"] if t["name"].startswith("lab 01 exercise 6")]
        self.assertEqual(len(sixes), 1)
        self.assertEqual(sixes[0]["name"], "lab 01 exercise 6: title 6")
        self.assertTrue(sixes[0]["output"].startswith("FAIL:"))
        # Without the report the exercise still counts, with no points and why.
        table, results = self.grade(with_junit=False)
        self.assertRegex(table, r"total\s+10/60")
        self.assertIn("not run here", results["tests"][5]["output"])

    def test_table_names_every_state(self):
        table, _ = self.grade()
        rows = {re.match(r"lab \d+ exercise \d+", line)[0]: line
                for line in table.splitlines() if line.startswith("lab ")}
        for number, state in [(1, "pass"), (2, "CRASH"), (3, "TIMEOUT"), (4, "FAIL"),
                              (5, "SKIP"), (6, "FAIL")]:
            self.assertRegex(rows[f"lab 01 exercise {number}"], rf"\b{state}\b")
        self.assertRegex(table, r"total\s+10/60")

    def test_results_json_is_a_gradescope_file(self):
        _, results = self.grade()
        self.assertEqual(results["score"], 10)
        for test in results["tests"]:
            self.assertEqual(set(test) - {"status"},
                             {"name", "score", "max_score", "output", "visibility"})
            self.assertIsInstance(test["score"], (int, float))
            self.assertIn(test["status"], ("passed", "failed"))
            self.assertLessEqual(len(test["output"].encode()), 4096)
        self.assertEqual([t["score"] for t in results["tests"]], [10, 0, 0, 0, 0, 0])

    def test_messages_are_the_students(self):
        _, results = self.grade()
        tests = results["tests"]
        self.assertTrue(tests[1]["output"].startswith("CRASH: stack overflow"))
        self.assertIn("broadcast_sum.cuh:54", tests[1]["output"])
        self.assertTrue(tests[2]["output"].startswith("TIMEOUT:"))
        self.assertIn("stopped after 30 s", tests[2]["output"])
        # Cut at a line end, saying so; never mid-line.
        long = tests[3]["output"]
        self.assertIn("(cut: ./lab run NN shows it all)", long)
        for line in long.splitlines()[2:-1]:
            self.assertRegex(line, r"^  line \d+: x{60}$")
        # pytest's failures: the E lines, one paragraph for identical ones.
        op = tests[5]["output"]
        self.assertIn("test_bad[a] and 1 more:\nE   AssertionError: wrong", op)
        self.assertNotIn("x = 1", op)

    def test_a_missing_verdict_file_is_an_error_in_words(self):
        run = subprocess.run([sys.executable, str(GRADE), "01=/nonexistent/verdicts.json"],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("cannot read the verdicts of lab 01", run.stderr)


if __name__ == "__main__":
    unittest.main()
