#!/usr/bin/env python3
"""Build a Gradescope autograder zip that grades labs NN (`./lab package
gradescope`; docs/course-staff.md).

Usage: package_gradescope.py [NN ...] [--out FILE] [--cuda-setup SCRIPT]

The zip holds, at its root, what Gradescope's autograder specification asks
for (setup.sh and run_autograder, from tools/gradescope/), next to the
repository's files that grading needs: ./lab, CMake, common/, tools/, and for
each lab graded its harness/, labs/, solutions/ and tests/ folders.
autograder.json names the labs. Left out: other labs, mutants/ (patches
against the reference), the viewer, CI files and anything git ignores.

The reference solutions go in because every test program links them (a
test grades one exercise with the reference's other parts, and some compare
with the reference): setup.sh compiles them into the image and then blanks
their sources there (tools/autograder.py prepare), so that a submission,
which runs in the same image, can neither read nor include them. The zip
itself is for course staff only.

--cuda-setup SCRIPT: a script of yours that installs the CUDA toolkit on
Gradescope's image (where the base image has none); it goes into the zip as
cuda-setup.sh and setup.sh runs it first. It stays out of the repository,
with whatever package host it names.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import zipfile

TEMPLATES = pathlib.Path(__file__).resolve().parent / "gradescope"
PER_LAB_FOLDERS = ("harness", "labs", "solutions", "tests")
# Not needed to grade, and mutants/ would show a submission's author the
# reference's lines.
LEFT_OUT = ("mutants/", "viewer/", ".github/", ".ci/", "docs/images/")
EXECUTABLE = 0o755
REGULAR = 0o644


def lab_folders(root):
    """{"01": "01_broadcast", ...}: every lab with a descriptor."""
    labs = {}
    for descriptor in sorted(root.glob("harness/[0-9][0-9]_*/lab.json")):
        name = descriptor.parent.name
        labs[name[:2]] = name
    return labs


def repository_files(root):
    """The files git tracks or would track (not ignored), relative to root."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        check=True, capture_output=True, text=True).stdout
    return sorted({name for name in listed.split("\0") if name and (root / name).is_file()})


def wanted(name, graded, all_labs):
    if name.startswith(LEFT_OUT):
        return False
    parts = name.split("/")
    if parts[0] in PER_LAB_FOLDERS and len(parts) > 2 and re.match(r"^\d\d_", parts[1]):
        return parts[1] in graded or parts[1] not in all_labs.values()
    return True


def add_file(archive, name, data, mode):
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", metavar="NN", help="labs to grade (default: all)")
    parser.add_argument("--out", default="results/gradescope-autograder.zip",
                        help="the zip to write (default: %(default)s)")
    parser.add_argument("--cuda-setup", type=pathlib.Path, metavar="SCRIPT",
                        help="a script that installs the CUDA toolkit on the image")
    args = parser.parse_args()

    root = TEMPLATES.parent.parent
    all_labs = lab_folders(root)
    numbers = args.labs or sorted(all_labs)
    unknown = [n for n in numbers if n not in all_labs]
    if unknown:
        sys.exit(f"package_gradescope: no lab {', '.join(unknown)} "
                 f"(labs: {' '.join(sorted(all_labs))})")
    graded = {all_labs[n] for n in numbers}
    if args.cuda_setup and not args.cuda_setup.is_file():
        sys.exit(f"package_gradescope: --cuda-setup {args.cuda_setup}: no such file")

    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    names = [n for n in repository_files(root) if wanted(n, graded, all_labs)]
    with zipfile.ZipFile(out, "w") as archive:
        for template in ("setup.sh", "run_autograder"):
            add_file(archive, template, (TEMPLATES / template).read_bytes(), EXECUTABLE)
        add_file(archive, "autograder.json",
                 json.dumps({"labs": sorted(numbers)}, indent=2) + "\n", REGULAR)
        if args.cuda_setup:
            add_file(archive, "cuda-setup.sh", args.cuda_setup.read_bytes(), EXECUTABLE)
        for name in names:
            mode = EXECUTABLE if (root / name).stat().st_mode & 0o111 else REGULAR
            add_file(archive, name, (root / name).read_bytes(), mode)
    print(f"package_gradescope: wrote {out} (labs {' '.join(sorted(numbers))}, "
          f"{len(names) + 3} files); upload it as the assignment's autograder")


if __name__ == "__main__":
    main()
