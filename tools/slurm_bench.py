#!/usr/bin/env python3
"""`./lab bench NN --slurm`: a Slurm batch script that runs `./lab bench NN`
on a GPU node and copies the result file back (docs/course-staff.md,
"Benchmarks on a Slurm cluster").

Usage: slurm_bench.py NN [--ranks N] [--solution] [--slurm-partition P]
         [--slurm-account A] [--slurm-time T] [--slurm-gpu-type G] [--slurm-cpus C]
         [--slurm-results DIR] [--slurm-script FILE] [--slurm-student NAME]
         [--slurm-config FILE] [--slurm-no-submit]

The script is tools/slurm/bench.sbatch.in with the job's values filled in:
one task on one node holding one GPU, or N for lab 04 (`--ranks N`: its
bench drives every GPU from one process). It is written to --slurm-script
(default results/slurm/labNN-bench.sbatch) and, where `sbatch` is on PATH,
submitted; otherwise the command that submits it is printed. The job copies
the result file to --slurm-results (default results/) as
STUDENT-labNN-JOBID.json, the name `./lab leaderboard` takes the student
from.

Defaults for the --slurm-* options come from a config file: --slurm-config,
else $CUDALAB_SLURM_CONFIG, else cudalab-slurm.ini at the repository's root
when there is one; an INI file with a [slurm] section whose keys are the
options' names without --slurm- (partition, account, time, gpu-type,
cpus, results, student). Options given on the command line win.

Every value is checked before anything is written: an unknown lab, a lab
without a benchmark, ranks < 1, --ranks for a lab other than 04, or a value
that is not a plain Slurm name (spaces, shell metacharacters) is an error
naming the problem, and no script is written.
"""
import argparse
import configparser
import getpass
import json
import os
import pathlib
import re
import shlex
import shutil
import string
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "tools/slurm/bench.sbatch.in"
MULTI_GPU_LAB = "04"

# Slurm names (partitions, accounts, GPU types) and student names: letters,
# digits and . _ - ; a partition may be a comma-separated list.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
PARTITIONS = re.compile(rf"{NAME.pattern}(?:,{NAME.pattern})*")
# Slurm's time formats: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
TIME = re.compile(r"\d+(?::\d{1,2}){0,2}|\d+-\d{1,2}(?::\d{1,2}){0,2}")
CONFIG_KEYS = ("partition", "account", "time", "gpu-type", "cpus", "results", "student")


class Refused(Exception):
    """Bad input: the message names the problem; nothing was written."""


def lab_folder(root, nn):
    if not re.fullmatch(r"\d\d", nn):
        raise Refused(f"'{nn}' is no lab number (two digits, e.g. 01)")
    found = sorted(p for p in (root / "harness").glob(f"{nn}_*") if (p / "lab.json").is_file())
    if not found:
        known = ", ".join(sorted(p.name[:2] for p in (root / "harness").glob("[0-9][0-9]_*")))
        raise Refused(f"there is no lab {nn} (labs: {known})")
    descriptor = json.loads((found[0] / "lab.json").read_text())
    if not descriptor.get("bench", False):
        raise Refused(f"lab {nn} has no benchmark (harness/{found[0].name}/lab.json says "
                      f"\"bench\": false)")
    return found[0].name


def checked(option, value, pattern, what):
    if value is not None and not pattern.fullmatch(value):
        raise Refused(f"{option} {value!r} is not {what}; nothing written")
    return value


def read_config(path):
    parser = configparser.ConfigParser()
    try:
        with open(path) as f:
            parser.read_file(f)
    except (OSError, configparser.Error) as e:
        raise Refused(f"the Slurm config {path} cannot be read: {e}") from e
    if not parser.has_section("slurm"):
        raise Refused(f"the Slurm config {path} has no [slurm] section")
    unknown = set(parser["slurm"]) - set(CONFIG_KEYS)
    if unknown:
        raise Refused(f"the Slurm config {path} has unknown keys {sorted(unknown)} "
                      f"(known: {', '.join(CONFIG_KEYS)})")
    return dict(parser["slurm"])


def parse(argv, root):
    parser = argparse.ArgumentParser(prog="./lab bench NN --slurm", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lab")
    parser.add_argument("--ranks", type=int)
    parser.add_argument("--solution", action="store_true")
    for key in CONFIG_KEYS:
        parser.add_argument(f"--slurm-{key}")
    parser.add_argument("--slurm-script")
    parser.add_argument("--slurm-config")
    parser.add_argument("--slurm-no-submit", action="store_true")
    args = parser.parse_args(argv)

    config_path = args.slurm_config or os.environ.get("CUDALAB_SLURM_CONFIG")
    if not config_path and (root / "cudalab-slurm.ini").is_file():
        config_path = str(root / "cudalab-slurm.ini")
    config = read_config(config_path) if config_path else {}
    for key in CONFIG_KEYS:
        attribute = "slurm_" + key.replace("-", "_")
        if getattr(args, attribute) is None and key in config:
            setattr(args, attribute, config[key])
    return args


def render(args, root):
    """The batch script's text and where it goes; Refused on bad input."""
    lab_folder(root, args.lab)
    if args.ranks is not None:
        if args.ranks < 1:
            raise Refused(f"--ranks {args.ranks}: a run needs at least 1 rank")
        if args.lab != MULTI_GPU_LAB:
            raise Refused(f"--ranks is lab {MULTI_GPU_LAB}'s (its bench uses N GPUs); "
                          f"lab {args.lab}'s bench runs on one GPU")
    checked("--slurm-partition", args.slurm_partition, PARTITIONS,
            "a Slurm partition name (letters, digits, . _ -, commas between names)")
    checked("--slurm-account", args.slurm_account, NAME,
            "a Slurm account name (letters, digits, . _ -)")
    checked("--slurm-gpu-type", args.slurm_gpu_type, NAME,
            "a GPU type of the cluster's gres (letters, digits, . _ -, e.g. h100)")
    cpus = checked("--slurm-cpus", args.slurm_cpus or "8", re.compile(r"[1-9]\d{0,3}"),
                   "a CPU count (1 to 9999)")
    time = checked("--slurm-time", args.slurm_time or "00:30:00", TIME,
                   "a Slurm time limit (minutes, H:M:S or D-H:M:S)")
    student = args.slurm_student
    if student is None:
        try:
            student = getpass.getuser()
        except (KeyError, OSError) as e:
            raise Refused("no login name to name the result file by: give --slurm-student") from e
    student = checked("--slurm-student", student, NAME,
                      "a name for the result file (letters, digits, . _ -)")
    gpus = args.ranks or 1
    gres = f"{args.slurm_gpu_type}:{gpus}" if args.slurm_gpu_type else str(gpus)
    results = pathlib.Path(args.slurm_results or "results")
    if not results.is_absolute():
        results = root / results
    if re.search(r"[\s%]", str(results)):
        raise Refused(f"--slurm-results {str(results)!r}: a folder name with white space or % "
                      f"(#SBATCH --output cannot hold it); nothing written")
    script = pathlib.Path(args.slurm_script or root / "results/slurm" / f"lab{args.lab}-bench.sbatch")
    bench_options = (" --solution" if args.solution else "") + \
        (f" --ranks {args.ranks}" if args.ranks is not None else "")
    optional = [f"#SBATCH --partition={args.slurm_partition}"] if args.slurm_partition else []
    optional += [f"#SBATCH --account={args.slurm_account}"] if args.slurm_account else []
    template = TEMPLATE.read_text()
    template = template.replace("${optional_sbatch_lines}\n",
                                "".join(line + "\n" for line in optional))
    text = string.Template(template).substitute(
        lab=args.lab, bench_options=bench_options, script=shlex.quote(str(script)),
        gres=gres, gpus=gpus, cpus=cpus, time=time,
        log=results / f"slurm-lab{args.lab}-%j.out",
        root=shlex.quote(str(root)), results=shlex.quote(str(results)), student=student)
    return text, script, results


def main(argv=None, root=ROOT):
    try:
        args = parse(sys.argv[1:] if argv is None else argv, root)
        text, script, results = render(args, root)
    except Refused as e:
        print(f"lab: bench --slurm: {e}", file=sys.stderr)
        return 2
    # Slurm opens the job's --output file there before the job starts.
    results.mkdir(parents=True, exist_ok=True)
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(text)
    script.chmod(0o755)
    print(f"lab: batch script written to {script}")
    if args.slurm_no_submit or not shutil.which("sbatch"):
        why = "" if args.slurm_no_submit else " (no sbatch on PATH here)"
        print(f"lab: not submitted{why}; on the cluster's login node: sbatch {shlex.quote(str(script))}")
        return 0
    submitted = subprocess.run(["sbatch", str(script)], capture_output=True, text=True)
    sys.stdout.write(submitted.stdout)
    sys.stderr.write(submitted.stderr)
    if submitted.returncode != 0:
        print(f"lab: sbatch refused {script} (exit {submitted.returncode})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
