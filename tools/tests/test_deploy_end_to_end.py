#!/usr/bin/env python3
"""The course deployment end to end (docs/course-staff.md), with a real
build: `./lab package gradescope NN` makes the zip; it is unpacked into a
scratch folder laid out as Gradescope's /autograder (source/, submission/,
results/, run_autograder); setup.sh builds the image's grading (packages
are not installed: CUDALAB_NO_INSTALL=1); no file there then holds a line
of the reference's solution; run_autograder grades the skeleton (each
exercise fails), a submission that does not compile (0 for each exercise,
the error's file:line in the output) and the reference solution (full
score), each results.json checked against Gradescope's format; last, the
commands of .github/workflows/classroom.yml run in the same tree and
report each exercise's points.

Usage: test_deploy_end_to_end.py SCRATCH_DIR [--lab NN]
(ctest label deploy: it builds a lab from scratch, minutes on 2 cores.)
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import yaml

TESTS = pathlib.Path(__file__).resolve().parent
ROOT = TESTS.parent.parent
sys.path.insert(0, str(TESTS))
import gradescope_schema  # noqa: E402


def unpack(archive_path, into):
    """As unzip does: files with their modes."""
    with zipfile.ZipFile(archive_path) as archive:
        for info in archive.infolist():
            path = archive.extract(info, into)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")
    print(f"ok: {what}")


def reference_lines(lab):
    """Lines of the lab's solution found nowhere else in the repository
    (but in mutants/, patches of it): what the image must not let a
    submission read."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], check=True,
                            capture_output=True, text=True).stdout.split()
    elsewhere = set()
    for name in listed:
        if not name.startswith(("solutions/", "mutants/")) and (ROOT / name).is_file():
            text = (ROOT / name).read_text(errors="replace")
            elsewhere |= {line.strip() for line in text.splitlines()}
    return {line.strip() for solution in (ROOT / "solutions" / lab).iterdir()
            for line in solution.read_text().splitlines()
            if len(line.strip()) > 25 and line.strip() not in elsewhere}


def grade(scratch, files, environment):
    """run_autograder on a submission of these files; its results.json."""
    submission = scratch / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    for name, text in files.items():
        (submission / name).write_text(text)
    results = scratch / "results" / "results.json"
    results.unlink(missing_ok=True)
    subprocess.run([str(scratch / "run_autograder")], cwd=scratch, env=environment, check=True)
    data = json.loads(results.read_text())
    check(gradescope_schema.problems(data) == [], "results.json has Gradescope's format")
    return data


def workflow_commands():
    """The run: steps of the workflow's job, but for those whose `if` needs
    a repository variable the test does not set (the CUDA toolkit's)."""
    workflow = yaml.safe_load((ROOT / ".github/workflows/classroom.yml").read_text())
    events = workflow.get("on", workflow.get(True))  # YAML 1.1 reads `on` as true
    check("push" in events, "the workflow runs on a push")
    (job,) = workflow["jobs"].values()
    return [step["run"] for step in job["steps"] if "run" in step and "if" not in step]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scratch", type=pathlib.Path)
    parser.add_argument("--lab", default="01")
    args = parser.parse_args()
    lab = next((ROOT / "labs").glob(f"{args.lab}_*")).name
    scratch = args.scratch.resolve()
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    environment = {**os.environ, "CUDALAB_NO_INSTALL": "1"}
    environment.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")

    subprocess.run(["bash", str(ROOT / "lab"), "package", "gradescope", args.lab, "--out",
                    str(scratch / "autograder.zip")], check=True)
    source = scratch / "source"
    unpack(scratch / "autograder.zip", source)
    shutil.copy2(source / "run_autograder", scratch / "run_autograder")
    subprocess.run(["bash", str(source / "setup.sh")], cwd=source, env=environment, check=True)

    secrets = reference_lines(lab)
    readable = [p for p in source.rglob("*") if p.is_file() and p.suffix in
                {".cuh", ".cu", ".hpp", ".h", ".cpp", ".py", ".txt", ".log"}]
    leaks = [str(p.relative_to(source)) for p in readable
             if secrets & {line.strip() for line in p.read_text(errors="replace").splitlines()}]
    check(secrets and not leaks, f"no file of the image holds the reference's lines {leaks}")

    skeleton = {p.name: p.read_text() for p in (ROOT / "labs" / lab).iterdir()
                if p.suffix != ".md"}
    solution = {p.name: p.read_text() for p in (ROOT / "solutions" / lab).iterdir()}
    data = grade(scratch, skeleton, environment)
    exercises = len(json.loads(next((ROOT / "harness").glob(f"{lab}/lab.json")).read_text())
                    ["exercises"])
    check(len(data["tests"]) == exercises and data["score"] == 0,
          f"the skeleton scores 0, with one entry for each of the {exercises} exercises")
    check(all(t["output"] for t in data["tests"]), "each failing exercise says why")

    broken = dict(solution)
    first = sorted(broken)[0]
    broken[first] += "\nthis is not C++\n"
    data = grade(scratch, broken, environment)
    check(data["score"] == 0 and len(data["tests"]) == exercises,
          "a submission that does not compile scores 0 for each exercise")
    check(all(f"labs/{lab}/{first}:" in t["output"] for t in data["tests"]),
          "... and each says where the compile error is")

    data = grade(scratch, solution, environment)
    check(data["score"] == sum(t["max_score"] for t in data["tests"]) > 0,
          f"the reference solution scores full marks ({data['score']})")

    summary = scratch / "summary.md"
    for command in workflow_commands():
        subprocess.run(["bash", "-c", command], cwd=source, check=True,
                       env={**environment, "CUDALAB_LABS": args.lab,
                            "GITHUB_STEP_SUMMARY": str(summary)})
    text = summary.read_text()
    check(f"**{data['score']}/{data['score']}**" in text and f"lab {args.lab} exercise 1" in text,
          "the workflow's commands report each exercise's points")
    print("deploy end to end: all checks passed")


if __name__ == "__main__":
    main()
