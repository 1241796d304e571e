#!/usr/bin/env python3
"""check_docs.py rejects docs that name what does not exist: a dead link or
anchor, a missing file, a ./lab command or option or lab that is not there,
a build folder no preset makes."""
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "check_docs.py"
REPO = TOOL.parent.parent

GOOD = """# Title

## A section

See [the tool](tools/check_docs.py) and [the section](#a-section); edit `tools/check_docs.py`.
Run `./lab run 01 --emu`, then `./lab grade 01`; the program is build/student/lab01.
"""

BAD = {
    "[x](tools/nothing.py)": "names nothing",
    "[x](#no-such-heading)": "has no heading #no-such-heading",
    "`tools/nothing.py`": "does not exist",
    "`./lab frobnicate 01`": "no command 'frobnicate'",
    "`./lab run 42`": "there is no lab 42",
    "`./lab run 01 --no-such-flag`": "no ./lab, run program or viewer option --no-such-flag",
    "build/viewer/cudalab_view --screenshot x.png": "build/viewer/ is no build folder",
}


class CheckDocsTest(unittest.TestCase):
    def check(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            for name in ("lab", "common/harness/exercise_runner.cpp", "tools/check_docs.py"):
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(REPO / name, root / name)
            (root / "labs/01_broadcast").mkdir(parents=True)
            (root / "README.md").write_text(text)
            subprocess.run(["git", "init", "-q", str(root)], check=True)
            subprocess.run(["git", "-C", str(root), "add", "README.md"], check=True)
            return subprocess.run([sys.executable, str(TOOL), str(root)], capture_output=True,
                                  text=True)

    def test_true_docs_pass(self):
        run = self.check(GOOD)
        self.assertEqual(run.returncode, 0, run.stdout)

    def test_each_untruth_is_named(self):
        for line, words in BAD.items():
            with self.subTest(line=line):
                run = self.check(GOOD + "\n" + line + "\n")
                self.assertEqual(run.returncode, 1, run.stdout)
                self.assertIn(words, run.stdout)


if __name__ == "__main__":
    unittest.main()
