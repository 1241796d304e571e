#!/usr/bin/env python3
"""One mistake costs one exercise: the exercise isolation check behind
`./lab isolation` (docs/mutants.md, "Exercise isolation").

A lab's exercise k is *isolated* when a student who leaves exactly exercise
k's TODO regions as the skeleton has them fails some test of exercise k and
no test of any other exercise: those combine their own exercise's student
code with the reference's other parts (OnBackend::reference(),
docs/architecture.md, "One mistake, one exercise").

Usage:
  exercise_isolation.py exercises LAB [PROGRAM]
      the exercise numbers that have TODO regions in labs/LAB (LAB: 01_broadcast);
      with PROGRAM, only those it has emulator tests of (the others named on
      stderr)
  exercise_isolation.py write TREE LAB [K] [--patch FILE]
      makes TREE/LAB the reference solutions/LAB with exactly exercise K's TODO
      regions taken from the skeleton labs/LAB (without K: the solution as it
      is); writes only the files whose text changes and prints their names,
      one a line; --patch FILE: the difference from the solution, as a diff
  exercise_isolation.py grade PROGRAM K [--known FILE] [--timeout SECONDS] [--log FILE]
      grades the test program built from such a tree on its emulator tests:
      at least one test named Ex<K>_ must fail, and every test of another
      exercise must pass, but for the known couplings FILE lists. Prints the
      verdict; exits 0 when exercise K is isolated, 1 when it is not, 3 when
      the program has no emulator test of exercise K (nothing to check).
      --log FILE: the tests' output; --timeout: seconds each run of the
      program may take (default 300).

A lab's known couplings (tests/NN_name/isolation_known.txt) are lines
"K PATTERN why": exercise K's skeleton may fail the other exercises' tests
whose names match PATTERN (as --gtest_filter matches them: * and ?), because
that exercise's code calls exercise K's by design. A line that matches no
failing test fails the check, so that the list only shrinks.

The regions are found and matched with tools/check_skeletons.py's parser, so
this tool accepts exactly the skeletons that check accepts. Tests whose names
carry no Ex<k>_ (each lab's end-to-end test of the student's code alone)
belong to no exercise: they are expected to fail with any unfinished part and
are listed, not counted.
"""
import difflib
import fnmatch
import os
import pathlib
import re
import signal
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_skeletons  # noqa: E402  (the one parser of TODO regions)

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXERCISE = re.compile(r"\bEx(\d+)_")  # as tools/grade.py reads a test's exercise
RUN = re.compile(r"^\[ RUN      \] (\S+)")
ENDED = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] ([^ ,]+)")
EMULATOR_TESTS = "*Emu*"  # what ./lab mutants grades on: CI has no GPU
CRASH_RERUNS = 20  # at most this many crashes or time-outs among the other tests


class IsolationError(Exception):
    """A lab folder this tool cannot work with (check_skeletons.py says why)."""


def lab_files(root, lab):
    """The solution's files of lab folder `lab`, relative, sorted."""
    folder = root / "solutions" / lab
    if not folder.is_dir():
        raise IsolationError(f"solutions/{lab}: no such folder")
    return sorted(check_skeletons.files_under(folder))


def regions_of(root, lab, relative):
    """(skeleton lines, solution lines, hunks, regions by first line) of one
    file; hunks as check_skeletons.align gives them. None for a file that is
    not text (it has no regions)."""
    skeleton_path = root / "labs" / lab / relative
    solution_path = root / "solutions" / lab / relative
    try:
        skeleton = skeleton_path.read_text(encoding="utf-8").splitlines()
        solution = solution_path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise IsolationError(f"labs/{lab}/{relative}: missing (run tools/check_skeletons.py)")
    except UnicodeDecodeError:
        return None
    problems = []
    regions = check_skeletons.parse_regions(f"labs/{lab}/{relative}", skeleton, problems)
    if problems:
        raise IsolationError("\n".join(problems))
    hunks = check_skeletons.align(skeleton, solution, regions)
    if any(kind == "changed" for kind, _, _ in hunks):
        raise IsolationError(f"labs/{lab}/{relative} differs from solutions/{lab}/{relative} "
                             f"outside its TODO regions (run tools/check_skeletons.py)")
    return skeleton, solution, hunks, {region.first: region for region in regions}


def exercises(root, lab):
    """The exercise numbers with a TODO region in the lab's skeleton, sorted."""
    found = set()
    for relative in lab_files(root, lab):
        parsed = regions_of(root, lab, relative)
        if parsed:
            found.update(int(region.exercise[2:]) for region in parsed[3].values())
    return sorted(found)


def with_skeleton_of(root, lab, relative, exercise):
    """The text of solutions/lab/relative with exercise `exercise`'s TODO
    regions (marker lines included) as the skeleton has them; bytes for a file
    that is not text. exercise None: the solution as it is."""
    solution_path = root / "solutions" / lab / relative
    parsed = regions_of(root, lab, relative) if exercise is not None else None
    if parsed is None:
        return solution_path.read_bytes()
    skeleton, solution, hunks, regions = parsed
    lines = []
    for kind, (first, last), (answer_first, answer_last) in hunks:
        if kind == "region" and regions[first + 1].exercise == f"ex{exercise}":
            lines += skeleton[first:last]
        else:  # "equal" lines, or another exercise's answer
            lines += solution[answer_first:answer_last]
    text = solution_path.read_text(encoding="utf-8")
    ending = "\n" if text.endswith("\n") or not text else ""
    return ("\n".join(lines) + ending).encode("utf-8")


def write_tree(root, tree, lab, exercise=None, patch=None):
    """Makes tree/lab the solution with exercise's regions from the skeleton;
    writes only files whose bytes change (so an unchanged file keeps its time
    and is not rebuilt). Returns the relative names of the files written."""
    written, diff = [], []
    for relative in lab_files(root, lab):
        content = with_skeleton_of(root, lab, relative, exercise)
        target = tree / lab / relative
        if patch is not None and exercise is not None:
            solution = (root / "solutions" / lab / relative).read_bytes()
            if content != solution:
                diff += difflib.unified_diff(
                    solution.decode("utf-8").splitlines(keepends=True),
                    content.decode("utf-8").splitlines(keepends=True),
                    f"a/solutions/{lab}/{relative}", f"b/solutions/{lab}/{relative}")
        if target.is_file() and target.read_bytes() == content:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        written.append(relative)
    if patch is not None:
        header = (f"Exercise {exercise} left as the skeleton has it\n\n" if exercise is not None
                  else "The solution as it is\n")
        pathlib.Path(patch).write_text(header + "".join(diff), encoding="utf-8")
    return written


# ---- grading -----------------------------------------------------------------


def exercise_of(test):
    """The exercise a test grades (Ex<k>_ in its name), or None."""
    match = EXERCISE.search(test)
    return int(match[1]) if match else None


def run_tests(program, gtest_filter, timeout, fail_fast=False):
    """Runs the GoogleTest program on the filter. Returns (status, output),
    status None when it ran past `timeout` seconds (then killed)."""
    command = [str(program), f"--gtest_filter={gtest_filter}"]
    if fail_fast:
        command.append("--gtest_fail_fast")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = None
    return status, output.decode("utf-8", errors="replace")


def parse_run(output):
    """(tests started, tests failed, the test running when output stopped or
    None), from GoogleTest's output. Parameterised tests' names lose the
    ", where GetParam() = ..." part."""
    started, failed, ended = [], [], set()
    for line in output.splitlines():
        run = RUN.match(line)
        if run:
            started.append(run[1])
            continue
        end = ENDED.match(line)
        if end and end[2] in started:
            ended.add(end[2])
            if end[1] == "FAILED" and end[2] not in failed:
                failed.append(end[2])
    unfinished = [test for test in started if test not in ended]
    return started, failed, unfinished[-1] if unfinished else None


def signal_text(status):
    if status is None:
        return "TIMEOUT"
    if status < 0:
        try:
            return f"CRASH ({signal.Signals(-status).name})"
        except ValueError:
            return f"CRASH (signal {-status})"
    return f"CRASH (exit status {status})"


def list_tests(program):
    """The program's test names, as --gtest_filter takes them."""
    listing = subprocess.run([str(program), "--gtest_list_tests"], capture_output=True, text=True,
                             check=True).stdout
    tests, suite = [], ""
    for line in listing.splitlines():
        if not line.strip():
            continue
        name = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = name
        else:
            tests.append(suite + name)
    return tests


def emulator_tests(program):
    """The program's tests on the emulator (Emu in the suite's name)."""
    return [test for test in list_tests(program) if "Emu" in test.split(".")[0]]


def tested_exercises(numbers, program):
    """(those of the exercise numbers the program has emulator tests of, the
    others)."""
    tested = {exercise_of(test) for test in emulator_tests(program)}
    return [k for k in numbers if k in tested], [k for k in numbers if k not in tested]


def read_known(path):
    """The known couplings of a lab: [(exercise, pattern, why, "FILE:LINE")]."""
    known = []
    if path is None or not pathlib.Path(path).is_file():
        return known
    for number, line in enumerate(pathlib.Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) < 3 or not fields[0].isdigit():
            raise IsolationError(f"{path}:{number}: not \"EXERCISE PATTERN why\": {line.strip()}")
        known.append((int(fields[0]), fields[1], fields[2], f"{path}:{number}"))
    return known


def grade(program, exercise, timeout, known=()):
    """Grades one program built with exercise `exercise` left as the skeleton;
    see the module docstring. `known`: read_known's couplings. Returns (exit
    status, report lines, log)."""
    own = [test for test in emulator_tests(program) if exercise_of(test) == exercise]
    if not own:
        return 3, [f"not checked: no emulator test of exercise {exercise}"], ""

    # Exercise k's own tests: one failure is enough.
    own_filter = f"{EMULATOR_TESTS}.Ex{exercise}_*"
    status, output = run_tests(program, own_filter, timeout, fail_fast=True)
    logs = [f"==== --gtest_filter={own_filter} --gtest_fail_fast\n{output}"]
    _, failed, unfinished = parse_run(output)
    if status == 0:
        caught_by = None
    elif failed:
        caught_by = failed[0]
    elif unfinished:
        caught_by = f"{unfinished} ({signal_text(status)})"
    else:
        caught_by = f"the test program ({signal_text(status)})"

    # Every other emulator test, all of them: a crash or time-out costs the
    # test that was running, and the tests that had not run yet run again.
    violations, no_exercise, done = [], [], []
    for _ in range(CRASH_RERUNS + 1):
        gtest_filter = f"{EMULATOR_TESTS}-{':'.join([own_filter] + done)}"
        status, output = run_tests(program, gtest_filter, timeout)
        logs.append(f"==== --gtest_filter={gtest_filter}\n{output}")
        started, failed, unfinished = parse_run(output)
        broken = [(test, "FAILED") for test in failed]
        if status != 0 and unfinished:
            broken.append((unfinished, signal_text(status)))
        for test, how in broken:
            (violations if exercise_of(test) is not None else no_exercise).append((test, how))
        if status != 0 and not unfinished and not failed:  # outside any test
            violations.append(("(the test program, outside its tests)", signal_text(status)))
        if status == 0 or not unfinished:
            break
        done += started
    else:
        violations.append(("(the test program)", f"stopped after {CRASH_RERUNS} crashes"))

    # Known couplings of this exercise excuse the tests they match; one that
    # excuses nothing is out of date.
    mine = [entry for entry in known if entry[0] == exercise]
    excused, used = [], set()
    for test, how in list(violations):
        entry = next((e for e in mine if fnmatch.fnmatchcase(test, e[1])), None)
        if entry:
            violations.remove((test, how))
            excused.append((test, how, entry))
            used.add(entry)
    stale = [entry for entry in mine if entry not in used]

    report = []
    if caught_by is None:
        report.append(f"NOT CAUGHT: none of the {len(own)} emulator tests of exercise {exercise} "
                      f"fails with its skeleton")
    else:
        report.append(f"caught by {caught_by}")
    for test, how in violations:
        other = exercise_of(test)
        report.append(f"VIOLATION: {test} ({how}) of exercise {other} fails with exercise "
                      f"{exercise} as the skeleton" if other is not None else
                      f"VIOLATION: {test} ({how}) with exercise {exercise} as the skeleton")
    for _, pattern, _, where in stale:
        report.append(f"STALE: the known coupling {exercise} {pattern} ({where}) matches no "
                      f"failing test: delete it")
    for test, how, (_, _, why, _) in excused:
        report.append(f"known: {test} ({how}) of exercise {exercise_of(test)}: {why}")
    for test, how in no_exercise:
        report.append(f"also {test} ({how}): belongs to no exercise (end to end), as expected")
    isolated = caught_by is not None and not violations and not stale
    return (0 if isolated else 1), report, "".join(f"{log}\n" for log in logs)


def main(argv):
    args = argv[1:]
    option = {}
    for name in ("--patch", "--timeout", "--log", "--known"):
        if name in args:
            at = args.index(name)
            if at + 1 >= len(args):
                print(f"{name} needs a value", file=sys.stderr)
                return 2
            option[name] = args[at + 1]
            del args[at:at + 2]
    try:
        if len(args) in (2, 3) and args[0] == "exercises":
            numbers = exercises(ROOT, args[1])
            if len(args) == 3:  # only those the program has emulator tests of
                numbers, untested = tested_exercises(numbers, args[2])
                for k in untested:
                    print(f"exercise {k:<2} not checked: {pathlib.Path(args[2]).name} has no "
                          f"emulator test of it", file=sys.stderr)
            print(" ".join(str(k) for k in numbers))
            return 0
        if len(args) in (3, 4) and args[0] == "write":
            exercise = int(args[3]) if len(args) == 4 else None
            for relative in write_tree(ROOT, pathlib.Path(args[1]), args[2], exercise,
                                       option.get("--patch")):
                print(relative)
            return 0
        if len(args) == 3 and args[0] == "grade":
            status, report, log = grade(args[1], int(args[2]), float(option.get("--timeout", 300)),
                                        read_known(option.get("--known")))
            if "--log" in option:
                pathlib.Path(option["--log"]).write_text(log, encoding="utf-8")
            for line in report:
                print(line)
            return status
    except IsolationError as error:
        print(error, file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
