#!/usr/bin/env bash
# What .github/workflows/classroom.yml runs on each push to a student's
# repository (docs/course-staff.md), and what its test runs: installs what
# ./lab needs, grades labs/ with ./lab grade (the labs given, or every lab)
# and reports each exercise's points: one line each in the log, and a table
# in the run's summary page where GitHub gives one ($GITHUB_STEP_SUMMARY).
# A failing exercise is a grade, not a failure of this script: it fails
# only when grading produced no results.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# (The workflow's container runs as root, so ./lab may install packages.)
./lab setup
# Each ./lab grade writes results.json; results/ (ignored by git) keeps them.
mkdir -p results
rm -f results/classroom-*.json
if (($#)); then
  for nn in "$@"; do
    ./lab grade "$nn"
    mv results.json "results/classroom-lab$nn.json"
  done
else
  ./lab grade
  mv results.json results/classroom-all.json
fi
python3 tools/classroom_report.py results/classroom-*.json
