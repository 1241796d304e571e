#!/usr/bin/env python3
"""build_errors.py: a failed build's errors, the student's files first, paths
relative to the repository, each once."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "build_errors.py"

LOG = """[1/4] Rewriting broadcast_sum.cuh for the emulator
[2/4] Building CXX object CMakeFiles/x.dir/backend_emu.cpp.o
FAILED: CMakeFiles/x.dir/backend_emu.cpp.o
/usr/bin/c++ -I/repo/common/include -c backend_emu.cpp
In file included from /repo/build/student/x_emu/backend_emu.cpp:9:
/repo/harness/01_broadcast/backend_impl.hpp:40:3: error: no matching function for call to 'f'
/repo/labs/01_broadcast/broadcast_sum.cuh:54:34: error: 'oops' was not declared in this scope
   54 |   out[i] = a oops;
      |              ^~~~
/repo/labs/01_broadcast/broadcast_sum.cuh:54:34: error: 'oops' was not declared in this scope
/repo/labs/01_broadcast/broadcast_vec.cuh(12): error: identifier "q" is undefined
/repo/labs/01_broadcast/broadcast_sum.cuh:60:5: warning: unused variable 'k'
ninja: build stopped: subcommand failed.
"""


class BuildErrorsTest(unittest.TestCase):
    def run_tool(self, text):
        with tempfile.TemporaryDirectory() as tmp:
            log = pathlib.Path(tmp, "build.log")
            log.write_text(text)
            return subprocess.run([sys.executable, str(TOOL), str(log), "/repo"], check=True,
                                  capture_output=True, text=True).stdout.splitlines()

    def test_student_errors_first_each_once(self):
        lines = self.run_tool(LOG)
        self.assertEqual(lines, [
            "  labs/01_broadcast/broadcast_sum.cuh:54:34: error: 'oops' was not declared in this scope",
            '  labs/01_broadcast/broadcast_vec.cuh(12): error: identifier "q" is undefined',
            "  harness/01_broadcast/backend_impl.hpp:40:3: error: no matching function for call to 'f'",
        ])

    def test_no_error_line_gives_the_tail(self):
        lines = self.run_tool("a\nb\nninja: build stopped\n")
        self.assertEqual(lines, ["  a", "  b", "  ninja: build stopped"])


if __name__ == "__main__":
    unittest.main()
