#!/usr/bin/env python3
"""Runs the harness fixture's run program and checks its report: the summary
first, one line per exercise with the right verdict, in words.

Usage: check_run_report.py PROGRAM
"""
import re
import subprocess
import sys

EXPECTED = [
    r"^  exercise 1  pass ",
    r"^  exercise 2  CRASH .*segmentation fault.*Ex2_CrashesInAKernel.*"
    r"kernel .*crash_kernel.*block \(1,0,0\) thread \(5,0,0\)",
    r"^  exercise 3  TIMEOUT .*stopped after 5 s",
    r"^  exercise 4  FAIL .*1 of 1 tests fail",
    r"^  exercise 5  FAIL .*1 of 1 tests fail",
    r"^1 of 5 exercises pass\.",
    r"the emulator reported 1 problem",
    r"note  a note from exercise 1",
]


def main():
    run = subprocess.run([sys.argv[1], "--emu", "--timeout", "5"], capture_output=True,
                         text=True, timeout=120)
    print(run.stdout)
    lines = run.stdout.splitlines()
    missing = [p for p in EXPECTED if not any(re.search(p, line) for line in lines)]
    if run.returncode != 1:
        missing.append(f"exit status 1 (got {run.returncode})")
    if not all(re.match(r"^  exercise \d", line) for line in lines[2:7]):
        missing.append("one line per exercise right after the heading")
    for m in missing:
        print(f"check_run_report: missing: {m}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
