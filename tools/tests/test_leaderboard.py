#!/usr/bin/env python3
"""./lab leaderboard (tools/leaderboard.py; docs/course-staff.md, "A
leaderboard"): good result files are ranked by their ratios to their
same-run anchors, and planted bad files are each refused with their name
and reason: another GPU model, a failed check, lab 04's wrong-elements
note, a tampered ratio, a truncated file, a missing field, an emulator run,
an older run of the same student. Starts from docs/results/."""
import copy
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
TOOL = ROOT / "tools/leaderboard.py"
H100 = json.loads((ROOT / "docs/results/lab06-h100-2026-12-07.json").read_text())
H200 = json.loads((ROOT / "docs/results/lab06-h200-2026-12-03b.json").read_text())
LAB04 = json.loads((ROOT / "docs/results/lab04-2xh200-2026-11-30.json").read_text())


def faster(result, factor):
    """The same run with the lab's kernels `factor` times faster (consistent ratios)."""
    result = copy.deepcopy(result)
    for figure in result["figures"]:
        if figure["version"].startswith("lab_"):
            figure["value"] *= factor
            figure["time_ms"] /= factor
            anchor = next(a for a in result["anchors"] if a["name"] == figure["fraction_of"]["anchor"])
            figure["fraction_of"]["value"] = figure["value"] / anchor["value"]
    return result


def first_lab_figure(result):
    return next(i for i, f in enumerate(result["figures"]) if f["version"].startswith("lab_"))


class LeaderboardTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def plant(self, name, content):
        path = self.dir / name
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_tool(self, *args):
        out = self.dir / "board"
        run = subprocess.run([sys.executable, str(TOOL), *map(str, args), "--out", str(out)],
                             capture_output=True, text=True, timeout=60)
        board = json.loads((out / "leaderboard.json").read_text())
        return run, board, out

    def test_ranks_the_good_and_rejects_each_bad_file_with_its_reason(self):
        alice_old = copy.deepcopy(H100)
        alice_old["date"] = "2026-12-01T00:00:00Z"
        failed = copy.deepcopy(H100)
        i = first_lab_figure(failed)
        failed["figures"][i]["check"] = {"passed": False, "what": "12 of 4096 elements differ"}
        tampered = copy.deepcopy(H100)
        tampered["figures"][i]["fraction_of"]["value"] = 0.99
        missing = copy.deepcopy(H100)
        del missing["figures"][i]["value"]
        emulator = copy.deepcopy(H100)
        emulator["gpu"] = None
        wrong04 = copy.deepcopy(LAB04)
        wrong04["notes"] = ["busbw_all_reduce (ring) at 1024 bytes: 7 wrong elements"]
        good = [self.plant("alice-lab06-1.json", H100),
                self.plant("bob-lab06-2.json", faster(H100, 1.1)),
                self.plant("lab04-staff.json", LAB04)]
        bad = {
            "alice-lab06-0.json": (alice_old, "superseded by"),
            "carol-lab06-3.json": (H200, "ran on NVIDIA H200; lab 06's board ranks NVIDIA H100"),
            "dave-lab06-4.json": (failed, "failed its check: 12 of 4096 elements differ"),
            "erin-lab06-5.json": (tampered, "states a ratio of 0.99"),
            "frank-lab06-6.json": (json.dumps(H100)[:700], "is not JSON (truncated or malformed)"),
            "gina-lab06-7.json": (missing, f"field 'figures[{i}].value' is missing"),
            "hank-lab04-8.json": (wrong04, "7 wrong elements"),
            "ivan-lab06-9.json": (emulator, "ran on the CPU emulator"),
        }
        paths = good + [self.plant(name, content) for name, (content, _) in bad.items()]
        run, board, out = self.run_tool(*paths)
        self.assertEqual(run.returncode, 0, run.stderr)

        reasons = {pathlib.Path(r["file"]).name: r["reason"] for r in board["rejected"]}
        self.assertEqual(set(reasons), set(bad))
        for name, (_, reason) in bad.items():
            self.assertIn(reason, reasons[name], name)
            self.assertIn(f"not ranked: {self.dir / name}: ", run.stderr)
        self.assertIn("the file was edited", reasons["erin-lab06-5.json"])

        (lab04, lab06) = board["boards"]
        self.assertEqual((lab06["lab"], lab06["gpu"]), ("06_flash_attention", "NVIDIA H100 80GB HBM3"))
        self.assertEqual([o["student"] for o in lab06["overall"]], ["bob", "alice"])
        self.assertAlmostEqual(lab06["overall"][0]["score"] / lab06["overall"][1]["score"], 1.1)
        self.assertEqual(lab06["score_over"], 8)  # the 8 lab_* figures
        versions = {f["version"] for f in lab06["figures"]}
        self.assertTrue(all(v.startswith("lab_") for v in versions), versions)
        self.assertEqual(lab04["gpu"], "NVIDIA H200")
        self.assertEqual(lab04["overall"][0]["student"], "lab04-staff")

        markdown = (out / "leaderboard.md").read_text()
        self.assertIn("## Lab 06_flash_attention on NVIDIA H100 80GB HBM3", markdown)
        self.assertIn("| 1 | bob |", markdown)
        self.assertIn("| 2 | alice |", markdown)
        self.assertIn("## Not ranked", markdown)
        page = (out / "leaderboard.html").read_text()
        self.assertIn("<svg", page)
        self.assertIn("anchor = 1", page)
        self.assertIn("bob", page)

    def test_malformed_fields_are_reasons_not_crashes(self):
        def variant(change):
            result = copy.deepcopy(H100)
            change(result, result["figures"][first_lab_figure(result)])
            return result
        cases = {
            "a-lab06.json": ([], "not a JSON object"),
            "b-lab06.json": ({"schema": "cudalab.result/2"}, "field 'lab' is missing"),
            "c-lab06.json": (variant(lambda r, f: r.update(figures={})),
                             "field 'figures' is not an array"),
            "d-lab06.json": (variant(lambda r, f: r.update(figures=[1])),
                             "field 'figures[0].name' is missing"),
            "e-lab06.json": (variant(lambda r, f: f.update(errors="small")), "errors' is not an object"),
            "f-lab06.json": (variant(lambda r, f: f.update(check="passed")), "check' is not an object"),
            "g-lab06.json": (variant(lambda r, f: r.update(gpus={"name": "NVIDIA H100"})), "field 'gpus' is not an array"),
            "h-lab06.json": (variant(lambda r, f: r["anchors"][0].update(name=1)),
                             "field 'anchors[0].name' is not a string"),
            "i-lab06.json": (variant(lambda r, f: f.update(fraction_of=5)),
                             "fraction_of.anchor' is missing"),
            "j-lab06.json": (variant(lambda r, f: f.update(value=True)), "value' is not a number or an integer"),
            "k-lab06.json": (variant(lambda r, f: r.update(schema="cudalab.result/9")),
                             "schema 'cudalab.result/9'"),
        }
        paths = [self.plant(name, content) for name, (content, _) in cases.items()]
        run, board, _ = self.run_tool(*paths)
        self.assertNotIn("Traceback", run.stderr)
        self.assertEqual(run.returncode, 1)
        reasons = {pathlib.Path(r["file"]).name: r["reason"] for r in board["rejected"]}
        for name, (_, reason) in cases.items():
            self.assertIn(reason, reasons[name], name)

    def test_gpu_option_picks_the_board(self):
        paths = [self.plant("alice-lab06-1.json", H100), self.plant("carol-lab06-3.json", H200)]
        run, board, _ = self.run_tool(*paths, "--gpu", "NVIDIA H200")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([o["student"] for o in board["boards"][0]["overall"]], ["carol"])
        (rejected,) = board["rejected"]
        self.assertIn("ran on NVIDIA H100 80GB HBM3", rejected["reason"])
        self.assertIn("(--gpu)", rejected["reason"])

    def test_nothing_ranked_fails(self):
        run, board, _ = self.run_tool(self.plant("frank-lab06-6.json", "{"))
        self.assertEqual(run.returncode, 1)
        self.assertEqual(board["boards"], [])
        self.assertIn("0 files ranked, 1 not", run.stderr)

    def test_the_viewers_test_board_is_what_the_tool_writes(self):
        """viewer/tests/data/leaderboard-lab06.json (the viewer model's test
        input) is this tool's output for: lab 06's H100 run as alice, the
        same run 1.5x faster as bob, and a truncated file as carol."""
        results = self.dir / "results"
        results.mkdir()
        (results / "alice-lab06-4242.json").write_text(json.dumps(H100))
        (results / "bob-lab06-4243.json").write_text(json.dumps(faster(H100, 1.5)))
        (results / "carol-lab06-4244.json").write_text(json.dumps(H100)[:500])
        subprocess.run([sys.executable, str(TOOL), "results/alice-lab06-4242.json",
                        "results/bob-lab06-4243.json", "results/carol-lab06-4244.json",
                        "--out", "board"], cwd=self.dir, capture_output=True, check=True)
        written = json.loads((self.dir / "board/leaderboard.json").read_text())
        kept = json.loads((ROOT / "viewer/tests/data/leaderboard-lab06.json").read_text())
        self.assertEqual(written, kept, "regenerate the viewer's test board with the tool")

    def test_the_published_results_all_read(self):
        """Every lab result in docs/results/ (version 1 and 2) is readable;
        only other GPU models than each board's are refused."""
        files = sorted((ROOT / "docs/results").glob("lab0*.json"))
        run, board, _ = self.run_tool(*files)
        self.assertEqual(run.returncode, 0, run.stderr)
        for r in board["rejected"]:
            self.assertIn("ratios of different GPU models are not compared", r["reason"])
        self.assertEqual(len(board["boards"]), 6)


if __name__ == "__main__":
    unittest.main()
