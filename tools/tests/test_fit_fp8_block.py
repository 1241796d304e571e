#!/usr/bin/env python3
"""fit_fp8_block.py: replays recorded fp8 K-blocks and ranks the candidate
models; fp8.hpp's model, which reproduces them, comes first."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

TOOL = pathlib.Path(__file__).resolve().parent.parent / "fit_fp8_block.py"

# Two blocks an H100 summed (NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-12-07;
# also in tests/numerics/fp8_h100_blocks.hpp).
E4M3_BLOCK = {"a": ["0x9a", "0xc3", "0x46", "0xe8", "0xe5", "0x15", "0xed", "0x7c", "0x93", "0x84", "0xcc", "0x51", "0x4d", "0x69", "0x53", "0x9a", "0xe5", "0x66", "0x78", "0x2c", "0x7b", "0x75", "0x0b", "0x99", "0x7a", "0xe7", "0xa6", "0x55", "0x65", "0x8f", "0x25", "0xde"],
         "b": ["0x93", "0x0c", "0x75", "0xab", "0x8e", "0x0f", "0x63", "0x36", "0xa4", "0x83", "0xd7", "0xdc", "0xe1", "0x52", "0x9a", "0x3c", "0xa0", "0x4f", "0x4b", "0xab", "0xcb", "0x13", "0xd5", "0xaf", "0x04", "0x3d", "0x42", "0xa0", "0x85", "0x10", "0x06", "0x38"],
         "c": "0x45ba1579", "gpu": "0x4522e800"}
E5M2_BLOCK = {"a": ["0x66", "0xd2", "0x66", "0x06", "0x5c", "0xb1", "0xca", "0x9c", "0x21", "0x34", "0xb3", "0x4f", "0x6c", "0x56", "0x6e", "0x35", "0x69", "0x26", "0x6c", "0x24", "0x62", "0x48", "0x1d", "0x5a", "0x45", "0x90", "0x70", "0xbf", "0x88", "0x72", "0x61", "0x4a"],
         "b": ["0x66", "0xe3", "0x6c", "0xc6", "0x3c", "0xf9", "0x33", "0x17", "0xd2", "0x07", "0x78", "0x95", "0x61", "0x0b", "0xf6", "0x73", "0xcf", "0x89", "0x0a", "0xa2", "0xc2", "0x6f", "0x2b", "0x00", "0x63", "0x14", "0xb0", "0x9c", "0xd0", "0xf6", "0x0d", "0x5c"],
         "c": "0x3c5e614e", "gpu": "0xcdd29c00"}


class FitFp8BlockTest(unittest.TestCase):
    def test_the_models_model_reproduces_both_blocks(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for formats, block in (("e4m3_e4m3", E4M3_BLOCK), ("e5m2_e5m2", E5M2_BLOCK)):
                path = pathlib.Path(tmp) / f"wgmma_{formats}.json"
                path.write_text(json.dumps({"formats": formats, "first_differences": [block]}))
                paths.append(str(path))
            out = subprocess.run([sys.executable, str(TOOL), *paths], capture_output=True,
                                 text=True, check=True).stdout
        lines = out.splitlines()
        self.assertEqual(lines[0], "2 blocks; the candidates that reproduce the most:")
        self.assertIn("2  aligned W=13 T=rz unnormalised c inside, blocks of 32, R=rz P=14", out)
        self.assertTrue(lines[1].strip().startswith("2  "), lines[1])

    def test_no_file_prints_the_usage(self):
        result = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertIn("Usage: fit_fp8_block.py", result.stderr)


if __name__ == "__main__":
    unittest.main()
