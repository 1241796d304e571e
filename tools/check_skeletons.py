#!/usr/bin/env python3
"""Check that every lab skeleton differs from its reference solution only
inside TODO regions.

Usage: check_skeletons.py [ROOT]     (ROOT holds labs/ and solutions/;
                                      default: this repository)

labs/NN_name/ (what students edit) and solutions/NN_name/ (the reference)
hold the same files. Outside the skeleton's TODO regions the two must be
identical, line for line. A region runs from its begin line to its end line,
both included, and says how big the answer is:

    // TODO(ex3) begin, about 4 lines: what to write ...
    ...the stub a student replaces...
    // TODO(ex3) end

The solution has anything in its place, including nothing. Every line of a
skeleton that says `TODO(` or `TODO:` must be such a begin or end line, and the
size must be roughly the size of the solution's answer, so students can tell
when they are overcomplicating. The handout, README.md at the top of a lab
folder, lives in labs/ only.

Prints each problem as FILE:LINE: what, and exits 1 if there is any.
"""
import dataclasses
import pathlib
import re
import sys

HANDOUT = "README.md"
BEGIN = re.compile(r"TODO\((ex\d+)\) begin, about (\d+) lines?\b")
END = re.compile(r"TODO\((ex\d+)\) end\b")
ANY_TODO = re.compile(r"\bTODO\s*[(:]")
# Statements that only silence "unused" warnings; the parameter should be
# [[maybe_unused]] or unnamed instead.
VOID_CAST = re.compile(r"static_cast<void>\s*\(|\(void\)\s*[A-Za-z_]\w*\s*;")
HASH_COMMENT_SUFFIXES = (".py", ".sh", ".cmake", ".txt")
MAX_HUNKS_PER_FILE = 5


@dataclasses.dataclass
class Region:
    """A TODO region of a skeleton: lines first..last (1-based, inclusive)."""
    exercise: str  # "ex3"
    size: int  # the lines it says the answer needs
    first: int
    last: int = 0


def parse_regions(path, lines, problems):
    """The skeleton's TODO regions; malformed TODO lines go to `problems`."""
    regions = []
    open_region = None
    for number, line in enumerate(lines, 1):
        begin, end = BEGIN.search(line), END.search(line)
        if begin:
            if open_region:
                problems.append(f"{path}:{open_region.first}: TODO({open_region.exercise}) has no "
                                f"end line before the TODO({begin[1]}) begin of line {number}")
            if int(begin[2]) < 1:
                problems.append(f"{path}:{number}: a TODO region needs at least 1 line")
            open_region = Region(begin[1], int(begin[2]), number)
        elif end:
            if not open_region:
                problems.append(f"{path}:{number}: TODO({end[1]}) end without a begin line")
            elif end[1] != open_region.exercise:
                problems.append(f"{path}:{number}: TODO({end[1]}) end closes the "
                                f"TODO({open_region.exercise}) region of line {open_region.first}")
            else:
                open_region.last = number
                regions.append(open_region)
            open_region = None
        elif ANY_TODO.search(line):
            named = re.search(r"TODO\((ex\d+)\)", line)
            exercise = named[1] if named else "exN"
            problems.append(
                f"{path}:{number}: a TODO must open a region and say its size, as in "
                f"`// TODO({exercise}) begin, about 2 lines: ...`, with the region ending at "
                f"`// TODO({exercise}) end`:\n    {line.strip()}")
    if open_region:
        problems.append(f"{path}:{open_region.first}: TODO({open_region.exercise}) has no end line")
    return regions


def align(skeleton, solution, regions):
    """Aligns the skeleton's lines with the solution's, where each region
    stands for any run of solution lines and every other line must be equal.
    Returns the alignment with the fewest differences as a list of (kind,
    skeleton lines, solution lines), 0-based line ranges, kind in equal,
    region, changed."""
    # The skeleton as tokens: an int is one literal line, a Region a wildcard.
    tokens, number = [], 0
    for region in regions:
        tokens.extend(range(number, region.first - 1))
        tokens.append(region)
        number = region.last
    tokens.extend(range(number, len(skeleton)))

    # A line that differs outside the regions costs more than all solution
    # lines the regions can take together: the fewest differences first, then
    # the smallest regions, so that a line changed next to a region shows as a
    # difference instead of as part of the region's answer.
    rows, cols = len(tokens) + 1, len(solution) + 1
    differ = cols  # a line missing, added or changed
    infinity = (len(skeleton) + len(solution) + 1) * differ
    cost = [[infinity] * cols for _ in range(rows)]
    came_from = [[None] * cols for _ in range(rows)]
    cost[0][0] = 0
    for i in range(rows):
        for j in range(1, cols):  # a solution line the skeleton lacks
            if cost[i][j - 1] + differ < cost[i][j]:
                cost[i][j], came_from[i][j] = cost[i][j - 1] + differ, (i, j - 1)
        if i == rows - 1:
            break
        token = tokens[i]
        if isinstance(token, Region):  # stands for solution lines start..j-1
            start = 0
            for j in range(cols):
                if cost[i][j] <= cost[i][start] + (j - start):
                    start = j
                cost[i + 1][j], came_from[i + 1][j] = cost[i][start] + (j - start), (i, start)
            continue
        for j in range(cols):
            if cost[i][j] + differ < cost[i + 1][j]:  # a skeleton line the solution lacks
                cost[i + 1][j], came_from[i + 1][j] = cost[i][j] + differ, (i, j)
            if j < cols - 1:
                step = 0 if skeleton[token] == solution[j] else differ
                if cost[i][j] + step < cost[i + 1][j + 1]:
                    cost[i + 1][j + 1], came_from[i + 1][j + 1] = cost[i][j] + step, (i, j)

    # Walk back, then merge neighbouring differences into hunks.
    steps, i, j = [], rows - 1, cols - 1
    while (i, j) != (0, 0):
        pi, pj = came_from[i][j]
        if pi == i:  # solution line pj, inserted before the skeleton's token i
            at = next_skeleton_line(tokens, i, len(skeleton))
            steps.append(("changed", (at, at), (pj, j)))
        elif isinstance(tokens[pi], Region):
            steps.append(("region", (tokens[pi].first - 1, tokens[pi].last), (pj, j)))
        else:
            line = tokens[pi]
            same = pj < j and skeleton[line] == solution[pj]
            steps.append(("equal" if same else "changed", (line, line + 1), (pj, j)))
        i, j = pi, pj
    steps.reverse()
    hunks = []
    for kind, lines, answer in steps:
        if hunks and hunks[-1][0] == kind == "changed":
            _, previous_lines, previous_answer = hunks[-1]
            hunks[-1] = (kind, (min(previous_lines[0], lines[0]), max(previous_lines[1], lines[1])),
                         (previous_answer[0], answer[1]))
        else:
            hunks.append((kind, lines, answer))
    return hunks


def next_skeleton_line(tokens, i, end):
    """The 0-based skeleton line at or after token i (where an insertion sits)."""
    if i == len(tokens):
        return end
    return tokens[i].first - 1 if isinstance(tokens[i], Region) else tokens[i]


def code_lines(lines, suffix):
    """Lines that are neither blank nor only a comment."""
    markers = ("#",) if suffix in HASH_COMMENT_SUFFIXES else ("//", "/*")
    return sum(1 for line in lines if line.strip() and not line.strip().startswith(markers))


def size_is_about(said, actual):
    return abs(actual - said) <= max(2, said // 2)


def void_cast_problems(path, lines):
    return [f"{path}:{number}: a void cast that only silences a warning; mark the parameter "
            f"[[maybe_unused]] or leave it unnamed:\n    {line.strip()}"
            for number, line in enumerate(lines, 1) if VOID_CAST.search(line)]


def drift_problems(shown_lab, shown_solution, skeleton, solution, hunks):
    """One problem per difference outside the regions, with the lines that differ."""
    differences = [hunk for hunk in hunks if hunk[0] == "changed"]
    problems = []
    for _, (first, last), (answer_first, answer_last) in differences[:MAX_HUNKS_PER_FILE]:
        # Lines added at the end of a file are shown at the file's last line.
        line, answer_line = min(first + 1, len(skeleton)), min(answer_first + 1, len(solution))
        text = [f"{shown_lab}:{max(line, 1)}: differs from {shown_solution}:{max(answer_line, 1)} "
                f"outside a TODO region"]
        text += [f"    - {line}" for line in skeleton[first:last]]
        text += [f"    + {line}" for line in solution[answer_first:answer_last]]
        problems.append("\n".join(text))
    if len(differences) > MAX_HUNKS_PER_FILE:
        problems.append(f"{shown_lab}: ... and {len(differences) - MAX_HUNKS_PER_FILE} more "
                        f"differences outside TODO regions")
    return problems


def size_problems(shown_lab, shown_solution, solution, regions, hunks, suffix):
    """A region whose size is far from the size of the solution's answer."""
    problems = []
    for kind, (first, _), (answer_first, answer_last) in hunks:
        if kind != "region":
            continue
        region = next(r for r in regions if r.first == first + 1)
        actual = code_lines(solution[answer_first:answer_last], suffix)
        if not size_is_about(region.size, actual):
            problems.append(
                f"{shown_lab}:{region.first}: TODO({region.exercise}) says about "
                f"{region.size} lines, but the solution's answer has {actual} lines of code "
                f"({shown_solution}:{answer_first + 1}-{answer_last}); say about {actual}")
    return problems


def check_pair(lab_path, solution_path, shown_lab, shown_solution):
    """Returns (problems, number of regions) for one skeleton and its solution."""
    try:
        skeleton = lab_path.read_text(encoding="utf-8").splitlines()
        solution = solution_path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:  # not text: no regions, so the bytes must match
        if lab_path.read_bytes() != solution_path.read_bytes():
            return [f"{shown_lab}: differs from {shown_solution} (a binary file)"], 0
        return [], 0

    problems = void_cast_problems(shown_lab, skeleton)
    problems += void_cast_problems(shown_solution, solution)
    marker_problems = []
    regions = parse_regions(shown_lab, skeleton, marker_problems)
    if marker_problems:  # without sound regions a diff would only add noise
        return problems + marker_problems, len(regions)
    hunks = align(skeleton, solution, regions)
    drift = drift_problems(shown_lab, shown_solution, skeleton, solution, hunks)
    if drift:  # then the regions' answers are not known for sure
        return problems + drift, len(regions)
    suffix = lab_path.suffix or lab_path.name
    return problems + size_problems(shown_lab, shown_solution, solution, regions, hunks,
                                    suffix), len(regions)


def files_under(folder):
    """Relative paths of the files under folder, hidden ones and caches left out."""
    found = set()
    for path in folder.rglob("*"):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        if path.is_file():
            found.add(relative.as_posix())
    return found


def folders_under(folder):
    return {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")}


def check_tree(root):
    """Returns (problems, summary)."""
    labs, solutions = root / "labs", root / "solutions"
    for folder in (labs, solutions):
        if not folder.is_dir():
            return [f"{folder}: no such folder"], ""
    problems = []
    lab_names = folders_under(labs)
    solution_names = folders_under(solutions)
    if not lab_names | solution_names:
        return [f"{labs}: no lab folders to check"], ""
    for name in sorted(solution_names - lab_names):
        problems.append(f"solutions/{name}: no labs/{name} skeleton for it")
    for name in sorted(lab_names - solution_names):
        problems.append(f"labs/{name}: no solutions/{name} reference for it")

    file_count = region_count = 0
    for name in sorted(lab_names & solution_names):
        lab_files = files_under(labs / name) - {HANDOUT}
        solution_files = files_under(solutions / name)
        if HANDOUT in solution_files:
            problems.append(f"solutions/{name}/{HANDOUT}: the handout belongs in labs/{name}/ only")
            solution_files.remove(HANDOUT)
        for relative in sorted(lab_files - solution_files):
            problems.append(f"labs/{name}/{relative}: missing from solutions/{name}/")
        for relative in sorted(solution_files - lab_files):
            problems.append(f"solutions/{name}/{relative}: missing from labs/{name}/")
        for relative in sorted(lab_files & solution_files):
            found, regions = check_pair(labs / name / relative, solutions / name / relative,
                                        f"labs/{name}/{relative}", f"solutions/{name}/{relative}")
            problems += found
            file_count += 1
            region_count += regions
    summary = (f"{counted(len(lab_names & solution_names), 'lab')}, {counted(file_count, 'file')}, "
               f"{counted(region_count, 'TODO region')}")
    return problems, summary


def counted(number, noun):
    return f"{number} {noun}{'s' * (number != 1)}"


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1]) if len(argv) == 2 else pathlib.Path(__file__).resolve().parents[1]
    problems, summary = check_tree(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_skeletons: {counted(len(problems), 'problem')}: labs/ and "
              f"solutions/ may differ only inside TODO regions (docs/architecture.md, "
              f"\"Student code vs reference\")")
        return 1
    print(f"check_skeletons: {summary}: labs/ and solutions/ differ only inside TODO regions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
