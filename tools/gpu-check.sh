#!/usr/bin/env bash
# On a GPU machine where nothing can be installed: the suite, lab 01's
# benchmark, the emulator's benchmark and the ncu fidelity check, in one go.
# Usage: tools/gpu-check.sh OUTPUT_DIR   (logs and result files land there)
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUTPUT_DIR}
mkdir -p "$out"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CUDALAB_NO_INSTALL=1  # the packages are there or cannot be had
export NCCL_NVLS_ENABLE=0    # never use NVLink multicast on shared machines

echo "== ./lab test"
./lab test >"$out/lab-test.log" 2>&1
echo "exit $?"; grep -E "tests passed|tests failed|^[a-z0-9]+ +=" "$out/lab-test.log"

echo "== ./lab bench 01 --solution"
./lab bench 01 --solution >"$out/bench01.log" 2>&1
echo "exit $?"; grep -A40 "^lab01_bench on" "$out/bench01.log"

echo "== ./lab bench emu (and one run of lab 06's emulator tests)"
./lab bench emu --solution --lab-tests 06 >"$out/emu-bench.log" 2>&1
grep -A20 "^emulator benchmark" "$out/emu-bench.log"
cp results/*.json "$out/"

if command -v ncu >/dev/null; then
  echo "== ncu fidelity: the emulator's counts next to ncu's, same source"
  cmake --build build/staff --target emu_fidelity_gpu emu_bench >/dev/null
  python3 tools/fidelity_compare.py --gpu-program build/staff/tests/emu/emu_fidelity_gpu \
    --emu-bench build/staff/bench/emu_bench --out "$out/emu-fidelity.json" \
    >"$out/ncu-fidelity.log" 2>&1
  echo "exit $?"; cat "$out/ncu-fidelity.log"
fi
