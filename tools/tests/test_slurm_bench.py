#!/usr/bin/env python3
"""`./lab bench NN --slurm` (tools/slurm_bench.py, tools/slurm/bench.sbatch.in;
docs/course-staff.md, "Benchmarks on a Slurm cluster"), without a cluster or
a GPU: in a scratch copy of ./lab and the tools, with stand-ins on PATH for
`sbatch` (checks the script's #SBATCH lines, then runs the job at once) and
`srun` (runs a stand-in for `./lab bench` that writes a result file from
docs/results/). Checks the rendered scripts of labs 01 and 04 (bash -n, the
#SBATCH lines, the bench command, the copy-back), runs them end to end so
the copied result is the one the bench wrote, refuses bad input without
writing anything, and runs the commands of the doc's sections 6 and 7
(the Slurm config, the submissions, then the leaderboard of what came back)."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
RESULTS = {"01": ROOT / "docs/results/lab01-h100-2026-12-07.json",
           "04": ROOT / "docs/results/lab04-2xh200-2026-11-30.json"}

# Stands in for `./lab bench NN [...]` on a GPU node: records its arguments,
# writes results/labNN-<time>.json and names it as ./lab bench does.
FAKE_BENCH = r"""#!/usr/bin/env bash
set -euo pipefail
echo "./lab $*" >>"$FAKE_LOG"
nn=$2
mkdir -p results
out=results/lab$nn-20261207T120000Z.json
cp "$FAKE_RESULTS/lab$nn.json" "$out"
echo "lab: results written to $out"
"""

# srun inside a job: drops its options and runs the command, with the
# stand-in for ./lab bench.
FAKE_SRUN = r"""#!/usr/bin/env bash
set -euo pipefail
echo "srun $*" >>"$FAKE_LOG"
while (($#)) && [[ "$1" == -* ]]; do shift; done
if [[ "$1" == ./lab && "${2:-}" == bench ]]; then shift; exec "$FAKE_BENCH" "$@"; fi
exec "$@"
"""

# sbatch: refuses a script without a GPU request or with a shell error, else
# runs the job now (as job 4242, the job's output to $FAKE_JOB_OUT).
FAKE_SBATCH = r"""#!/usr/bin/env bash
set -euo pipefail
script=${@: -1}
echo "sbatch $*" >>"$FAKE_LOG"
head -n 1 "$script" | grep -q '^#!/bin/bash' || { echo "sbatch: error: no #! line" >&2; exit 1; }
grep -q '^#SBATCH --gres=gpu:' "$script" || { echo "sbatch: error: no GPU asked for" >&2; exit 1; }
bash -n "$script" || { echo "sbatch: error: the script does not parse" >&2; exit 1; }
job=$((4242 + $(grep -c '^sbatch ' "$FAKE_LOG") - 1))
if ! SLURM_JOB_ID=$job bash "$script" >>"$FAKE_JOB_OUT" 2>&1; then
  echo "sbatch stand-in: job $job failed:" >&2; cat "$FAKE_JOB_OUT" >&2; exit 1
fi
echo "Submitted batch job $job"
"""


def sbatch_lines(text):
    return [line for line in text.splitlines() if line.startswith("#SBATCH")]


def doc_blocks(section_titles, language):
    """The ```language blocks of the sections of docs/course-staff.md named."""
    doc = (ROOT / "docs/course-staff.md").read_text()
    blocks = []
    for title in section_titles:
        start = doc.index(f"\n## {title}\n")
        end = doc.find("\n## ", start + 1)
        section = doc[start:end if end > 0 else len(doc)]
        blocks += re.findall(rf"```{language}\n(.*?)```", section, re.S)
    return blocks


class SlurmBenchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        tmp = pathlib.Path(self.tmp.name)
        self.tree = tmp / "checkout"
        (self.tree / "tools").mkdir(parents=True)
        shutil.copy2(ROOT / "lab", self.tree / "lab")
        for tool in ("slurm_bench.py", "leaderboard.py"):
            shutil.copy2(ROOT / "tools" / tool, self.tree / "tools" / tool)
        shutil.copytree(ROOT / "tools/slurm", self.tree / "tools/slurm")
        for descriptor in ROOT.glob("harness/*/lab.json"):
            target = self.tree / descriptor.relative_to(ROOT)
            target.parent.mkdir(parents=True)
            shutil.copy2(descriptor, target)
        stubs = tmp / "stubs"
        stubs.mkdir()
        fake_results = tmp / "fake-results"
        fake_results.mkdir()
        for nn, path in RESULTS.items():
            shutil.copy2(path, fake_results / f"lab{nn}.json")
        for name, text in (("sbatch", FAKE_SBATCH), ("srun", FAKE_SRUN),
                           ("fake-bench", FAKE_BENCH)):
            (stubs / name).write_text(text)
            (stubs / name).chmod(0o755)
        self.log = tmp / "calls.log"
        self.log.write_text("")
        self.plain_env = {**os.environ, "PATH": "/usr/bin:/bin", "USER": "alice",
                          "LOGNAME": "alice", "FAKE_LOG": str(self.log)}
        self.plain_env.pop("CUDALAB_SLURM_CONFIG", None)
        self.env = {**self.plain_env, "PATH": f"{stubs}:/usr/bin:/bin",
                    "FAKE_BENCH": str(stubs / "fake-bench"),
                    "FAKE_RESULTS": str(fake_results), "FAKE_JOB_OUT": str(tmp / "job.out")}

    def tearDown(self):
        self.tmp.cleanup()

    def lab(self, *args, env=None):
        return subprocess.run(["bash", "-c", " ".join(args)] if len(args) == 1 else
                              [str(self.tree / "lab"), *args], cwd=self.tree,
                              env=env or self.env, capture_output=True, text=True, timeout=60)

    def files(self):
        return sorted(str(p.relative_to(self.tree)) for p in self.tree.rglob("*") if p.is_file())

    def test_lab01_script_without_sbatch(self):
        run = self.lab("bench", "01", "--slurm", "--slurm-partition", "gpu",
                       "--slurm-account", "cs471", "--slurm-gpu-type", "h100",
                       "--slurm-time", "00:20:00", env=self.plain_env)
        self.assertEqual(run.returncode, 0, run.stderr)
        script = self.tree / "results/slurm/lab01-bench.sbatch"
        self.assertIn(f"not submitted (no sbatch on PATH here); on the cluster's login node: "
                      f"sbatch {script}", run.stdout)
        self.assertEqual(self.log.read_text(), "")  # nothing ran
        # Slurm opens --output before the job runs: the folder must be there.
        self.assertTrue((self.tree / "results").is_dir())
        text = script.read_text()
        subprocess.run(["bash", "-n", str(script)], check=True)
        self.assertTrue(text.startswith("#!/bin/bash\n"))
        self.assertEqual(sbatch_lines(text), [
            "#SBATCH --job-name=cudalab-lab01", "#SBATCH --nodes=1", "#SBATCH --ntasks=1",
            "#SBATCH --cpus-per-task=8", "#SBATCH --gres=gpu:h100:1", "#SBATCH --time=00:20:00",
            f"#SBATCH --output={self.tree}/results/slurm-lab01-%j.out",
            "#SBATCH --partition=gpu", "#SBATCH --account=cs471"])
        # #SBATCH lines must come before the first command, or sbatch ignores them.
        first_command = next(i for i, line in enumerate(text.splitlines())
                             if line and not line.startswith("#"))
        last_sbatch = max(i for i, line in enumerate(text.splitlines())
                          if line.startswith("#SBATCH"))
        self.assertLess(last_sbatch, first_command)
        self.assertIn(f"cd {self.tree}\n", text)
        self.assertIn("srun --ntasks=1 ./lab bench 01 2>&1 |", text)
        self.assertIn('copy="$results/alice-lab01-${SLURM_JOB_ID:-local}.json"', text)
        self.assertIn('cp "$written" "$copy"', text)

    def test_lab01_end_to_end_copies_the_result_back(self):
        run = self.lab("bench", "01", "--slurm", "--slurm-results", "results/cluster")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("Submitted batch job 4242", run.stdout)
        calls = self.log.read_text().splitlines()
        self.assertEqual(calls[1:], ["srun --ntasks=1 ./lab bench 01", "./lab bench 01"])
        copied = self.tree / "results/cluster/alice-lab01-4242.json"
        self.assertEqual(json.loads(copied.read_text()), json.loads(RESULTS["01"].read_text()))
        self.assertIn(f"cudalab: result copied to {copied}",
                      pathlib.Path(self.env["FAKE_JOB_OUT"]).read_text())
        script = (self.tree / "results/slurm/lab01-bench.sbatch").read_text()
        self.assertIn("#SBATCH --gres=gpu:1\n", script)  # no GPU type given
        self.assertIn("#SBATCH --time=00:30:00\n", script)

    def test_lab04_runs_one_task_on_n_gpus(self):
        script = self.tree / "job04.sbatch"
        run = self.lab("bench", "04", "--slurm", "--ranks", "2", "--solution",
                       "--slurm-script", str(script), "--slurm-student", "staff")
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        text = script.read_text()
        self.assertIn("#SBATCH --gres=gpu:2\n", text)
        self.assertIn("#SBATCH --ntasks=1\n", text)
        self.assertIn("srun --ntasks=1 ./lab bench 04 --solution --ranks 2 2>&1 |", text)
        calls = self.log.read_text().splitlines()
        self.assertEqual(calls[-1], "./lab bench 04 --solution --ranks 2")
        copied = self.tree / "results/staff-lab04-4242.json"
        self.assertEqual(copied.read_bytes(), RESULTS["04"].read_bytes())

    def test_a_bench_that_writes_nothing_fails_the_job(self):
        (pathlib.Path(self.env["FAKE_RESULTS"]) / "lab01.json").unlink()
        run = self.lab("bench", "01", "--slurm")
        self.assertNotEqual(run.returncode, 0)
        self.assertFalse((self.tree / "results/alice-lab01-4242.json").exists())

    def test_bad_input_is_refused_and_writes_nothing(self):
        before = self.files()
        cases = [
            (["07"], "there is no lab 07 (labs: 01, 02, 03, 04, 05, 06)"),
            (["1"], "'1' is no lab number"),
            (["04", "--ranks", "0"], "--ranks 0: a run needs at least 1 rank"),
            (["04", "--ranks", "-3"], "--ranks -3: a run needs at least 1 rank"),
            (["01", "--ranks", "2"], "--ranks is lab 04's"),
            (["01", "--slurm-partition", "gpu q"], "--slurm-partition 'gpu q' is not a Slurm"),
            (["01", "--slurm-partition", "gpu;rm -rf ~"], "is not a Slurm partition name"),
            (["01", "--slurm-partition", "$(reboot)"], "is not a Slurm partition name"),
            (["01", "--slurm-account", "a`b`"], "--slurm-account 'a`b`' is not a Slurm account"),
            (["01", "--slurm-gpu-type", "h100 x"], "is not a GPU type"),
            (["01", "--slurm-cpus", "0"], "--slurm-cpus '0' is not a CPU count"),
            (["01", "--slurm-time", "soon"], "--slurm-time 'soon' is not a Slurm time limit"),
            (["01", "--slurm-student", "../x"], "is not a name for the result file"),
            (["01", "--slurm-results", "my results"], "a folder name with white space"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                run = self.lab("bench", args[0], "--slurm", *args[1:])
                self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
                self.assertIn("lab: bench --slurm: ", run.stderr)
                self.assertIn(message, run.stderr)
        self.assertEqual(self.files(), before)
        self.assertEqual(self.log.read_text(), "")

    def test_a_lab_without_a_benchmark_is_refused(self):
        descriptor = self.tree / "harness/03_streams/lab.json"
        descriptor.write_text(json.dumps({**json.loads(descriptor.read_text()), "bench": False}))
        run = self.lab("bench", "03", "--slurm")
        self.assertEqual(run.returncode, 2)
        self.assertIn("lab 03 has no benchmark", run.stderr)
        self.assertFalse((self.tree / "results").exists())

    def test_config_file_and_command_line(self):
        config = self.tree / "cluster.ini"
        config.write_text("[slurm]\npartition = a100q\naccount = cs\ntime = 10\ncpus = 16\n")
        run = self.lab("bench", "01", "--slurm", "--slurm-no-submit", "--slurm-config",
                       str(config), "--slurm-time", "1-00:00:00")
        self.assertEqual(run.returncode, 0, run.stderr)
        text = (self.tree / "results/slurm/lab01-bench.sbatch").read_text()
        self.assertIn("#SBATCH --partition=a100q\n", text)
        self.assertIn("#SBATCH --time=1-00:00:00\n", text)  # the command line wins
        self.assertIn("#SBATCH --cpus-per-task=16\n", text)
        self.assertEqual(self.log.read_text(), "")  # --slurm-no-submit
        config.write_text("[slurm]\npartitions = a\n")
        run = self.lab("bench", "01", "--slurm", "--slurm-config", str(config))
        self.assertEqual(run.returncode, 2)
        self.assertIn("unknown keys ['partitions']", run.stderr)
        config.write_text("[slurm]\npartition = a b\n")
        run = self.lab("bench", "01", "--slurm", "--slurm-config", str(config))
        self.assertIn("--slurm-partition 'a b' is not a Slurm partition name", run.stderr)

    def test_the_course_staff_doc_commands(self):
        """Sections 6 and 7 of docs/course-staff.md as written: the config
        file, each submission, then the leaderboard over what the jobs
        copied back and two classmates' files."""
        (ini,) = doc_blocks(["6. Benchmarks on a Slurm cluster"], "ini")
        (self.tree / "cudalab-slurm.ini").write_text(ini)
        submissions = doc_blocks(["6. Benchmarks on a Slurm cluster"], "sh")
        commands = [line for block in submissions for line in block.splitlines() if line]
        self.assertEqual(len(commands), 2)
        for command in commands:
            run = self.lab(command)
            self.assertEqual(run.returncode, 0, command + "\n" + run.stdout + run.stderr)
            self.assertIn("Submitted batch job", run.stdout)
        cluster = self.tree / "results/cluster"
        self.assertEqual(sorted(p.name for p in cluster.glob("*.json")),
                         ["alice-lab01-4242.json", "alice-lab04-4243.json"])
        script = (self.tree / "results/slurm/lab04-bench.sbatch").read_text()
        self.assertIn("#SBATCH --gres=gpu:h100:2\n", script)
        self.assertIn("#SBATCH --partition=gpu\n", script)
        self.assertIn("#SBATCH --account=cs471\n", script)
        self.assertIn("#SBATCH --time=00:40:00\n", script)

        slower = json.loads(RESULTS["01"].read_text())
        for figure in slower["figures"]:
            if figure.get("fraction_of"):
                figure["value"] /= 2
                figure["fraction_of"]["value"] /= 2
        (cluster / "bob-lab01-17.json").write_text(json.dumps(slower))
        (cluster / "carol-lab01-18.json").write_text(RESULTS["01"].read_text()[:999])
        (leaderboard,) = doc_blocks(["7. A leaderboard"], "sh")
        run = self.lab(leaderboard.strip())
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        board = json.loads((self.tree / "results/leaderboard/leaderboard.json").read_text())
        (lab01,) = board["boards"]
        self.assertEqual([o["student"] for o in lab01["overall"]], ["alice", "bob"])
        self.assertAlmostEqual(lab01["overall"][0]["score"] / lab01["overall"][1]["score"], 2)
        (rejected,) = board["rejected"]
        self.assertTrue(rejected["file"].endswith("carol-lab01-18.json"))
        self.assertIn("is not JSON", rejected["reason"])
        for name in ("leaderboard.md", "leaderboard.html"):
            self.assertTrue((self.tree / "results/leaderboard" / name).is_file())


if __name__ == "__main__":
    unittest.main()
