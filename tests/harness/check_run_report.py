#!/usr/bin/env python3
"""Runs the harness fixture's run program and checks its report: the summary
first, one line per exercise with the right verdict, in words; a crash names
its cause and the student's line; a hang names the test, the kernel and the
line it is stuck at; the evidence comes most likely cause first; the
verdict file (--json) holds the same states and short messages.

Usage: check_run_report.py PROGRAM
"""
import json
import os
import re
import subprocess
import sys
import tempfile

KERNELS = r"fixture_labs/99_fixture/kernels\.cuh"
EXPECTED = [
    r"^  exercise 1  pass ",
    r"^  exercise 2  CRASH .*null pointer.*Ex2_CrashesInAKernel.*"
    r"kernel .*crash_kernel.*block \(1,0,0\) thread \(5,0,0\) at " + KERNELS + r":\d+",
    r"^  exercise 3  TIMEOUT ",
    r"test Emu/Fixture\.Ex3_NeverEnds/emulator was stopped after 3 s",
    r"In kernel .*endless_kernel.*block \(0,0,0\) thread \(0,0,0\) is still running at "
    + KERNELS + r":\d+",
    r"^  exercise 4  FAIL .*1 of 1 tests fail",
    r"^  exercise 5  FAIL .*1 of 1 tests fail",
    # the race between streams names the student's line that issued the work
    r"issued at 99_fixture/kernels\.cuh:\d+",
    r"^  exercise 6  CRASH .*stack overflow.*256 KiB.*deep_stack_kernel.* at " + KERNELS + r":\d+",
    r"^  exercise 7  FAIL ",
    r"are NaN where a number was expected",
    r"^  exercise 8  FAIL .*2 of 2 tests fail",
    r"^  exercise 9  SKIP .*not run here: the fixture's pytest cases grade it",
    r"^1 of 8 exercises pass \(not run here: exercise 9\)\.",
    r"the emulator reported 1 problem",
    r"note  a note from exercise 1",
]
FORBIDDEN = [
    r"max abs error 0\b",  # an all-NaN output has no error figure
    r"testing\.hpp:\d+|device_call\.hpp:\d+",  # harness places mean nothing to a student
]


def section(lines, number):
    """The lines of exercise `number`'s details."""
    out, inside = [], False
    for line in lines:
        if line.startswith("== exercise "):
            inside = line.startswith(f"== exercise {number}:")
        elif inside:
            out.append(line)
    return out


def main():
    with tempfile.TemporaryDirectory() as scratch:
        verdict_file = os.path.join(scratch, "verdicts.json")
        run = subprocess.run([sys.argv[1], "--emu", "--test-timeout", "3", "--json", verdict_file],
                             capture_output=True, text=True, timeout=300)
        print(run.stdout)
        with open(verdict_file) as f:
            verdicts = json.load(f)
    lines = run.stdout.splitlines()
    problems = [f"missing: {p}" for p in EXPECTED
                if not any(re.search(p, line) for line in lines)]
    problems += [f"present: {p}" for p in FORBIDDEN if re.search(p, run.stdout)]
    if run.returncode != 1:
        problems.append(f"exit status 1 (got {run.returncode})")
    if not all(re.match(r"^  exercise \d", line) for line in lines[2:11]):
        problems.append("one line per exercise right after the heading")
    # Exercise 8: the coverage explains the bug, so it comes first and the race
    # report that follows from it is called a consequence.
    eight = section(lines, 8)
    if section(lines, 9):
        problems.append("exercise 9, graded by another program, has no details here")
    if not eight or "most likely cause, from Fixture.Ex8_IndexBugCoverage" not in eight[0]:
        problems.append(f"exercise 8 opens with the coverage finding (got {eight[:1]})")
    if not any("probably a consequence" in line for line in eight):
        problems.append("exercise 8 calls its race report a consequence")
    states = [e["state"] for e in verdicts["exercises"]]
    if states != ["pass", "CRASH", "TIMEOUT", "FAIL", "FAIL", "CRASH", "FAIL", "FAIL",
                  "SKIP"]:
        problems.append(f"verdict file states (got {states})")
    for e in verdicts["exercises"]:
        if len(e["message"].encode()) > 4096:
            problems.append(f"exercise {e['number']}'s message is over 4 KB")
    for p in problems:
        print(f"check_run_report: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
