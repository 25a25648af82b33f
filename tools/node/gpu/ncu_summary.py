#!/usr/bin/env python3
"""The figures that matter from Nsight Compute's raw CSV (`ncu --import R --page raw --csv
--print-units base`), and the issue and pipe bounds of the pi kernel.

    ncu_summary.py --samples N [--run-rates pi-variants.json] [--run-label none] [--label NAME=RAW.csv ...]
                   [--triad RAW.csv --triad-bytes B] --json OUT.json --csv OUT.csv

For each profiled pi launch: issue slots busy, executed IPC, per-pipe utilisation, achieved and
theoretical occupancy, registers, the SM clock, warp instructions per sample, and two bounds on
the rate (the output's *_ceiling_* keys keep the name results/ holds them by):

    issue-bound = SMs x schedulers per SM x SM clock / (warp instructions per sample)   [samples/s]

the rate if every scheduler issued one warp instruction every cycle, for this instruction count;

    pipe-bound  = rate / (utilisation of the busiest pipe, as a fraction of its peak)

the rate if the busiest execution pipe (every sm__pipe_*_cycles_active and sm__inst_executed_pipe_*
metric in the CSV; over elapsed cycles where ncu gives them, as the rate is) were busy every cycle.
The lower of the two binds. The fractions reached are the measured rate (N / kernel duration under
ncu, and, from --run-rates, the median rate of the same variant in a plain run: only for the
--run-label profile, the one under the clocks the plain run sees) over each bound.

A figure the raw CSV lacks is read from the launch's details page (`ncu --import R --page details
--print-units base`) when one lies beside it: RAW.csv's name with .raw.csv replaced by
.details.txt, as ncu-profile.sh writes them. Each record's `sources` says which metric or details
row gave each figure. Figures neither has are null, never guessed.
Exit status 0; 3 when the profile goal (issue slots busy >= 80% or a pipe >= 85% of
peak) is missed by the default kernel.
"""
import argparse
import csv
import json
import os
import re
import sys

SCHEDULERS_PER_SM = 4  # warp schedulers (SM sub-partitions) per SM on Volta..Hopper, when ncu does not say

# Each figure: where it can come from, first found wins; a name is looked up in the raw CSV, then
# in the details page (whose rows are section labels, or metric names under "Command line profiler
# metrics"). ncu renames section metrics between versions: the comments say what ncu 2025.3.1 on
# an H200 (sm_90, ncu-profile.sh's sections and extras) wrote into the raw page.
METRICS = {
    # "Issue Slots Busy" (Compute Workload Analysis). ncu 2025.3 computes it over elapsed cycles:
    # sm__inst_issued.avg.pct_of_peak_sustained_elapsed is in its raw page (47.36 for ilp4-occ8,
    # equal to the details row), the _active form older versions used is not. Last resort:
    # Scheduler Statistics' "One or More Eligible", smsp__issue_active over active cycles (47.40).
    "issue_slots_busy_pct": ["sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
                             "sm__inst_issued.avg.pct_of_peak_sustained_active", "Issue Slots Busy",
                             "smsp__issue_active.avg.pct_of_peak_sustained_active"],
    "issue_active_pct": ["smsp__issue_active.avg.pct_of_peak_sustained_active", "One or More Eligible"],
    "executed_ipc_active": ["sm__inst_executed.avg.per_cycle_active", "Executed Ipc Active"],
    "issued_ipc_active": ["sm__inst_issued.avg.per_cycle_active", "Issued Ipc Active"],
    "pipe_alu_inst_pct": ["sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"],
    "pipe_fma_inst_pct": ["sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"],
    "pipe_fmaheavy_inst_pct": ["sm__inst_executed_pipe_fmaheavy.avg.pct_of_peak_sustained_active"],
    "pipe_uniform_inst_pct": ["sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active"],
    "pipe_alu_cycles_pct": ["sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"],
    "pipe_fma_cycles_pct": ["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"],
    "pipe_fmaheavy_cycles_pct": ["sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"],
    "achieved_occupancy_pct": ["sm__warps_active.avg.pct_of_peak_sustained_active", "Achieved Occupancy"],
    "theoretical_occupancy_pct": ["sm__maximum_warps_per_active_cycle_pct", "Theoretical Occupancy"],
    "registers_per_thread": ["launch__registers_per_thread", "Registers Per Thread"],
    "grid_size": ["launch__grid_size", "Grid Size"],
    "block_size": ["launch__block_size", "Block Size"],
    "warp_instructions": ["smsp__inst_executed.sum", "inst_executed", "Executed Instructions"],
    "thread_instructions": ["smsp__thread_inst_executed.sum"],
    # "SM Frequency" (GPU Speed Of Light). ncu 2025.3 computes it as gpc__cycles_elapsed.avg.per_second
    # (1.98e9 under --clock-control none, 1.5e9 under base; equal to the details row); the
    # sm__/smsp__cycles_elapsed.avg.per_second of older versions are not in its raw page.
    "sm_clock_hz": ["sm__cycles_elapsed.avg.per_second", "smsp__cycles_elapsed.avg.per_second",
                    "gpc__cycles_elapsed.avg.per_second", "SM Frequency"],
    "duration_s": ["gpu__time_duration.sum", "Duration"],
    "sms": ["device__attribute_multiprocessor_count", "launch__sm_count", "# SMs"],
    "schedulers_per_sm": ["device__attribute_num_schedulers_per_multiprocessor"],
    "sm_throughput_pct": ["sm__throughput.avg.pct_of_peak_sustained_elapsed", "Compute (SM) Throughput"],
    "dram_throughput_pct": ["gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "DRAM Throughput"],
    "stall_wait_per_issue": ["smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"],
    "stall_math_pipe_throttle_per_issue": ["smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"],
    "stall_not_selected_per_issue": ["smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"],
    "stall_selected_per_issue": ["smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"],
    "stall_dispatch_per_issue": ["smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"],
    "stall_no_instruction_per_issue": ["smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"],
}

# Per-pipe utilisation, percent of the pipe's peak: cycles the pipe was busy (sm__pipe_X_cycles_active)
# and instructions it executed (sm__inst_executed_pipe_X). They differ where an instruction holds a
# pipe for more than a cycle: in the H200 profile of the IMAD-heavy pi kernel fmaheavy was busy 96.9%
# of cycles while sm__inst_executed_pipe_fmaheavy read 49.6%. The busiest of all of them bounds the rate.
PIPE_METRIC = re.compile(r"^sm__(?:pipe_(?P<cycles>\w+?)_cycles_active|inst_executed_pipe_(?P<inst>\w+))"
                         r"\.avg\.pct_of_peak_sustained_(?P<basis>active|elapsed)$")

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


DETAILS_ROW = re.compile(r"^\s+(?P<name>\S.*?)\s{2,}(?:(?P<unit>\S+)\s+)?(?P<value>-?[\d,]*\.?\d+)\s*$")


def read_details(path):
    """Launches of an ncu details page (--print-units base), in order: the header line (kernel name,
    grid, block, ...) and the numeric rows of every section's table as name -> float (units applied;
    the first row of a name wins)."""
    out = []
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    dashes = 0
    for line in lines:
        if re.match(r"^  \S", line):  # a launch: two spaces, then the kernel's name
            out.append({"_header": line.strip(), "rows": {}})
            dashes = 0
        elif not out:
            continue
        elif line.strip().startswith("Section:"):
            dashes = 0
        elif line.strip() and set(line.strip()) <= {"-", " "}:
            dashes += 1  # a table: rule, column titles, rule, rows, rule
        elif dashes == 2:
            m = DETAILS_ROW.match(line)
            if m:
                out[-1]["rows"].setdefault(m["name"].strip(), number(m["value"], m["unit"]))
    return out


def details_for(recs, details):
    """The details launch of each raw-CSV row: the same position when its header begins with the
    row's kernel name, else the first unused launch whose header does; None when none does."""
    used, out = set(), []
    for i, rec in enumerate(recs):
        fits = [j for j, d in enumerate(details) if j not in used and d["_header"].startswith(rec["kernel"])]
        match = i if i in fits else (fits[0] if fits else None)
        if match is not None:
            used.add(match)
        out.append(details[match]["rows"] if match is not None else {})
    return out


def details_path(raw_path):
    base = raw_path[:-len(".raw.csv")] if raw_path.endswith(".raw.csv") else os.path.splitext(raw_path)[0]
    return base + ".details.txt"


def read_launches(raw_path):
    """(raw-CSV row, details rows) of every launch in RAW.csv and the details page beside it."""
    recs = read_raw(raw_path)
    dp = details_path(raw_path)
    details = read_details(dp) if os.path.exists(dp) else []
    return list(zip(recs, details_for(recs, details)))


def pick(rec, details=None):
    """Every figure of METRICS from the first source that has it, and where each came from."""
    details = details or {}
    f, sources = {}, {}
    for key, names in METRICS.items():
        f[key] = None
        for name in names:
            if isinstance(rec.get(name), float):
                f[key], sources[key] = rec[name], name
                break
            if isinstance(details.get(name), float):
                f[key], sources[key] = details[name], f"details: {name}"
                break
    f["sources"] = sources
    return f


def pipes(rec):
    """The per-pipe utilisation metrics of a raw-CSV row: metric name -> percent of peak."""
    return {name: v for name, v in rec.items() if isinstance(v, float) and PIPE_METRIC.match(name)}


def busiest_pipe(rec):
    """(metric, percent, pipe name) of the busiest pipe, each pipe metric taken over elapsed cycles
    where the CSV has that form (the rate is N over the elapsed duration), else over active cycles."""
    by_pipe = {}
    for name, v in pipes(rec).items():
        m = PIPE_METRIC.match(name)
        key = (m["cycles"] or "", m["inst"] or "")
        if key not in by_pipe or m["basis"] == "elapsed":
            by_pipe[key] = (name, v)
    if not by_pipe:
        return None, None, None
    (cycles, inst), (name, v) = max(by_pipe.items(), key=lambda kv: kv[1][1])
    return name, v, cycles or inst


def variant_of(kernel):
    if "pi_hits_kernel_v1" in kernel:
        return "v1"
    if "pi_hits_kernel" in kernel:
        # pi_hits_kernel<4u, 8>, pi_hits_kernel<(unsigned int)4, (int)8> (demangled) or ILj4ELi8E (mangled)
        m = re.search(r"pi_hits_kernel<\D*?(\d+)\D+?(\d+)>", kernel) or re.search(r"ILj(\d+)ELi(\d+)E", kernel)
        return f"ilp{m.group(1)}-occ{m.group(2)}" if m else kernel
    return kernel


def ratio(a, b):
    return a / b if a and b else None


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=float, required=True, help="samples per profiled pi launch")
    ap.add_argument("--label", action="append", default=[], help="NAME=RAW.csv: pi launches under a clock setting")
    ap.add_argument("--run-rates", help="parlab_pi_variants JSON of a plain run (no profiler)")
    ap.add_argument("--run-label", default="none",
                    help="the --label profiled under the clocks the plain run sees (default none): run fractions only for it")
    ap.add_argument("--triad", help="raw CSV of the triad launch, for contrast")
    ap.add_argument("--triad-bytes", type=float, default=0.0, help="bytes the triad launch moves")
    ap.add_argument("--default-variant", default="ilp4-occ8")
    ap.add_argument("--json", required=True)
    ap.add_argument("--csv", required=True)
    return ap.parse_args()


def read_run_rates(path):
    """variant -> samples_per_s of a plain run; empty (with a note) when there is none to read."""
    run_rates = {}
    if path:
        try:
            for v in json.load(open(path)).get("variants", []):
                run_rates[v["variant"]] = v.get("samples_per_s")
        except (OSError, ValueError) as e:
            print(f"ncu_summary: --run-rates unreadable ({e}); fractions of the plain run left out", file=sys.stderr)
    return run_rates


def pi_launch(rec, details, label, a, run_rates):
    """One pi launch's fields with its ceilings (issue-bound, pipe-bound) and fractions of them."""
    f = pick(rec, details)
    f["clock_control"] = label
    f["kernel"] = rec["kernel"]
    f["variant"] = variant_of(rec["kernel"])
    schedulers = f["schedulers_per_sm"] or SCHEDULERS_PER_SM
    f["schedulers_per_sm"] = schedulers
    if f["warp_instructions"]:
        f["warp_instructions_per_sample"] = f["warp_instructions"] / a.samples
        f["thread_instructions_per_sample"] = (f["thread_instructions"] or 32 * f["warp_instructions"]) / a.samples
    if f.get("warp_instructions_per_sample") and f["sm_clock_hz"] and f["sms"]:
        f["issue_bound_ceiling_samples_per_s"] = (f["sms"] * schedulers * f["sm_clock_hz"]
                                                  / f["warp_instructions_per_sample"])
    if f["duration_s"]:
        f["ncu_samples_per_s"] = a.samples / f["duration_s"]
    f["pipe_bound_metric"], f["pipe_bound_pct"], f["pipe_bound_pipe"] = busiest_pipe(rec)
    if f["pipe_bound_pct"] and f.get("ncu_samples_per_s"):
        f["pipe_bound_ceiling_samples_per_s"] = f["ncu_samples_per_s"] / (f["pipe_bound_pct"] / 100)
    if label == a.run_label and run_rates.get(f["variant"]):
        f["run_samples_per_s"] = run_rates[f["variant"]]
    issue, pipe = f.get("issue_bound_ceiling_samples_per_s"), f.get("pipe_bound_ceiling_samples_per_s")
    f["fraction_of_ceiling_ncu"] = ratio(f.get("ncu_samples_per_s"), issue)
    f["fraction_of_ceiling_run"] = ratio(f.get("run_samples_per_s"), issue)
    f["fraction_of_pipe_ceiling_ncu"] = ratio(f.get("ncu_samples_per_s"), pipe)
    f["fraction_of_pipe_ceiling_run"] = ratio(f.get("run_samples_per_s"), pipe)
    if issue and pipe:
        f["binding_ceiling"] = f"pipe {f['pipe_bound_pipe']}" if pipe <= issue else "issue"
    else:
        f["binding_ceiling"] = None
    all_pipes = list(pipes(rec).values())
    f["max_pipe_pct"] = max(all_pipes) if all_pipes else None
    f["profile_goal_met"] = bool((f["issue_slots_busy_pct"] or 0) >= 80 or (f["max_pipe_pct"] or 0) >= 85)
    return f


def triad_launch(a):
    """The triad launch's fields, for contrast; None without one."""
    launches = read_launches(a.triad) if a.triad else []
    if not launches:
        return None
    rec, details = launches[0]
    f = pick(rec, details)
    f["kernel"] = rec["kernel"]
    if f["duration_s"] and a.triad_bytes:
        f["bytes_per_s"] = a.triad_bytes / f["duration_s"]
    return f


CSV_COLUMNS = [
    "clock_control", "variant", "registers_per_thread", "theoretical_occupancy_pct", "achieved_occupancy_pct",
    "issue_slots_busy_pct", "issue_active_pct", "executed_ipc_active", "pipe_alu_inst_pct", "pipe_fma_inst_pct",
    "pipe_fmaheavy_inst_pct", "pipe_alu_cycles_pct", "pipe_fma_cycles_pct", "pipe_fmaheavy_cycles_pct",
    "pipe_bound_metric", "pipe_bound_pct", "thread_instructions_per_sample", "warp_instructions_per_sample",
    "sm_clock_hz", "sms", "duration_s", "ncu_samples_per_s", "run_samples_per_s",
    "issue_bound_ceiling_samples_per_s", "fraction_of_ceiling_ncu", "fraction_of_ceiling_run",
    "pipe_bound_ceiling_samples_per_s", "fraction_of_pipe_ceiling_ncu", "fraction_of_pipe_ceiling_run",
    "binding_ceiling", "profile_goal_met"]


def write_files(out, json_path, csv_path):
    with open(json_path, "w") as fh:
        json.dump(out, fh, indent=1)
    with open(csv_path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(CSV_COLUMNS)
        for f in out["pi"]:
            w.writerow([f.get(c) for c in CSV_COLUMNS])


def fmt(v):
    return "-" if v is None else (f"{v:.4g}" if isinstance(v, float) else str(v))


def print_summary(out):
    for f in out["pi"]:
        print(f"{f['clock_control']:>5} {f['variant']:<10} regs {fmt(f['registers_per_thread'])}  "
              f"occupancy {fmt(f['achieved_occupancy_pct'])}/{fmt(f['theoretical_occupancy_pct'])}%  "
              f"issue busy {fmt(f['issue_slots_busy_pct'])}%  IPC {fmt(f['executed_ipc_active'])}  "
              f"clock {fmt(f['sm_clock_hz'])} Hz  inst/sample {fmt(f.get('thread_instructions_per_sample'))} "
              f"(warp {fmt(f.get('warp_instructions_per_sample'))})  "
              f"busiest pipe {fmt(f['pipe_bound_pipe'])} {fmt(f['pipe_bound_pct'])}%  "
              f"rate {fmt(f.get('ncu_samples_per_s'))} (run {fmt(f.get('run_samples_per_s'))})  "
              f"issue-bound {fmt(f.get('issue_bound_ceiling_samples_per_s'))} "
              f"fraction {fmt(f['fraction_of_ceiling_ncu'])} (run {fmt(f['fraction_of_ceiling_run'])})  "
              f"pipe-bound {fmt(f.get('pipe_bound_ceiling_samples_per_s'))} "
              f"fraction {fmt(f['fraction_of_pipe_ceiling_ncu'])} (run {fmt(f['fraction_of_pipe_ceiling_run'])})  "
              f"binds: {fmt(f['binding_ceiling'])}  goal {'met' if f['profile_goal_met'] else 'MISSED'}")
    if out["triad"]:
        t = out["triad"]
        print(f"triad: issue busy {fmt(t['issue_slots_busy_pct'])}%  IPC {fmt(t['executed_ipc_active'])}  "
              f"dram {fmt(t['dram_throughput_pct'])}%  occupancy {fmt(t['achieved_occupancy_pct'])}%  "
              f"{fmt(t.get('bytes_per_s'))} B/s")


def main():
    a = parse_args()
    run_rates = read_run_rates(a.run_rates)
    out = {"samples": a.samples, "schedulers_per_sm": SCHEDULERS_PER_SM, "pi": [], "triad": None}
    for spec in a.label:
        label, path = spec.split("=", 1)
        for rec, details in read_launches(path):
            out["pi"].append(pi_launch(rec, details, label, a, run_rates))
    out["triad"] = triad_launch(a)
    write_files(out, a.json, a.csv)
    print_summary(out)
    default = [f for f in out["pi"] if f["variant"] == a.default_variant and f["clock_control"] == a.run_label]
    if not default:
        print(f"ncu_summary: no '{a.default_variant}' launch under clock control '{a.run_label}' in the input",
              file=sys.stderr)
        return 1
    return 0 if default[0]["profile_goal_met"] else 3

if __name__ == "__main__":
    sys.exit(main())
