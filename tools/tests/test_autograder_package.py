#!/usr/bin/env python3
"""The Gradescope package and its autograder, without building anything:
`./lab package gradescope` writes a zip in Gradescope's layout (setup.sh
and run_autograder at its root, relative paths, the graded lab's folders
only, no mutants/), and tools/autograder.py writes a valid results.json
(gradescope_schema.py) for a passing, a failing, a non-compiling, a hanging
and a broken grading, with a stand-in for ./lab. The real build and grading
are in test_deploy_end_to_end.py."""
import json
import pathlib
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile

TOOLS = pathlib.Path(__file__).resolve().parent.parent
ROOT = TOOLS.parent
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gradescope_schema  # noqa: E402

# Stands in for ./lab: `grade 01` behaves as the submitted a.cuh says.
FAKE_LAB = r"""#!/usr/bin/env bash
cd "$(dirname "${BASH_SOURCE[0]}")"
code=$(cat labs/01_fake/a.cuh)
case "$code" in
  *COMPILE_ERROR*)
    echo "lab: the build failed:" >&2
    echo "labs/01_fake/a.cuh:1:5: error: expected ';' before '}' token" >&2
    exit 1 ;;
  *HANG*) sleep 600 ;;
  *NO_VERDICTS*)
    mkdir -p build/student
    echo "crashed before its first test: std::bad_alloc" >build/student/run-lab01.log
    echo "lab: lab 01's run program wrote no verdicts" >&2
    exit 1 ;;
  *PASS*) state=pass ;;
  *) state=FAIL ;;
esac
cat >verdicts.json <<JSON
{"exercises": [{"number": 1, "title": "one", "state": "$state", "summary": "s", "message": "m"},
               {"number": 2, "title": "two", "state": "FAIL", "summary": "2 of 3 tests fail",
                "message": "wrong"}]}
JSON
python3 tools/grade.py 01=verdicts.json --out results.json
"""

DESCRIPTOR = {"exercises": [
    {"number": 1, "title": "one", "files": ["a.cuh"], "entry_points": ["a"]},
    {"number": 2, "title": "two", "files": ["b.cuh"], "entry_points": ["b"]}]}


def make_source(root):
    """A package-like tree with one lab, 01_fake, and the fake ./lab."""
    source = root / "source"
    (source / "tools").mkdir(parents=True)
    for tool in ("autograder.py", "grade.py"):
        shutil.copy(TOOLS / tool, source / "tools" / tool)
    (source / "harness/01_fake").mkdir(parents=True)
    (source / "harness/01_fake/lab.json").write_text(json.dumps(DESCRIPTOR))
    (source / "autograder.json").write_text(json.dumps({"labs": ["01"]}))
    for folder in ("labs/01_fake", "build/gradescope/skeleton/01_fake"):
        (source / folder).mkdir(parents=True)
        for name in ("a.cuh", "b.cuh"):
            (source / folder / name).write_text("// TODO skeleton\n")
    (source / "lab").write_text(FAKE_LAB)
    (source / "lab").chmod(0o755)
    return source


class AutograderTest(unittest.TestCase):
    def setUp(self):
        self.scratch = pathlib.Path(tempfile.mkdtemp())
        self.source = make_source(self.scratch)
        self.submission = self.scratch / "submission"
        self.submission.mkdir()

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def grade(self, *limits):
        results = self.scratch / "results"
        subprocess.run([sys.executable, str(self.source / "tools/autograder.py"), "grade",
                        "--source", str(self.source), "--submission", str(self.submission),
                        "--results", str(results), *limits], check=True, capture_output=True)
        data = json.loads((results / "results.json").read_text())
        self.assertEqual(gradescope_schema.problems(data), [])
        return data

    def submit(self, a_text, where="a.cuh"):
        path = self.submission / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(a_text)

    def test_scores_each_exercise(self):
        self.submit("// PASS\n")
        self.submit("// b\n", "b.cuh")
        data = self.grade()
        self.assertEqual([t["score"] for t in data["tests"]], [10, 0])
        self.assertEqual(data["score"], 10)
        self.assertEqual(data["tests"][0]["name"], "lab 01 exercise 1: one")
        self.assertEqual((self.source / "labs/01_fake/a.cuh").read_text(), "// PASS\n")

    def test_finds_files_in_a_repository_layout(self):
        self.submit("// PASS\n", "labs/01_fake/a.cuh")
        self.submit("// b\n", "labs/01_fake/b.cuh")
        self.assertEqual(self.grade()["score"], 10)

    def test_a_missing_file_is_the_skeleton_and_is_named(self):
        self.submit("// PASS\n")
        data = self.grade()
        self.assertIn("b.cuh was not found in your submission", data["output"])
        self.assertEqual((self.source / "labs/01_fake/b.cuh").read_text(), "// TODO skeleton\n")

    def test_a_compile_error_scores_zero_with_the_error(self):
        self.submit("// COMPILE_ERROR\n")
        data = self.grade()
        self.assertEqual([t["score"] for t in data["tests"]], [0, 0])
        self.assertEqual([t["max_score"] for t in data["tests"]], [10, 10])
        for test in data["tests"]:
            self.assertIn("does not compile", test["output"])
            self.assertIn("labs/01_fake/a.cuh:1:5: error: expected ';'", test["output"])

    def test_a_hang_is_stopped_and_scores_zero(self):
        self.submit("// HANG\n")
        start = time.monotonic()
        data = self.grade("--lab-time-limit", "2")
        self.assertLess(time.monotonic() - start, 60)
        self.assertEqual(data["score"], 0)
        self.assertIn("stopped after 2 s", data["tests"][0]["output"])
        self.assertIn("stopped after 2 s", data["output"])

    def test_a_failed_grading_scores_zero_with_its_words(self):
        self.submit("// NO_VERDICTS\n")
        data = self.grade()
        self.assertEqual(data["score"], 0)
        self.assertIn("wrote no verdicts", data["tests"][1]["output"])
        self.assertIn("crashed before its first test", data["tests"][1]["output"])

    def test_a_broken_package_still_writes_results(self):
        (self.source / "autograder.json").write_text("{")
        data = self.grade()
        self.assertEqual(data["score"], 0)
        self.assertIn("tell the course staff", data["output"])


class PackageTest(unittest.TestCase):
    def test_layout(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp, "autograder.zip")
            subprocess.run(["bash", str(ROOT / "lab"), "package", "gradescope", "01",
                            "--out", str(out)], check=True, capture_output=True)
            with zipfile.ZipFile(out) as archive:
                infos = {i.filename: i for i in archive.infolist()}
                config = json.loads(archive.read("autograder.json"))
                setup = archive.read("setup.sh").decode()
        for script in ("setup.sh", "run_autograder"):
            self.assertIn(script, infos)
            self.assertTrue((infos[script].external_attr >> 16) & stat.S_IXUSR, script)
        self.assertEqual(config, {"labs": ["01"]})
        names = list(infos)
        self.assertEqual([n for n in names if n.startswith("/") or ".." in n.split("/")], [])
        for left_out in ("mutants/", "viewer/", ".git/", "build/", "results/", ".github/"):
            self.assertEqual([n for n in names if n.startswith(left_out)], [], left_out)
        for folder in ("harness", "labs", "solutions", "tests"):
            labs = {n.split("/")[1] for n in names
                    if n.startswith(folder + "/") and n.split("/")[1][:2].isdigit()}
            self.assertEqual(labs, {"01_broadcast"}, folder)
        # One list of packages, ./lab's; the reference's sources leave the image.
        self.assertIn("bash lab setup", setup)
        self.assertIn("tools/autograder.py prepare", setup)

    def test_carries_the_cuda_setup_script(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = pathlib.Path(tmp, "install-cuda.sh")
            script.write_text("echo installing\n")
            out = pathlib.Path(tmp, "autograder.zip")
            subprocess.run(["bash", str(ROOT / "lab"), "package", "gradescope", "01",
                            "--out", str(out), "--cuda-setup", str(script)],
                           check=True, capture_output=True)
            with zipfile.ZipFile(out) as archive:
                info = archive.getinfo("cuda-setup.sh")
                self.assertEqual(archive.read(info), b"echo installing\n")
                self.assertTrue((info.external_attr >> 16) & stat.S_IXUSR)
            missing = subprocess.run(["bash", str(ROOT / "lab"), "package", "gradescope", "01",
                                      "--out", str(out), "--cuda-setup", str(script) + ".no"],
                                     capture_output=True, text=True)
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("no such file", missing.stderr)

    def test_refuses_an_unknown_lab(self):
        run = subprocess.run(["bash", str(ROOT / "lab"), "package", "gradescope", "77"],
                             capture_output=True, text=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("there is no lab 77", run.stderr)


if __name__ == "__main__":
    unittest.main()
