#!/usr/bin/env python3
"""grade.py turns crashes and time-outs into words in results.json."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

GRADE = pathlib.Path(__file__).resolve().parent.parent / "grade.py"

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="4">
  <testcase name="Emu/A.Ex1_Good/emulator" time="0.1" status="run"><system-out>ok</system-out></testcase>
  <testcase name="Emu/B.Ex2_Crash/emulator" time="0.2" status="fail"><failure message=""/>
    <system-out>[ RUN      ] Emu/B.Ex2_Crash/emulator
*** crashed: segmentation fault in test Emu/B.Ex2_Crash/emulator, while running kernel k, block (1,0,0) thread (5,0,0)
</system-out></testcase>
  <testcase name="Emu/C.Ex3_Hang/emulator" time="120.0" status="fail"><failure message=""/>
    <system-out>[ RUN      ] Emu/C.Ex3_Hang/emulator</system-out></testcase>
  <testcase name="Gpu/A.Ex1_Good/gpu" time="0" status="notrun"><skipped/></testcase>
</testsuite>
"""


class GradeTest(unittest.TestCase):
    def grade(self):
        with tempfile.TemporaryDirectory() as tmp:
            junit = pathlib.Path(tmp, "junit.xml")
            junit.write_text(JUNIT)
            out = pathlib.Path(tmp, "results.json")
            subprocess.run([sys.executable, str(GRADE), f"01={junit}", "--out", str(out)],
                           check=True, capture_output=True, text=True)
            return {t["name"]: t for t in json.loads(out.read_text())["tests"]}

    def test_scores_and_words(self):
        tests = self.grade()
        self.assertEqual(tests["lab 01 exercise 1"]["score"], 10)
        crash = tests["lab 01 exercise 2"]
        self.assertEqual(crash["score"], 0)
        self.assertIn("crashed: segmentation fault", crash["output"])
        self.assertIn("thread (5,0,0)", crash["output"])
        hang = tests["lab 01 exercise 3"]
        self.assertEqual(hang["score"], 0)
        self.assertIn("timed out after 120 s", hang["output"])


if __name__ == "__main__":
    unittest.main()
