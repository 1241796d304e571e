#!/usr/bin/env python3
"""The emulator's memory-traffic counts next to ncu's, for the same kernels.

Runs emu_fidelity_gpu under ncu (requests, sectors, shared-memory
wavefronts and constant-cache requests of tests/emu/fidelity_kernels.cuh)
and `emu_bench --fidelity` (the same source on the emulator), prints a table
per kernel and access kind, writes both sets of figures to a JSON file, and
exits 1 when a ratio (sectors, wavefronts or constant addresses per request)
differs at the second decimal.

Shared memory has two GPU figures. The hardware counter of wavefronts
(l1tex__data_pipe_lsu_wavefronts_mem_shared_*) also counts wavefronts that
the access pattern does not need: L1's data banks serve shared memory and
the L1 cache alike, and other traffic in them adds some (it varies from run
to run and by kernel, not by instruction). ncu's SASS-patched counters
(smsp__sass_*: the profiler instruments each shared-memory instruction and
works out from its lanes' addresses what it needs) count only what the
addresses need, which is the rule the emulator applies; where this ncu has
them, the shared rows are judged on them, and the hardware figure is printed
and kept beside them.

  tools/fidelity_compare.py --gpu-program build/x/tests/emu/emu_fidelity_gpu \\
      --emu-bench build/x/bench/emu_bench --out fidelity.json
"""
import argparse
import csv
import datetime
import io
import json
import re
import subprocess
import sys

# (kind, ncu metric for requests, ncu metric for sectors or wavefronts). An
# atomic whose old value is unused is a RED on the GPU, else an ATOM: the
# emulator counts both as atomics.
KINDS = {
    "global_load": (["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
                    ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]),
    "global_store": (["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"],
                     ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
    "global_atomic": (["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
                       "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"],
                      ["l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
                       "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"]),
    "shared_load": (["smsp__sass_inst_executed_op_shared_ld.sum"],
                    ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]),
    "shared_store": (["smsp__sass_inst_executed_op_shared_st.sum"],
                     ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
}
# The SASS-patched shared-memory wavefronts, in order of preference: ncu's
# own count, else instructions plus the bank conflicts their addresses cause
# (the same for accesses of up to 4 bytes a lane, which need one wavefront
# each when conflict-free: what tests/emu/fidelity_kernels.cuh makes).
SASS_SHARED = {
    "shared_load": [["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"],
                    ["smsp__sass_inst_executed_op_shared_ld.sum",
                     "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]],
    "shared_store": [["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"],
                     ["smsp__sass_inst_executed_op_shared_st.sum",
                      "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]],
}
# Constant memory. Every LDC instruction a warp executes is one IDC request
# per distinct address its lanes read, so idc__requests minus the LDC
# instructions executed is the replays that serialisation adds. Kernel
# parameters and launch constants are read with LDC too (one address each),
# so neither figure alone is the constant variables' count; their difference
# is. The GPU's distinct addresses are then the emulator's requests (warp
# reads of __constant__ variables) plus those replays. Names in order of
# preference; the rows are left out where this ncu knows none of them.
CONSTANT = {"ldc_instructions": ["smsp__sass_inst_executed_op_ldc.sum",
                                 "smsp__inst_executed_op_ldc.sum",
                                 "sm__sass_inst_executed_op_ldc.sum"],
            "idc_requests": ["idc__requests.sum"]}
UNIT = {"global_load": "sectors", "global_store": "sectors", "global_atomic": "sectors",
        "shared_load": "wavefronts", "shared_store": "wavefronts", "constant_load": "addresses"}


def known_metrics():
    listing = subprocess.run(["ncu", "--query-metrics-mode", "all", "--query-metrics"],
                             capture_output=True, text=True).stdout
    return set(re.findall(r"^\s*(\S+)", listing, re.MULTILINE))


def is_known(metric, known):
    return metric in known or metric.rsplit(".", 1)[0] in known


def available_sass_metrics(known):
    """Per shared kind, the first SASS_SHARED choice this ncu knows all of, or
    {} (then the hardware figure decides)."""
    chosen = {}
    for kind, choices in SASS_SHARED.items():
        for names in choices:
            if all(is_known(m, known) for m in names):
                chosen[kind] = names
                break
    return chosen


def available_constant_metrics(known):
    """{"ldc_instructions": metric, "idc_requests": metric} from CONSTANT, or {}."""
    chosen = {}
    for figure, names in CONSTANT.items():
        found = [m for m in names if is_known(m, known)]
        if not found:
            return {}
        chosen[figure] = found[0]
    return chosen


def ncu_counts(program, sass, constant):
    metrics = sorted({m for req, amount in KINDS.values() for m in req + amount} |
                     {m for names in sass.values() for m in names} | set(constant.values()))
    command = ["ncu", "--clock-control", "none", "--csv", "--print-units", "base",
               "--metrics", ",".join(metrics), program]
    run = subprocess.run(command, capture_output=True, text=True)
    lines = run.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"fidelity_compare: no ncu table (exit {run.returncode}):\n{run.stdout}\n{run.stderr}")
    counts = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        name = re.search(r"(\w+)\s*\(", row["Kernel Name"])
        kernel = name.group(1) if name else row["Kernel Name"]
        value = float(row["Metric Value"].replace(",", "") or 0)
        counts.setdefault(kernel, {})[row["Metric Name"]] = value
    return counts, " ".join(command)


def gpu_figures(metrics, sass, constant):
    figures = {}
    if constant:
        figures["constant_load"] = {figure: metrics.get(m, 0) for figure, m in constant.items()}
    for kind, (requests, amounts) in KINDS.items():
        figures[kind] = {"requests": sum(metrics.get(m, 0) for m in requests),
                         UNIT[kind]: sum(metrics.get(m, 0) for m in amounts)}
        if kind in sass:
            # Each instruction needs one wavefront, plus one per bank conflict.
            figures[kind]["sass_" + UNIT[kind]] = sum(metrics.get(m, 0) for m in sass[kind])
    return figures


def ratio(figure, unit):
    return figure[unit] / figure["requests"] if figure["requests"] else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpu-program", required=True)
    parser.add_argument("--emu-bench", required=True)
    parser.add_argument("--out", required=True, help="JSON file for both sets of figures")
    args = parser.parse_args()

    emu_json = args.out + ".emu.json"
    subprocess.run([args.emu_bench, "--fidelity", "--out", emu_json], check=True,
                   stdout=subprocess.DEVNULL)
    with open(emu_json) as f:
        emulator = {k["kernel"]: k for k in json.load(f)["kernels"]}
    known = known_metrics()
    sass = available_sass_metrics(known)
    constant = available_constant_metrics(known)
    if not constant:
        print("fidelity_compare: this ncu counts no constant-cache requests; "
              "constant rows left out")
    gpu, command = ncu_counts(args.gpu_program, sass, constant)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()

    rows, mismatches = [], 0
    print("| kernel | access | emulator requests / amount | GPU requests / amount "
          "| per request, emulator vs GPU | shared: GPU hardware counter |")
    print("|---|---|---|---|---|---|")
    for kernel, emu in emulator.items():
        measured = gpu_figures(gpu.get(kernel, {}), sass, constant)
        for kind, unit in UNIT.items():
            if kind not in measured:
                continue
            e, g = emu[kind], measured[kind]
            if kind == "constant_load":
                replays = g["idc_requests"] - g["ldc_instructions"]
                if e["requests"] == 0 and replays == 0:
                    continue
                g = dict(g, requests=e["requests"], addresses=e["requests"] + replays)
            if e["requests"] == 0 and g["requests"] == 0:
                continue
            er, gr = ratio(e, unit), ratio(g, unit)
            hardware = ""
            if "sass_" + unit in g:  # judged on the SASS-counted figure
                hardware = f"{g[unit]:.0f} ({gr:.2f})"
                g = dict(g, **{unit: g["sass_" + unit], "hardware_" + unit: g[unit]})
                gr = ratio(g, unit)
            same = round(er, 2) == round(gr, 2)
            mismatches += 0 if same else 1
            rows.append({"kernel": kernel, "access": kind, "unit": unit, "emulator": e,
                         "gpu": g, "emulator_per_request": er, "gpu_per_request": gr,
                         "agree": same})
            print(f"| {kernel} | {kind.replace('_', ' ')} | {e['requests']:.0f} / {e[unit]:.0f} "
                  f"{unit} | {g['requests']:.0f} / {g[unit]:.0f} | {er:.2f} vs {gr:.2f}"
                  f"{'' if same else ' **differ**'} | {hardware} |")
    result = {"schema": "cudalab.emu.fidelity-comparison/1",
              "date": datetime.date.today().isoformat(), "gpu": smi, "ncu_command": command,
              "shared_judged_on": "SASS-patched counters" if sass else "hardware counters",
              "rows": rows, "mismatches": mismatches}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"{len(rows)} comparisons, {mismatches} differ at the second decimal")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
