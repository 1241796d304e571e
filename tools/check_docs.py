#!/usr/bin/env python3
"""Check that the documentation says only what is true of the repository.

Usage: check_docs.py [ROOT]   (default: this repository)

For every Markdown file git tracks (README.md, docs/, the handouts):
- a relative link [text](path#anchor) names a file or folder that exists,
  and the anchor a heading of that file;
- a path in backticks that names a source or docs file of the repository
  (e.g. `tools/grade.py`, `labs/01_broadcast/README.md`) exists; paths with
  placeholders (NN, <...>, *, ...) and build outputs (build/, results/) are
  not checked;
- a `./lab` command uses a command `./lab` has, a lab that exists, and
  options that `./lab`, the run program or the viewer define;
- a path into a build folder names one the presets make (build/student,
  build/staff, build/ci) or the scratch folders of ./lab mutants and
  ./lab isolation (build/mutants, build/isolation).
Prints each problem as FILE:LINE: what, and exits 1 if there is any.
"""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
LAB_COMMAND = re.compile(r"(?:^|[\s`'(])\./lab ([a-z-]+)((?: +[^\s`'|;&)]+)*)")
REPO_PATH = re.compile(r"^(?:common|docs|labs|solutions|harness|tests|tools|viewer|bench|cmake|"
                       r"mutants|\.ci)/[\w./-]*\.\w+$|^(?:README\.md|lab|CMakeLists\.txt)$")
PLACEHOLDER = re.compile(r"NN|<|\*|\.\.\.|\{|\bK\b|_name")
OPTION = re.compile(r"^--?[A-Za-z][\w-]*")
BUILD_PATH = re.compile(r"(?:^|[\s`'\"(=])build/([\w.-]+)/")
BUILD_FOLDERS = {"student", "staff", "ci", "mutants", "isolation"}
# Where ./lab's options are defined: the driver, the run program, the viewer.
OPTION_SOURCES = ["lab", "common/harness/exercise_runner.cpp", "viewer/model/options.cpp",
                  "viewer/viewer_main.cpp", "bench/emu_bench.cpp", "common/harness/bench.cu"]


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path):
    return {slug(m[1]) for m in re.finditer(r"^#+ (.*)$", path.read_text(), re.M)}


def lab_commands(root):
    usage = subprocess.run(["bash", str(root / "lab"), "help"], capture_output=True,
                           text=True).stdout
    return set(re.findall(r"^  ([a-z]+) ", usage, re.M)) | {"help"}


def known_options(root):
    text = ""
    for name in OPTION_SOURCES:
        path = root / name
        if path.exists():
            text += path.read_text()
    return set(re.findall(r"--[A-Za-z][\w-]*", text))


def check_file(root, path, commands, options, labs, problems):
    in_code_block = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.relative_to(root)}:{number}"
        if line.lstrip().startswith("```"):
            in_code_block = not in_code_block
        if not in_code_block:
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (path.parent / file_part).resolve() if file_part else path
                if not linked.exists():
                    problems.append(f"{where}: the link {target} names nothing")
                elif anchor and linked.is_file() and linked.suffix == ".md" and \
                        anchor not in anchors_of(linked):
                    problems.append(f"{where}: {linked.name} has no heading #{anchor}")
            for code in CODE.findall(line):
                if REPO_PATH.match(code) and not PLACEHOLDER.search(code) and \
                        not (root / code).exists():
                    problems.append(f"{where}: `{code}` does not exist")
        for folder in BUILD_PATH.findall(line):
            if folder not in BUILD_FOLDERS:
                problems.append(f"{where}: build/{folder}/ is no build folder (the presets make "
                                f"build/student, build/staff and build/ci)")
        for command, arguments in LAB_COMMAND.findall(line):
            if command not in commands:
                problems.append(f"{where}: ./lab has no command '{command}'")
                continue
            words = arguments.split()
            if words and re.fullmatch(r"\d\d", words[0]) and words[0] not in labs:
                problems.append(f"{where}: there is no lab {words[0]}")
            for word in words:
                option = OPTION.match(word)
                if option and option[0] not in options and option[0] not in ("-h",):
                    problems.append(f"{where}: no ./lab, run program or viewer option {option[0]}")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else
                        pathlib.Path(__file__).resolve().parent.parent).resolve()
    files = subprocess.run(["git", "-C", str(root), "ls-files", "*.md"], capture_output=True,
                           text=True, check=True).stdout.split()
    commands = lab_commands(root)
    options = known_options(root)
    labs = {p.name[:2] for p in (root / "labs").iterdir() if p.is_dir()}
    problems = []
    for name in files:
        check_file(root, root / name, commands, options, labs, problems)
    for problem in problems:
        print(problem)
    print(f"check_docs: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
