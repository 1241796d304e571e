#!/usr/bin/env python3
"""The Gradescope autograder's two steps (docs/course-staff.md): what
setup.sh does once in the image, and what run_autograder does for each
submission.

Usage: autograder.py prepare --source DIR
       autograder.py grade --source DIR --submission DIR --results DIR
                           [--lab-time-limit S] [--exercise-time-limit S]

DIR --source is the unpacked package (a cudalab tree whose autograder.json
names the labs it grades).

prepare: builds what grading needs by grading each lab's skeleton once with
`./lab grade NN`, keeps a copy of the skeleton, then blanks the reference
solutions' sources and the build's copies of them (their dates kept, so
that nothing is rebuilt from them): a submission runs in this image and
must find no reference to read or include. Building again then checks
that nothing is compiled from the blanked files.

grade: copies the files the labs' descriptors name from the submission
(found at labs/NN_name/FILE, NN_name/FILE or FILE, or once anywhere in it)
over the skeleton, grades each lab with `./lab grade NN` and writes
results.json in Gradescope's format (tools/grade.py). A lab that does not
compile, or whose grading runs out of time or fails, scores 0 for each of
its exercises, with the reason in the output; results.json is always
written, whatever happens.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import grade  # noqa: E402  (tools/grade.py: the entries and Gradescope's fields)

BLANKED = ("// The reference solution is compiled into this autograder image; its source is "
           "not\n// given to submissions (docs/course-staff.md).\n")
SKELETON_COPY = pathlib.Path("build/gradescope/skeleton")
OUTPUT_TAIL = 3000


def labs_of(source):
    """[(NN, NN_name, descriptor)] of the labs the package grades."""
    try:
        numbers = json.loads((source / "autograder.json").read_text())["labs"]
    except (OSError, ValueError, KeyError) as error:
        raise SystemExit(f"autograder: {source}/autograder.json does not name the labs: {error}")
    labs = []
    for number in numbers:
        found = sorted(source.glob(f"harness/{number}_*/lab.json"))
        if not found:
            raise SystemExit(f"autograder: the package has no lab {number}")
        labs.append((number, found[0].parent.name, json.loads(found[0].read_text())))
    return labs


def student_files(descriptor):
    return sorted({name for e in descriptor["exercises"] for name in e["files"]})


def run_lab(source, arguments, time_limit, environment=None):
    """Runs ./lab ARGUMENTS in its own process group; (status or None when
    stopped at the time limit, output)."""
    process = subprocess.Popen(["bash", str(source / "lab"), *arguments], cwd=source,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", start_new_session=True,
                               env={**os.environ, **(environment or {})})
    try:
        output, _ = process.communicate(timeout=time_limit)
        return process.returncode, output
    except subprocess.TimeoutExpired:
        # The whole group: the build, the run program and its children.
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return None, output


def tail(text, limit=OUTPUT_TAIL):
    return text if len(text) <= limit else "...\n" + text[-limit:]


# ---- prepare ------------------------------------------------------------------


def blank(path):
    """Replaces the file's text, keeping its dates: the build's outputs stay
    newer than it, so it is never compiled again."""
    before = path.stat()
    path.write_text(BLANKED)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def prepare(source):
    labs = labs_of(source)
    for number, name, _ in labs:
        status, output = run_lab(source, ["grade", number], None)
        print(output, end="")
        if status != 0:
            raise SystemExit(f"autograder: grading lab {number}'s skeleton failed (above)")
        skeleton = source / SKELETON_COPY / name
        shutil.rmtree(skeleton, ignore_errors=True)
        shutil.copytree(source / "labs" / name, skeleton)
    blanked = 0
    build = source / "build/student"
    for number, name, _ in labs:
        reference = [p for p in (source / "solutions" / name).rglob("*") if p.is_file()]
        # The build's rewritten copies of them, and nothing else: the files
        # CMake generates there would be written again by a new configure.
        names = {p.name for p in reference}
        copies = [p for d in build.glob(f"lab{number}_backends_reference*") if d.is_dir()
                  for p in d.rglob("*") if p.name in names]
        for path in reference + copies:
            blank(path)
            blanked += 1
    # What ./lab grade builds: each lab's run program and PyTorch operator.
    targets = [f"lab{number}" for number, _, _ in labs]
    targets += [f"lab{number}_torch_op" for number, _, _ in labs
                if (build / f"lab{number}_torch_op_grading.sh").is_file()]
    # Everything was just built, so building again must compile nothing: a
    # step it takes (but CMake's check of its globs) would have read a
    # blanked file.
    again = subprocess.run(["ninja", "-C", str(build), *targets], capture_output=True, text=True)
    steps = [line for line in again.stdout.splitlines()
             if re.match(r"^\[\d+/\d+\] (Building|Linking|Rewriting|Generating)", line)]
    if again.returncode != 0 or steps:
        raise SystemExit("autograder: after blanking the reference, the build compiled "
                         f"again:\n{again.stdout}{again.stderr}")
    print(f"autograder: prepared labs {' '.join(n for n, _, _ in labs)}; "
          f"{blanked} reference files blanked")


# ---- grade --------------------------------------------------------------------


def find_in_submission(submission, name, file):
    """The submitted FILE of lab folder NAME, or None."""
    for candidate in (submission / "labs" / name / file, submission / name / file,
                      submission / file):
        if candidate.is_file():
            return candidate
    anywhere = [p for p in submission.rglob(file) if p.is_file()]
    return anywhere[0] if len(anywhere) == 1 else None


def place_submission(source, submission, name, files):
    """Copies the submitted files over the skeleton; says what was missing."""
    lab_folder = source / "labs" / name
    skeleton = source / SKELETON_COPY / name
    notes = []
    for file in files:
        found = find_in_submission(submission, name, file)
        target = lab_folder / file
        if found is None:
            shutil.copyfile(skeleton / file, target)
            notes.append(f"{file} was not found in your submission: the skeleton's was graded.")
        else:
            shutil.copyfile(found, target)
    return notes


def failed_lab(number, descriptor, why, detail):
    """Zero for each exercise of a lab that could not be graded."""
    return [grade.entry(number, e["number"], e.get("title", ""), "FAIL", why, detail)
            for e in descriptor["exercises"]]


def grade_lab(source, number, name, descriptor, lab_limit, exercise_limit):
    """(Gradescope test entries, a line for the submission's output)."""
    results = source / "results.json"
    results.unlink(missing_ok=True)
    status, output = run_lab(source, ["grade", number], lab_limit,
                             {"CUDALAB_EXERCISE_TIMEOUT_S": str(exercise_limit),
                              "CUDALAB_NO_INSTALL": "1"})
    if status is None:
        return failed_lab(number, descriptor,
                          f"not graded: grading lab {number} was stopped after {lab_limit} s",
                          "The autograder's limit for the whole lab was reached (an endless "
                          "loop outside the tests?). Its last words:\n" + tail(output)), \
            f"lab {number}: stopped after {lab_limit} s"
    if "lab: the build failed" in output:
        errors = output[output.index("lab: the build failed"):]
        return failed_lab(number, descriptor, f"not graded: lab {number} does not compile",
                          tail(errors)), f"lab {number}: does not compile"
    if status != 0 or not results.is_file():
        # The run program's own words (a crash outside the tests, say): the
        # file ./lab names is not one the student can open.
        run_log = source / f"build/student/run-lab{number}.log"
        if run_log.is_file():
            output += "\n" + run_log.read_text(errors="replace")
        return failed_lab(number, descriptor, f"not graded: grading lab {number} failed",
                          tail(output)), f"lab {number}: grading failed"
    tests = json.loads(results.read_text())["tests"]
    for test in tests:
        if not test["name"].startswith(f"lab {number} "):
            raise ValueError(f"lab {number}'s results.json has an entry of another lab: "
                             f"{test['name']}")
    return tests, None


def write_results(results_dir, tests, notes, started):
    total = sum(t["score"] for t in tests)
    maximum = sum(t["max_score"] for t in tests)
    output = "\n".join([f"cudalab autograder: {total} of {maximum} points", *notes])
    results_dir.mkdir(parents=True, exist_ok=True)
    (results_dir / "results.json").write_text(json.dumps(
        {"score": total, "execution_time": round(time.monotonic() - started),
         "output": output, "visibility": "visible", "stdout_visibility": "hidden",
         "tests": [grade.gradescope_fields(t) for t in tests]}, indent=2))
    print(output)


def grade_submission(source, submission, results_dir, lab_limit, exercise_limit):
    started = time.monotonic()
    tests, notes = [], []
    try:
        labs = labs_of(source)
    except SystemExit as error:
        labs = []
        notes.append(f"{error}; please tell the course staff.")
    for number, name, descriptor in labs:
        # results.json must be written whatever happens: a lab the autograder
        # itself fails on scores 0 with the reason, and the others are graded.
        try:
            notes += place_submission(source, submission, name, student_files(descriptor))
            lab_tests, note = grade_lab(source, number, name, descriptor, lab_limit,
                                        exercise_limit)
        except Exception as error:
            lab_tests = failed_lab(number, descriptor, "not graded: the autograder failed",
                                   f"{type(error).__name__}: {error}")
            note = f"lab {number}: the autograder failed ({error}); please tell the course staff."
        tests += lab_tests
        if note:
            notes.append(note)
    write_results(results_dir, tests, notes, started)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    for step in ("prepare", "grade"):
        p = steps.add_parser(step)
        p.add_argument("--source", type=pathlib.Path, required=True)
        if step == "grade":
            p.add_argument("--submission", type=pathlib.Path, required=True)
            p.add_argument("--results", type=pathlib.Path, required=True)
            p.add_argument("--lab-time-limit", type=int, default=1200,
                           help="seconds one lab's build and grading may take (%(default)s)")
            p.add_argument("--exercise-time-limit", type=int, default=300,
                           help="seconds one exercise's tests may take (%(default)s)")
    args = parser.parse_args()
    source = args.source.resolve()
    if args.step == "prepare":
        prepare(source)
    else:
        grade_submission(source, args.submission.resolve(), args.results.resolve(),
                         args.lab_time_limit, args.exercise_time_limit)


if __name__ == "__main__":
    main()
