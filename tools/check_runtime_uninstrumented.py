#!/usr/bin/env python3
"""Checks that an executable's emulator runtime runs no instrumented code.

Usage: check_runtime_uninstrumented.py EXECUTABLE EMULATOR_ARCHIVE

Every inline library function that the emulator's archive compiles its own
copy of (a weak symbol there) must be linked from that copy, not from an
instrumented file's, which calls the __tsan_* hooks on every access: the
runtime would check its own heap writes as the kernel's
(cmake/CudalabEmu.cmake says why the link puts the archive first). Prints
each function linked with hook calls and exits 1 if there is one.
"""
import re
import subprocess
import sys


def weak_functions(archive: str) -> set[str]:
    """The weak functions (inline code) the emulator's archive defines."""
    out = subprocess.run(["nm", "--defined-only", archive], check=True, capture_output=True,
                         text=True).stdout
    return {fields[2] for fields in (line.split() for line in out.splitlines())
            if len(fields) == 3 and fields[1] == "W"}


def functions_calling_hooks(executable: str, names: set[str]) -> list[str]:
    """Those of `names` whose linked body in `executable` calls a __tsan_* hook."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", executable], check=True,
                         capture_output=True, text=True).stdout
    header = re.compile(r"^[0-9a-f]+ <(.+)>:$")
    calling, current = set(), None
    for line in out.splitlines():
        match = header.match(line)
        if match:
            current = match.group(1) if match.group(1) in names else None
        elif current and "call" in line and "<__tsan_" in line:
            calling.add(current)
    return sorted(calling)


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    executable, archive = sys.argv[1:]
    names = weak_functions(archive)
    if not names:
        print(f"{archive}: defines no weak functions; is it the emulator's archive?",
              file=sys.stderr)
        return 2
    bad = functions_calling_hooks(executable, names)
    for name in bad:
        demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout
        print(f"{executable}: the emulator runs an instrumented copy of {demangled.strip()}")
    if not bad:
        print(f"{executable}: the emulator's {len(names)} inline functions are its own copies")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
