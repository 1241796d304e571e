#!/usr/bin/env python3
"""Runs every viewer command a page shows, as a reader would type it.

Each shell line of the page's fenced code blocks (continuation lines joined)
that opens the viewer -- `./lab view ...`, `build/<preset>/viewer/cudalab_view
...`, either behind `xvfb-run ... env ...` -- is run with the viewer this
build made, off-screen (`--screenshot` into a scratch folder; a path the
command writes is redirected there too, so the docs' images stay as they
are), under Xvfb where the command does not bring its own. A command passes
when the viewer exits 0 and writes its PNG. Before running, the command must
name things that exist:
  - `build/<preset>/viewer/cudalab_view`: <preset> is a configure preset of
    CMakePresets.json (that is where `cmake --preset <preset>` builds);
  - a file it reads (`--results FILE`) exists from the top of the tree, or is
    a placeholder (`RESULT.json`, `results/lab01-<time>.json`), for which the
    lab's measurement in docs/results/ stands in; `--leaderboard FILE` must
    exist from the top of the tree;
  - a bare `cudalab_view` is not on anyone's PATH: it fails.
Other shell lines (`./lab run 05`, `ctest ...`, `ssh ...`) are not viewer
commands; they are listed as not run. Exit status 0 when every viewer command
ran, 1 otherwise.

usage: doc_commands.py --viewer PATH [--root DIR] PAGE.md...
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

VIEWER_BINARY = "viewer/cudalab_view"
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"]
OUTPUT_OPTIONS = ("--screenshot", "--layout")


def shell_lines(page):
    """(line number, command) for each shell line of the page's code blocks."""
    lines = open(page, encoding="utf-8").read().splitlines()
    in_block, language, pending, start = False, "", "", 0
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^\s*```(\w*)", line)
        if fence:
            in_block, language = not in_block, fence.group(1)
            continue
        if not in_block or language not in ("", "sh", "bash", "console"):
            continue
        if not pending:
            start = number
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        command = re.sub(r"\s+#.*$", "", pending).strip()  # a trailing comment
        pending = ""
        if command and not command.startswith("#"):
            yield start, command


def presets(root):
    with open(os.path.join(root, "CMakePresets.json"), encoding="utf-8") as f:
        return {p["name"] for p in json.load(f)["configurePresets"] if not p.get("hidden")}


def is_placeholder(path):
    name = os.path.basename(path)
    return "<" in path or re.fullmatch(r"[A-Z_]+(\.[a-z]+)?", name) is not None


def stand_in(root, lab):
    found = sorted(glob.glob(os.path.join(root, "docs", "results", f"lab{lab}-*.json")))
    return found[0] if found else None


def plan(command, root, viewer, scratch, count):
    """The argv to run for one documented command, or (None, why not)."""
    words = shlex.split(command)
    prefix = []
    if words[0] == "xvfb-run":  # xvfb-run [options] [env VAR=... ] program ...
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in ("-s", "--server-args", "-n", "-e", "-f") else 1
        if i < len(words) and words[i] == "env":
            i += 1
            while i < len(words) and "=" in words[i]:
                i += 1
        prefix, words = words[:i], words[i:]
    if not words:
        return None, "nothing after xvfb-run"
    lab = "01"
    if words[0] == "./lab" and len(words) > 1 and words[1] == "view":
        args = words[2:]
        if args and re.fullmatch(r"\d+", args[0]):
            lab = args[0]
            args = ["--lab"] + args
    elif words[0].endswith(VIEWER_BINARY) and "/" in words[0]:
        match = re.fullmatch(r"build/([^/]+)/" + VIEWER_BINARY, words[0])
        if not match:
            return None, f"{words[0]}: the viewer is built at build/<preset>/{VIEWER_BINARY}"
        if match.group(1) not in presets(root):
            return None, (f"{words[0]}: no configure preset '{match.group(1)}' builds there "
                          f"(CMakePresets.json has {', '.join(sorted(presets(root)))})")
        args = words[1:]
        if args and re.fullmatch(r"\d+", args[0]):
            lab = args[0]
    elif words[0] == "cudalab_view":
        return None, ("cudalab_view is not on PATH after a build: write "
                      f"build/student/{VIEWER_BINARY} or ./lab view")
    else:
        return "skip", "not a viewer command"
    args = list(args)
    for i, word in enumerate(args[:-1]):
        if word == "--results":
            path = args[i + 1]
            if os.path.exists(os.path.join(root, path)):
                args[i + 1] = os.path.join(root, path)
            elif is_placeholder(path) and stand_in(root, lab):
                args[i + 1] = stand_in(root, lab)
            else:
                return None, f"--results {path}: no such file"
        if word == "--leaderboard":  # ./lab leaderboard's leaderboard.json
            path = args[i + 1]
            if not os.path.exists(os.path.join(root, path)):
                return None, f"--leaderboard {path}: no such file"
            args[i + 1] = os.path.join(root, path)
        if word in OUTPUT_OPTIONS:  # written, not read: into the scratch folder
            args[i + 1] = os.path.join(scratch, f"{count}-{os.path.basename(args[i + 1])}")
    if "--screenshot" not in args:
        args += ["--screenshot", os.path.join(scratch, f"{count}.png")]
    png = args[args.index("--screenshot") + 1]
    run_prefix = prefix if prefix else XVFB + ["env", "LIBGL_ALWAYS_SOFTWARE=1"]
    return (run_prefix + [viewer] + args, png), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewer", required=True, help="the cudalab_view this build made")
    parser.add_argument("--root", default=os.getcwd(), help="the top of the source tree")
    parser.add_argument("pages", nargs="+")
    options = parser.parse_args()
    failed = ran = 0
    with tempfile.TemporaryDirectory() as scratch:
        for page in options.pages:
            path = os.path.join(options.root, page)
            for number, command in shell_lines(path):
                where = f"{page}:{number}: {command}"
                planned, why = plan(command, options.root, options.viewer, scratch, ran + failed)
                if planned == "skip":
                    print(f"not run  {where}  ({why})")
                    continue
                if planned is None:
                    print(f"FAIL     {where}\n         {why}")
                    failed += 1
                    continue
                argv, png = planned
                try:
                    done = subprocess.run(argv, cwd=options.root, capture_output=True, text=True,
                                          timeout=120)
                    ok = done.returncode == 0 and os.path.getsize(png) > 0
                    detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                except (subprocess.TimeoutExpired, OSError) as e:
                    ok, detail = False, [str(e)]
                if ok:
                    print(f"ok       {where}")
                    ran += 1
                else:
                    failed += 1
                    print(f"FAIL     {where}\n         ran: {shlex.join(argv)}")
                    for line in detail:
                        print(f"         {line}")
    print(f"{ran} viewer commands ran, {failed} failed")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
