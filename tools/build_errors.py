#!/usr/bin/env python3
"""The compile errors of a failed build, as a student should read them.

Usage: build_errors.py BUILD_LOG [ROOT]

Prints each error line once (GCC's `file:line:col: error: ...`, nvcc's
`file(line): error: ...`, the linker's `undefined reference`), paths
relative to ROOT (default: the current folder), errors in lab folders
(labs/, solutions/) first and at most 20 of them, then at most 10 others.
With no error line in the log, its last 30 lines. Exits 0.
"""
import os
import re
import sys

ERROR = re.compile(r"^\S+?(:\d+(:\d+)?:|\(\d+\):) (fatal |catastrophic )?error\b|"
                   r"undefined reference to|ld: .*error")
LAB_FILE = re.compile(r"^(labs|solutions)/")


def errors_of(lines, root):
    seen, errors = set(), []
    for line in lines:
        line = line.rstrip("\n").replace(root.rstrip("/") + "/", "")
        if ERROR.search(line) and line not in seen:
            seen.add(line)
            errors.append(line)
    return errors


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()
    with open(sys.argv[1], errors="replace") as f:
        lines = f.readlines()
    errors = errors_of(lines, root)
    if not errors:
        shown = [line.rstrip("\n").replace(root.rstrip("/") + "/", "") for line in lines[-30:]]
    else:
        shown = ([e for e in errors if LAB_FILE.match(e)][:20] +
                 [e for e in errors if not LAB_FILE.match(e)][:10])
    for line in shown:
        print("  " + line)


if __name__ == "__main__":
    main()
