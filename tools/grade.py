#!/usr/bin/env python3
"""Turn ctest JUnit reports into a per-lab, per-exercise score table and a
Gradescope results.json.

Usage: grade.py LAB=JUNIT.xml [LAB=JUNIT.xml ...] --out results.json

An exercise scores its points when every one of its tests that ran passed,
and nothing otherwise: some tests (zero-size inputs, say) pass even on the
untouched skeleton, so partial credit by test count would pay for nothing.
Tests skipped (GPU tests without a GPU) count neither way; an exercise whose
tests were all skipped scores 0 and says so.
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

POINTS_PER_EXERCISE = 10
EXERCISE = re.compile(r"\bEx(\d+)_")
# The line cudalab's test programs print when student code crashes them.
CRASH = re.compile(r"\*\*\* crashed: (.*)")
# ctest's JUnit report does not say "timed out", only that the test failed
# after this long: CUDALAB_TEST_TIMEOUT, which ./lab grade passes as --timeout.
TIMEOUT_S = 120


def read_junit(path):
    """Yields (test name, outcome, output) with outcome in passed/failed/skipped."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        sys.exit(f"grade: cannot read test report {path}: {error}")
    for case in root.iter("testcase"):
        status = case.get("status", "run")
        output = "".join(node.text or "" for node in case.iter("system-out"))
        if case.find("skipped") is not None or status in ("notrun", "disabled"):
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None or status == "fail":
            outcome = "failed"
        else:
            outcome = "passed"
        yield case.get("name", "?"), outcome, output, float(case.get("time", "0") or 0)


def why_failed(output, seconds, timeout_s):
    """A crash or a time-out in words; the test's own output otherwise."""
    crash = CRASH.search(output)
    if crash:
        return f"crashed: {crash.group(1)}\n\n{output.strip()[-1500:]}"
    if seconds >= timeout_s - 1:
        return (f"timed out after {timeout_s:.0f} s: a loop that never ends, or a kernel "
                f"waiting at a barrier some threads never reach?\n\n{output.strip()[-1500:]}")
    return output.strip()[-2000:]


def grade_lab(lab, path, timeout_s):
    exercises = {}
    for name, outcome, output, seconds in read_junit(path):
        match = EXERCISE.search(name)
        key = int(match.group(1)) if match else 0
        if outcome == "failed":
            output = why_failed(output, seconds, timeout_s)
        exercises.setdefault(key, []).append((name, outcome, output))
    rows = []
    for number in sorted(exercises):
        cases = exercises[number]
        ran = [c for c in cases if c[1] != "skipped"]
        passed = [c for c in ran if c[1] == "passed"]
        score = POINTS_PER_EXERCISE if ran and len(passed) == len(ran) else 0.0
        failures = [f"FAILED {name}\n{output}" for name, o, output in ran if o == "failed"]
        skipped = len(cases) - len(ran)
        note = f"{len(passed)}/{len(ran)} tests passed" + (f", {skipped} skipped" if skipped else "")
        title = f"lab {lab} exercise {number}" if number else f"lab {lab} other tests"
        rows.append({"name": title, "score": round(score, 2), "max_score": POINTS_PER_EXERCISE,
                     "output": note + ("\n\n" + "\n\n".join(failures) if failures else "")})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="LAB=JUNIT.xml")
    parser.add_argument("--out", default="results.json")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help="the tests' time limit in seconds (CUDALAB_TEST_TIMEOUT)")
    args = parser.parse_args()

    tests = []
    for item in args.reports:
        lab, _, path = item.partition("=")
        tests += grade_lab(lab, path, args.timeout)
    if not tests:
        sys.exit("grade: no tests were found in the reports")

    width = max(len(t["name"]) for t in tests)
    print(f"{'exercise':<{width}}  score  tests")
    for t in tests:
        print(f"{t['name']:<{width}}  {t['score']:>5.1f}/{t['max_score']:<3} "
              f"{t['output'].splitlines()[0]}")
    total = sum(t["score"] for t in tests)
    maximum = sum(t["max_score"] for t in tests)
    print(f"{'total':<{width}}  {total:>5.1f}/{maximum}")

    with open(args.out, "w") as f:
        json.dump({"score": round(total, 2), "tests": tests,
                   "output": f"cudalab autograder: {total:.1f} of {maximum} points"}, f, indent=2)
    print(f"grade: wrote {args.out}")


if __name__ == "__main__":
    main()
