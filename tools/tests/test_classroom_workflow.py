#!/usr/bin/env python3
"""The Classroom workflow, without building anything: it runs on a push,
its grading step is tools/classroom.sh (the script the end-to-end test runs,
test_deploy_end_to_end.py), and classroom_report.py turns ./lab grade's
results.json into each exercise's points in the log and the run's summary."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
REPORT = ROOT / "tools/classroom_report.py"


class WorkflowTest(unittest.TestCase):
    def test_grades_with_the_script_on_a_push(self):
        workflow = yaml.safe_load((ROOT / ".github/workflows/classroom.yml").read_text())
        events = workflow.get("on", workflow.get(True))  # YAML 1.1 reads `on` as true
        self.assertIn("push", events)
        (job,) = workflow["jobs"].values()
        runs = [step["run"] for step in job["steps"] if "run" in step and "if" not in step]
        self.assertEqual(runs, ["tools/classroom.sh $CUDALAB_LABS"])
        self.assertTrue(os.access(ROOT / "tools/classroom.sh", os.X_OK))

    def test_reports_each_exercise(self):
        results = {"score": 10, "tests": [
            {"name": "lab 01 exercise 1: one", "score": 10, "max_score": 10},
            {"name": "lab 01 exercise 2: two", "score": 0, "max_score": 10}]}
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp, "results-lab01.json")
            path.write_text(json.dumps(results))
            summary = pathlib.Path(tmp, "summary.md")
            run = subprocess.run([sys.executable, str(REPORT), str(path)], check=True,
                                 capture_output=True, text=True,
                                 env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)})
            table = summary.read_text()
        self.assertIn(" 10/10  lab 01 exercise 1: one", run.stdout)
        self.assertIn("  0/10  lab 01 exercise 2: two", run.stdout)
        self.assertIn("::notice title=cudalab points::10 of 20 points", run.stdout)
        self.assertIn("| lab 01 exercise 2: two | 0/10 |", table)
        self.assertIn("| **total** | **10/20** |", table)

    def test_refuses_results_without_exercises(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp, "results.json")
            path.write_text(json.dumps({"score": 0, "tests": []}))
            run = subprocess.run([sys.executable, str(REPORT), str(path)], capture_output=True,
                                 text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("no exercise", run.stderr)


if __name__ == "__main__":
    unittest.main()
