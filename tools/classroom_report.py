#!/usr/bin/env python3
"""Each exercise's points from ./lab grade's results.json files, for a
GitHub Actions run (tools/classroom.sh): one line per exercise in the log, a
notice with the total, and a Markdown table appended to the file
$GITHUB_STEP_SUMMARY names, where it is set.

Usage: classroom_report.py RESULTS.json [...]
"""
import json
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tests = []
    for path in sys.argv[1:]:
        try:
            with open(path) as f:
                tests += json.load(f)["tests"]
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"classroom_report: cannot read {path}: {error}")
    if not tests:
        sys.exit("classroom_report: the results hold no exercise")
    total = sum(t["score"] for t in tests)
    maximum = sum(t["max_score"] for t in tests)
    rows = ["| exercise | points |", "|---|---|"]
    for t in tests:
        print(f"{t['score']:>3}/{t['max_score']:<3} {t['name']}")
        rows.append(f"| {t['name']} | {t['score']}/{t['max_score']} |")
    rows.append(f"| **total** | **{total}/{maximum}** |")
    print(f"::notice title=cudalab points::{total} of {maximum} points")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a") as f:
            f.write("## cudalab points\n\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
