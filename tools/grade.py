#!/usr/bin/env python3
"""Turn a lab's verdicts into a per-exercise score table and a Gradescope
results.json.

Usage: grade.py LAB[:EXERCISE]=REPORT [...] --out results.json

A REPORT is either the verdict file of a lab's run program (`labNN --json
FILE`: one entry per exercise with its state, pass / FAIL / CRASH / TIMEOUT
/ SKIP, and the student-facing message `./lab run` prints), or a ctest
JUnit report (.xml) for tests the run program does not run (lab 01's
PyTorch operator, tested by pytest; LAB:EXERCISE says which exercise
the report's tests grade when their names do not say).

An exercise scores its points when every one of its tests that ran passed,
and nothing otherwise: some tests (zero-size inputs, say) pass even on the
untouched skeleton, so partial credit by test count would pay for nothing.
Tests skipped (GPU tests without a GPU) count neither way; an exercise whose
tests were all skipped scores 0 and says so.

Each entry's output is at most MAX_OUTPUT bytes, cut at a line end.
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

POINTS_PER_EXERCISE = 10
MAX_OUTPUT = 4000
EXERCISE = re.compile(r"\bEx(\d+)_")
STATES = ("pass", "FAIL", "CRASH", "TIMEOUT", "SKIP")
# Gradescope's autograder specification (results.json) names these, and more.
GRADESCOPE_TEST_FIELDS = ("name", "score", "max_score", "status", "output", "visibility")


def at_most(text, limit=MAX_OUTPUT):
    """`text` cut at a line end to at most `limit` bytes, saying so."""
    data = text.encode()
    if len(data) <= limit:
        return text
    tail = "\n... (cut: ./lab run NN shows it all)"
    head = data[:limit - len(tail.encode())].decode(errors="ignore")
    if "\n" in head:
        head = head[:head.rindex("\n")]
    return head + tail


def entry(lab, number, title, state, summary, message):
    name = f"lab {lab} exercise {number}" + (f": {title}" if title else "")
    score = POINTS_PER_EXERCISE if state == "pass" else 0
    output = f"{state}: {summary}" + (f"\n\n{message.rstrip()}" if message.strip() else "")
    return {"number": number, "title": title,
            "name": name, "score": score, "max_score": POINTS_PER_EXERCISE,
            "status": "passed" if state == "pass" else "failed",
            "output": at_most(output), "visibility": "visible", "state": state,
            "summary": summary}


def gradescope_fields(test):
    """Only the fields Gradescope's results.json defines for a test."""
    return {k: test[k] for k in GRADESCOPE_TEST_FIELDS if k in test}


def read_verdicts(lab, path):
    """The entries of a run program's verdict file."""
    try:
        with open(path) as f:
            verdicts = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"grade: cannot read the verdicts of lab {lab} ({path}): {error}")
    rows = []
    for e in verdicts.get("exercises", []):
        state = e.get("state")
        if state not in STATES:
            sys.exit(f"grade: {path}: exercise {e.get('number')} has no known state ({state!r})")
        rows.append(entry(lab, e["number"], e.get("title", ""), state, e.get("summary", ""),
                          e.get("message", "")))
    return rows


def read_junit(path):
    """Yields (test name, outcome, output) with outcome in passed/failed/skipped."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        sys.exit(f"grade: cannot read test report {path}: {error}")
    for case in root.iter("testcase"):
        status = case.get("status", "run")
        output = "".join(node.text or "" for node in case.iter("system-out"))
        for node in list(case.iter("failure")) + list(case.iter("error")):
            output += "\n" + (node.text or node.get("message", ""))
        if case.find("skipped") is not None or status in ("notrun", "disabled"):
            outcome = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None or status == "fail":
            outcome = "failed"
        else:
            outcome = "passed"
        yield case.get("name", "?"), outcome, output


def pytest_gist(output):
    """The lines of a pytest failure a student reads: its E lines and summary."""
    lines = [line for line in output.splitlines()
             if line.startswith("E ") or line.startswith("FAILED ")]
    return "\n".join(lines[:12]) if lines else output.strip()[-800:]


def read_junit_exercises(lab, path, exercise=None):
    """The entries of a JUnit report, one per exercise its test names give
    (or all of them exercise `exercise`'s: a pytest file's)."""
    exercises = {}
    for name, outcome, output in read_junit(path):
        match = EXERCISE.search(name)
        number = int(match.group(1)) if match else (exercise or 0)
        exercises.setdefault(number, []).append((name, outcome, output))
    rows = []
    for number in sorted(exercises):
        cases = exercises[number]
        ran = [c for c in cases if c[1] != "skipped"]
        failed = [c for c in ran if c[1] == "failed"]
        if not ran:
            state, summary = "SKIP", "no test ran here"
        elif failed:
            state, summary = "FAIL", f"{len(failed)} of {len(ran)} tests fail"
        else:
            state, summary = "pass", f"{len(ran)} tests"
        # One paragraph per distinct failure, naming how many tests gave it.
        gists = {}
        for name, _, output in failed:
            gists.setdefault(pytest_gist(output), []).append(name)
        message = "\n\n".join(
            f"{names[0]}" + (f" and {len(names) - 1} more" if len(names) > 1 else "") +
            f":\n{gist}" for gist, names in gists.items())
        rows.append(entry(lab, number, "", state, summary, message))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="LAB=REPORT")
    parser.add_argument("--out", default="results.json")
    args = parser.parse_args()

    # One entry per (lab, exercise): a test report of an exercise the run
    # program does not run (its verdict says SKIP, "not run here") takes
    # that verdict's place and title.
    entries = {}
    for item in args.reports:
        lab, _, path = item.partition("=")
        lab, _, exercise = lab.partition(":")
        if path.endswith(".xml"):
            for row in read_junit_exercises(lab, path, int(exercise) if exercise else None):
                before = entries.get((lab, row["number"]))
                if before is not None and before["title"]:
                    row.update(title=before["title"],
                               name=f"lab {lab} exercise {row['number']}: {before['title']}")
                entries[(lab, row["number"])] = row
        else:
            for row in read_verdicts(lab, path):
                entries[(lab, row["number"])] = row
    tests = [entries[key] for key in sorted(entries, key=lambda k: (k[0], k[1]))]
    if not tests:
        sys.exit("grade: no exercises were found in the reports")

    width = max(len(t["name"]) for t in tests)
    print(f"{'exercise':<{width}}  {'verdict':<7}  score  ")
    for t in tests:
        print(f"{t['name']:<{width}}  {t['state']:<7}  {t['score']:>2}/{t['max_score']:<3} "
              f"{t['summary'][:100]}")
    total = sum(t["score"] for t in tests)
    maximum = sum(t["max_score"] for t in tests)
    print(f"{'total':<{width}}  {'':<7}  {total}/{maximum}")

    with open(args.out, "w") as f:
        json.dump({"score": total, "tests": [gradescope_fields(t) for t in tests],
                   "visibility": "visible",
                   "output": f"cudalab autograder: {total} of {maximum} points"}, f, indent=2)
    print(f"grade: wrote {args.out}")


if __name__ == "__main__":
    main()
