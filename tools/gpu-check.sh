#!/usr/bin/env bash
# Build, test and benchmark the whole tree on a GPU machine where nothing can
# be installed, in one go. Usage: tools/gpu-check.sh OUTPUT_DIR
# Writes build/test logs, ctest's JUnit report, the benchmark result files and
# the emulator-vs-ncu fidelity figures into OUTPUT_DIR.
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUTPUT_DIR}
mkdir -p "$out"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NCCL_NVLS_ENABLE=0   # never use NVLink multicast on shared machines

step() { echo "== $*"; }

step configure
cmake -S . -B build/gpu -G Ninja -DCUDALAB_GRADE=solutions -DCUDALAB_CHECK_SKELETONS=ON \
  >"$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
step build
cmake --build build/gpu -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -B2 -A12 -m3 "error" "$out/build.log"; exit 1; }
step test
ctest --test-dir build/gpu -j 4 --output-on-failure --output-junit "$out/ctest-junit.xml" \
  >"$out/ctest.log" 2>&1
echo "ctest exit $?"; tail -15 "$out/ctest.log"

if [[ -x build/gpu/lab01_bench ]]; then
  step bench lab01
  python3 harness/01_broadcast/bench_pytorch.py --out "$out/pytorch-01.json" >"$out/bench01.log" 2>&1
  build/gpu/lab01_bench --out "$out/lab01-h200.json" --pytorch-json "$out/pytorch-01.json" \
    >>"$out/bench01.log" 2>&1
  echo "lab01_bench exit $?"; tail -30 "$out/bench01.log"
fi
if [[ -x build/gpu/bench/emu_bench ]]; then
  step bench emulator
  build/gpu/bench/emu_bench --out "$out/emu-bench.json" >"$out/emu-bench.log" 2>&1
  build/gpu/bench/emu_bench --fidelity >>"$out/emu-bench.log" 2>&1
  tail -24 "$out/emu-bench.log"
fi
if [[ -x build/gpu/tests/emu/emu_fidelity_gpu ]] && command -v ncu >/dev/null; then
  step ncu fidelity
  ncu --clock-control none --kernel-name regex:load_ --metrics \
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum \
    build/gpu/tests/emu/emu_fidelity_gpu >"$out/ncu-fidelity.log" 2>&1
  grep -E "^  [a-z_]+|sectors|requests|==" "$out/ncu-fidelity.log" | tail -40
fi
