#!/usr/bin/env python3
"""The figures that matter from Nsight Compute's raw CSV (`ncu --import R --page raw --csv
--print-units base`), and the issue-bound ceiling of the pi kernel (issue 14).

    ncu_summary.py --samples N [--run-rates pi-variants.json] [--label NAME=RAW.csv ...]
                   [--triad RAW.csv --triad-bytes B] --json OUT.json --csv OUT.csv

For each profiled pi launch: issue slots busy, executed IPC, per-pipe utilisation, achieved and
theoretical occupancy, registers, the SM clock, warp instructions per sample, and

    ceiling = SMs x 4 schedulers x SM clock / (warp instructions per sample)   [samples/s]

the rate at which the kernel would run if every scheduler issued one warp instruction every
cycle: the issue-bound ceiling for this instruction count. The fraction reached is the measured
rate (N / kernel duration under ncu, and, from --run-rates, the median rate of the same variant
in a plain run) over that ceiling. Metrics ncu did not collect are null, never guessed.
Exit status 0; 3 when issue 14's profile goal (issue slots busy >= 80% or a pipe >= 85% of
peak) is missed by the default kernel.
"""
import argparse
import csv
import json
import re
import sys

SCHEDULERS_PER_SM = 4  # warp schedulers (SM sub-partitions) per SM on Volta..Hopper

METRICS = {
    "issue_slots_busy_pct": "sm__inst_issued.avg.pct_of_peak_sustained_active",
    "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "executed_ipc_active": "sm__inst_executed.avg.per_cycle_active",
    "issued_ipc_active": "sm__inst_issued.avg.per_cycle_active",
    "pipe_alu_inst_pct": "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active",
    "pipe_fma_inst_pct": "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
    "pipe_fmaheavy_inst_pct": "sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active",
    "pipe_uniform_inst_pct": "sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active",
    "pipe_alu_cycles_pct": "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "pipe_fma_cycles_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
    "pipe_fmaheavy_cycles_pct": "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "theoretical_occupancy_pct": "sm__maximum_warps_per_active_cycle_pct",
    "registers_per_thread": "launch__registers_per_thread",
    "grid_size": "launch__grid_size",
    "block_size": "launch__block_size",
    "warp_instructions": "smsp__inst_executed.sum",
    "thread_instructions": "smsp__thread_inst_executed.sum",
    "sm_clock_hz": "smsp__cycles_elapsed.avg.per_second",
    "duration_s": "gpu__time_duration.sum",
    "sms": "device__attribute_multiprocessor_count",
    "dram_throughput_pct": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "stall_wait_per_issue": "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "stall_math_pipe_throttle_per_issue": "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "stall_not_selected_per_issue": "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    "stall_selected_per_issue": "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
    "stall_dispatch_per_issue": "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
    "stall_no_instruction_per_issue": "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
}

SCALE = {  # unit (lower case) -> factor to the base unit (seconds, hertz, ...)
    "nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0, "s": 1.0,
    "hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9,
    "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "cycle/msecond": 1e3, "cycle/second": 1.0,
}


def number(text, unit):
    t = (text or "").strip().replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v * SCALE.get((unit or "").strip().lower(), 1.0)


def read_raw(path):
    """Rows of an ncu raw CSV as dicts of metric -> float (units applied), plus the kernel name."""
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("==")]  # ncu's own ==PROF==/==WARNING== lines
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        return []
    header, units, out = rows[0], rows[1], []
    for r in rows[2:]:
        if len(r) != len(header):
            continue
        rec = {"kernel": r[header.index("Kernel Name")] if "Kernel Name" in header else "?"}
        for i, name in enumerate(header):
            rec[name] = number(r[i], units[i]) if name not in ("Kernel Name", "Process Name", "Host Name",
                                                                 "Device", "Context", "Stream", "Block Size",
                                                                 "Grid Size", "CC") else r[i]
        out.append(rec)
    return out


def pick(rec):
    return {k: rec.get(m) if isinstance(rec.get(m), float) else None for k, m in METRICS.items()}


def variant_of(kernel):
    if "pi_hits_kernel_v1" in kernel:
        return "v1"
    if "pi_hits_kernel" in kernel:
        # pi_hits_kernel<4u, 8>, pi_hits_kernel<(unsigned int)4, (int)8> (demangled) or ILj4ELi8E (mangled)
        m = re.search(r"pi_hits_kernel<\D*?(\d+)\D+?(\d+)>", kernel) or re.search(r"ILj(\d+)ELi(\d+)E", kernel)
        return f"ilp{m.group(1)}-occ{m.group(2)}" if m else kernel
    return kernel


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=float, required=True, help="samples per profiled pi launch")
    ap.add_argument("--label", action="append", default=[], help="NAME=RAW.csv: pi launches under a clock setting")
    ap.add_argument("--run-rates", help="parlab_pi_variants JSON of a plain run (no profiler)")
    ap.add_argument("--triad", help="raw CSV of the triad launch, for contrast")
    ap.add_argument("--triad-bytes", type=float, default=0.0, help="bytes the triad launch moves")
    ap.add_argument("--default-variant", default="ilp4-occ8")
    ap.add_argument("--json", required=True)
    ap.add_argument("--csv", required=True)
    a = ap.parse_args()

    run_rates = {}
    if a.run_rates:
        try:
            for v in json.load(open(a.run_rates)).get("variants", []):
                run_rates[v["variant"]] = v.get("samples_per_s")
        except (OSError, ValueError) as e:
            print(f"ncu_summary: --run-rates unreadable ({e}); fractions of the plain run left out", file=sys.stderr)

    out = {"samples": a.samples, "schedulers_per_sm": SCHEDULERS_PER_SM, "pi": [], "triad": None}
    for spec in a.label:
        label, path = spec.split("=", 1)
        for rec in read_raw(path):
            f = pick(rec)
            f["clock_control"] = label
            f["kernel"] = rec["kernel"]
            f["variant"] = variant_of(rec["kernel"])
            if f["warp_instructions"]:
                f["warp_instructions_per_sample"] = f["warp_instructions"] / a.samples
                f["thread_instructions_per_sample"] = (f["thread_instructions"] or 32 * f["warp_instructions"]) / a.samples
            sms = f["sms"] or None
            if f.get("warp_instructions_per_sample") and f["sm_clock_hz"] and sms:
                f["issue_bound_ceiling_samples_per_s"] = sms * SCHEDULERS_PER_SM * f["sm_clock_hz"] / f["warp_instructions_per_sample"]
            if f["duration_s"]:
                f["ncu_samples_per_s"] = a.samples / f["duration_s"]
            ceiling = f.get("issue_bound_ceiling_samples_per_s")
            if ceiling and f.get("ncu_samples_per_s"):
                f["fraction_of_ceiling_ncu"] = f["ncu_samples_per_s"] / ceiling
            if ceiling and run_rates.get(f["variant"]):
                f["run_samples_per_s"] = run_rates[f["variant"]]
                f["fraction_of_ceiling_run"] = run_rates[f["variant"]] / ceiling
            pipes = [f[k] for k in ("pipe_alu_inst_pct", "pipe_fma_inst_pct", "pipe_fmaheavy_inst_pct",
                                    "pipe_alu_cycles_pct", "pipe_fma_cycles_pct", "pipe_fmaheavy_cycles_pct") if f[k]]
            f["max_pipe_pct"] = max(pipes) if pipes else None
            f["profile_goal_met"] = bool((f["issue_slots_busy_pct"] or 0) >= 80 or (f["max_pipe_pct"] or 0) >= 85)
            out["pi"].append(f)
    if a.triad:
        recs = read_raw(a.triad)
        if recs:
            f = pick(recs[0])
            f["kernel"] = recs[0]["kernel"]
            if f["duration_s"] and a.triad_bytes:
                f["bytes_per_s"] = a.triad_bytes / f["duration_s"]
            out["triad"] = f

    with open(a.json, "w") as fh:
        json.dump(out, fh, indent=1)
    cols = ["clock_control", "variant", "registers_per_thread", "theoretical_occupancy_pct", "achieved_occupancy_pct",
            "issue_slots_busy_pct", "issue_active_pct", "executed_ipc_active", "pipe_alu_inst_pct", "pipe_fma_inst_pct",
            "pipe_fmaheavy_inst_pct", "pipe_alu_cycles_pct", "pipe_fma_cycles_pct", "pipe_fmaheavy_cycles_pct",
            "thread_instructions_per_sample", "warp_instructions_per_sample", "sm_clock_hz", "sms", "duration_s",
            "ncu_samples_per_s", "run_samples_per_s", "issue_bound_ceiling_samples_per_s", "fraction_of_ceiling_ncu",
            "fraction_of_ceiling_run", "profile_goal_met"]
    with open(a.csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for f in out["pi"]:
            w.writerow([f.get(c) for c in cols])

    def fmt(v):
        return "-" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))
    for f in out["pi"]:
        print(f"{f['clock_control']:>5} {f['variant']:<10} regs {fmt(f['registers_per_thread'])}  "
              f"occupancy {fmt(f['achieved_occupancy_pct'])}/{fmt(f['theoretical_occupancy_pct'])}%  "
              f"issue busy {fmt(f['issue_slots_busy_pct'])}%  IPC {fmt(f['executed_ipc_active'])}  "
              f"alu {fmt(f['pipe_alu_inst_pct'])}% fma {fmt(f['pipe_fma_inst_pct'])}% "
              f"fmaheavy {fmt(f['pipe_fmaheavy_cycles_pct'])}%  inst/sample {fmt(f.get('thread_instructions_per_sample'))}  "
              f"clock {fmt(f['sm_clock_hz'])} Hz  rate {fmt(f.get('ncu_samples_per_s'))} (run {fmt(f.get('run_samples_per_s'))})  "
              f"ceiling {fmt(f.get('issue_bound_ceiling_samples_per_s'))}  fraction {fmt(f.get('fraction_of_ceiling_ncu'))} "
              f"(run {fmt(f.get('fraction_of_ceiling_run'))})  goal {'met' if f['profile_goal_met'] else 'MISSED'}")
    if out["triad"]:
        t = out["triad"]
        print(f"triad: issue busy {fmt(t['issue_slots_busy_pct'])}%  IPC {fmt(t['executed_ipc_active'])}  "
              f"dram {fmt(t['dram_throughput_pct'])}%  occupancy {fmt(t['achieved_occupancy_pct'])}%  "
              f"{fmt(t.get('bytes_per_s'))} B/s")
    default = [f for f in out["pi"] if f["variant"] == a.default_variant and f["clock_control"] == "none"]
    if not default:
        print(f"ncu_summary: no '{a.default_variant}' launch under clock control 'none' in the input", file=sys.stderr)
        return 1
    return 0 if default[0]["profile_goal_met"] else 3


if __name__ == "__main__":
    sys.exit(main())
