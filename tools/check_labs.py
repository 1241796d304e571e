#!/usr/bin/env python3
"""Check that every place that describes a lab agrees with its descriptor.

Usage: check_labs.py [ROOT]   (default: this repository)

A lab's descriptor, harness/NN_name/lab.json, is the one statement of what
the lab is (docs/architecture.md, "The lab descriptor"). CMake, the run
program, ./lab grade and the viewer read it; what people write by hand
around it is checked here:
- the descriptor itself: exercises numbered 1..K in order, each with a
  title, the student's files it edits (present in labs/ and solutions/) and
  its entry points (named in those files); graded_by "pytest" names a test
  file in tests/NN_name/; views the viewer has; bench a boolean;
  test_scenarios (optional) headers of tests/NN_name/ that exist;
- the TODO(exK) regions of labs/NN_name/: one exercise number per region,
  each K an exercise of the descriptor and inside one of its files, and
  every exercise has a region;
- the tests: an exercise graded by GoogleTest has tests named Ex<K>_ in
  tests/NN_name/, and no test names an exercise the lab does not have;
- the handout (labs/NN_name/README.md): each exercise has a heading
  "### K. <title>" / "### Exercise K: <title>" or a table row "| K |" that
  names one of its files; a numbered exercise the descriptor does not have
  is marked "not graded" or "optional";
- harness/NN_name/bench_main.cu exists exactly when bench is true, and
  viewer/labs/NN_name/ exactly when the lab has views;
- the README's table of labs lists every lab, in order, with its handout;
- harness/NN_name/ holds only what is about the lab (docs/architecture.md,
  "The lab descriptor"): at most HARNESS_LINES lines of code without the
  benchmark (given/ aside) and HARNESS_WITH_BENCH_LINES with it, so that what
  every lab needs grows in common/ and not by copying;
- lab code includes only its own folder's files, harness/NN_name/given/
  (what the lab gives its kernels) and the common library (cudalab/...):
  never the harness that tests it.
Prints each problem as FILE: what, and exits 1 if there is any.
"""
import json
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_skeletons  # noqa: E402  (TODO regions are parsed one way)

LAB_FOLDER = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
TEST_EXERCISE = re.compile(r"\bEx(\d+)_")
HEADING = re.compile(r"^#{2,4}\s+(?:Exercise\s+)?(\d+)(?:\.|:|\s|$)(.*)$")
TABLE_ROW = re.compile(r"^\|\s*(\d+)\s*\|(.*)$")
README_LAB_ROW = re.compile(r"^\|\s*(\d\d) ([^|]+?)\s*\|(.*)$")
KEYS = {"exercises", "gpu_libraries", "tile_interpreter", "views", "bench"}
OPTIONAL_KEYS = {"test_scenarios"}
HARNESS_LINES, HARNESS_WITH_BENCH_LINES = 300, 500
CODE_SUFFIXES = (".cuh", ".hpp", ".h", ".cu", ".cpp")
EXERCISE_KEYS = {"number", "title", "files", "entry_points", "graded_by", "tests"}


def viewer_views(root):
    """The view names the viewer knows (viewer/model/ui_state.hpp), help aside."""
    header = (root / "viewer/model/ui_state.hpp").read_text()
    names = re.search(r"kPanelNames\[\]\s*=\s*\{([^}]*)\}", header)
    return set(re.findall(r'"(\w+)"', names.group(1))) - {"help"} if names else set()


def words(text):
    return re.sub(r"[`*_]", "", text).lower()


def load(path, problems):
    try:
        descriptor = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        problems.append(f"{path}: not a readable descriptor ({error})")
        return None
    if not isinstance(descriptor, dict) or not KEYS <= set(descriptor) <= KEYS | OPTIONAL_KEYS:
        problems.append(f"{path}: the keys are {sorted(KEYS)} (and optionally "
                        f"{sorted(OPTIONAL_KEYS)})")
        return None
    return descriptor


def check_descriptor(root, lab, descriptor, views, problems):
    where = f"harness/{lab}/lab.json"
    exercises = descriptor["exercises"]
    if not isinstance(exercises, list) or not exercises:
        problems.append(f"{where}: no exercises")
        return []
    good = []
    for index, exercise in enumerate(exercises, 1):
        if not isinstance(exercise, dict) or not set(exercise) <= EXERCISE_KEYS or not {
                "number", "title", "files", "entry_points"} <= set(exercise):
            problems.append(f"{where}: exercise {index} needs number, title, files, entry_points "
                            f"(and may have graded_by, tests)")
            continue
        if exercise["number"] != index:
            problems.append(f"{where}: exercise {index} is numbered {exercise['number']}")
            continue
        if not exercise["title"] or not exercise["files"] or not exercise["entry_points"]:
            problems.append(f"{where}: exercise {index} needs a title, files and entry points")
            continue
        for name in exercise["files"]:
            for tree in ("labs", "solutions"):
                if not (root / tree / lab / name).is_file():
                    problems.append(f"{where}: exercise {index}'s file {tree}/{lab}/{name} "
                                    f"does not exist")
        texts = "\n".join((root / "labs" / lab / name).read_text() for name in exercise["files"]
                          if (root / "labs" / lab / name).is_file())
        for entry in exercise["entry_points"]:
            if not re.search(rf"\b{re.escape(entry)}\b", texts):
                problems.append(f"{where}: exercise {index}'s entry point {entry} is not in "
                                f"{', '.join(exercise['files'])}")
        graded_by = exercise.get("graded_by")
        if graded_by not in (None, "pytest"):
            problems.append(f"{where}: exercise {index}: graded_by is \"pytest\" or absent")
        if graded_by == "pytest" and not (root / "tests" / lab / exercise.get("tests", "")).is_file():
            problems.append(f"{where}: exercise {index}'s pytest file tests/{lab}/"
                            f"{exercise.get('tests', '?')} does not exist")
        good.append(exercise)
    unknown = [view for view in descriptor["views"] if view not in views]
    if unknown:
        problems.append(f"{where}: the viewer has no view {', '.join(unknown)} "
                        f"(it has {', '.join(sorted(views))})")
    if not isinstance(descriptor["bench"], bool) or not isinstance(
            descriptor["tile_interpreter"], bool):
        problems.append(f"{where}: bench and tile_interpreter are true or false")
    check_test_scenarios(root, lab, descriptor.get("test_scenarios", []), problems)
    return good


def check_test_scenarios(root, lab, names, problems):
    """The tests' experiments each backend builds: headers of tests/NN_name/ (a
    .cpp there is compiled into the test program, which never sees lab code)."""
    where = f"harness/{lab}/lab.json"
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        problems.append(f"{where}: test_scenarios is a list of file names in tests/{lab}/")
        return
    for name in names:
        if pathlib.PurePath(name).suffix not in (".hpp", ".cuh", ".h") or "/" in name:
            problems.append(f"{where}: test_scenarios names {name}, not a header of tests/{lab}/ "
                            f"(each backend includes it; the test program compiles the .cpp files)")
        elif not (root / "tests" / lab / name).is_file():
            problems.append(f"{where}: test_scenarios names tests/{lab}/{name}, which does not "
                            f"exist")


def check_regions(root, lab, exercises, problems):
    numbers = {e["number"]: e for e in exercises}
    seen = set()
    folder = root / "labs" / lab
    for relative in check_skeletons.files_under(folder):
        try:
            lines = (folder / relative).read_text().splitlines()
        except UnicodeDecodeError:
            continue
        for region in check_skeletons.parse_regions(f"labs/{lab}/{relative}", lines, []):
            k = int(region.exercise[2:])
            seen.add(k)
            if k not in numbers:
                problems.append(f"labs/{lab}/{relative}: a TODO(ex{k}) region, but lab.json "
                                f"has no exercise {k}")
            elif str(relative) not in numbers[k]["files"]:
                problems.append(f"labs/{lab}/{relative}: a TODO(ex{k}) region, but lab.json "
                                f"gives exercise {k} the files {', '.join(numbers[k]['files'])}")
    for k in sorted(set(numbers) - seen):
        problems.append(f"harness/{lab}/lab.json: exercise {k} has no TODO(ex{k}) region in "
                        f"labs/{lab}/")


def check_tests(root, lab, exercises, problems):
    named = set()
    for source in sorted((root / "tests" / lab).glob("*.cpp")):
        named.update(int(k) for k in TEST_EXERCISE.findall(source.read_text()))
    graded = {e["number"] for e in exercises if e.get("graded_by") is None}
    for k in sorted(graded - named):
        problems.append(f"tests/{lab}/: no test is named Ex{k}_, but lab.json grades "
                        f"exercise {k} by its tests")
    for k in sorted(named - graded):
        problems.append(f"tests/{lab}/: tests are named Ex{k}_, but lab.json has no exercise "
                        f"{k} graded by GoogleTest")


def check_handout(root, lab, exercises, problems):
    path = root / "labs" / lab / "README.md"
    if not path.is_file():
        problems.append(f"labs/{lab}/README.md: missing (every lab has a handout)")
        return
    lines = path.read_text().splitlines()
    found = {}
    for line in lines:
        match = HEADING.match(line) or TABLE_ROW.match(line)
        if match:
            found.setdefault(int(match.group(1)), []).append(line)
    by_number = {e["number"]: e for e in exercises}
    for k, exercise in by_number.items():
        mentions = found.get(k, [])
        heading = [m for m in mentions if m.startswith("#")]
        rows = [m for m in mentions if m.startswith("|")]
        if heading and any(words(exercise["title"]) in words(m) for m in heading):
            continue
        if rows and any(name in m for m in rows for name in exercise["files"]):
            continue
        problems.append(f"labs/{lab}/README.md: no heading \"### {k}. {exercise['title']}\" "
                        f"or table row \"| {k} |\" naming {', '.join(exercise['files'])}")
    for k in sorted(set(found) - set(by_number)):
        if not any(re.search(r"not graded|optional", m, re.I) for m in found[k]):
            problems.append(f"labs/{lab}/README.md: exercise {k} is not in lab.json "
                            f"(mark it \"not graded\" or \"optional\", or add it)")


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_includes(root, lab, problems):
    given = root / "harness" / lab / "given"
    for tree in ("labs", "solutions"):
        folder = root / tree / lab
        for source in sorted(folder.glob("*")):
            if source.suffix not in (".cuh", ".hpp", ".h", ".cu", ".cpp"):
                continue
            for name in INCLUDE.findall(source.read_text()):
                if name.startswith("cudalab/") or (folder / name).is_file() or (
                        given / name).is_file():
                    continue
                problems.append(f"{tree}/{lab}/{source.name}: includes \"{name}\", which is "
                                f"neither lab code, nor in harness/{lab}/given/, nor cudalab/")


def check_files(root, lab, descriptor, problems):
    bench = (root / "harness" / lab / "bench_main.cu").is_file()
    if descriptor["bench"] != bench:
        problems.append(f"harness/{lab}/lab.json: bench is {str(descriptor['bench']).lower()}, "
                        f"but harness/{lab}/bench_main.cu {'exists' if bench else 'does not'}")
    viewer = (root / "viewer" / "labs" / lab).is_dir()
    if bool(descriptor["views"]) != viewer:
        problems.append(f"harness/{lab}/lab.json: views {descriptor['views']}, but "
                        f"viewer/labs/{lab}/ {'exists' if viewer else 'does not'}")


def check_harness_size(root, lab, problems):
    folder = root / "harness" / lab
    without, bench = 0, 0
    for source in sorted(folder.rglob("*")):
        if source.suffix not in CODE_SUFFIXES or "given" in source.relative_to(folder).parts:
            continue
        lines = len(source.read_text().splitlines())
        if source.name.startswith("bench"):
            bench += lines
        else:
            without += lines
    if without > HARNESS_LINES:
        problems.append(f"harness/{lab}/: {without} lines of code without the benchmark, over "
                        f"{HARNESS_LINES}: what is not about this lab belongs in common/")
    if without + bench > HARNESS_WITH_BENCH_LINES:
        problems.append(f"harness/{lab}/: {without + bench} lines of code with the benchmark, over "
                        f"{HARNESS_WITH_BENCH_LINES}: what benchmarks share belongs in "
                        f"common/include/cudalab/harness/")


def check_readme(root, labs, problems):
    rows = []
    for line in (root / "README.md").read_text().splitlines():
        match = README_LAB_ROW.match(line)
        if match:
            rows.append((f"{match.group(1)}_{match.group(2).replace(' ', '_')}", match.group(3)))
    if [lab for lab, _ in rows] != labs:
        problems.append(f"README.md: the table of labs lists {[lab for lab, _ in rows]}, "
                        f"the descriptors {labs}")
    for lab, text in rows:
        if f"labs/{lab}/README.md" not in text:
            problems.append(f"README.md: the row of lab {lab} does not link labs/{lab}/README.md")


def check_root(root, sample=False):
    problems = []
    views = viewer_views(root if not sample else root.parent.parent)
    labs = sorted(p.parent.name for p in (root / "harness").glob("*/lab.json"))
    for folder in sorted((root / "labs").iterdir()):
        if folder.is_dir() and LAB_FOLDER.match(folder.name) and folder.name not in labs:
            problems.append(f"labs/{folder.name}: no descriptor harness/{folder.name}/lab.json")
    for lab in labs:
        if not LAB_FOLDER.match(lab):
            problems.append(f"harness/{lab}: a lab's folder is NN_name")
            continue
        descriptor = load(root / "harness" / lab / "lab.json", problems)
        if descriptor is None:
            continue
        exercises = check_descriptor(root, lab, descriptor, views, problems)
        check_regions(root, lab, exercises, problems)
        check_tests(root, lab, exercises, problems)
        check_handout(root, lab, exercises, problems)
        check_includes(root, lab, problems)
        if not sample:
            check_files(root, lab, descriptor, problems)
            check_harness_size(root, lab, problems)
    if not sample:
        check_readme(root, labs, problems)
    return problems


def main(argv):
    root = pathlib.Path(argv[1] if len(argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
    problems = check_root(root)
    sample = root / "tests" / "sample_lab"
    if sample.is_dir():
        problems += [f"tests/sample_lab/{p}" for p in check_root(sample, sample=True)]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"check_labs: every lab of {root.name} agrees with its descriptor")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
