"""The GPU pi kernel's node scripts on synthetic inputs (they run for real only on the GPU node): the
ncu summary's issue- and pipe-bound ceilings (from raw and details pages as ncu 2025.3 writes
them), the acceptance check's verdicts, and the SASS loop counter."""
import csv
import json
import os
import subprocess
import sys

from conftest import ROOT

SCRIPTS = os.path.join(ROOT, "tools", "node", "gpu")


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True)


# The leading columns and the metric names and units as ncu 2025.3.1 wrote them on an H200 (sm_90)
# for ncu-profile.sh's sections and extras: issue slots busy is sm__inst_issued over *elapsed* cycles,
# the SM clock is gpc__cycles_elapsed.avg.per_second, durations are in "ns".
LEADING = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
           "Grid Size", "Device", "CC"]
METRICS = [("device__attribute_multiprocessor_count", ""), ("device__attribute_num_schedulers_per_multiprocessor", ""),
           ("gpc__cycles_elapsed.avg.per_second", "hz"), ("gpu__time_duration.sum", "ns"),
           ("launch__registers_per_thread", "register/thread"),
           ("sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active", "%"),
           ("sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed", "%"),
           ("sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "%"),
           ("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active", "%"),
           ("sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed", "%"),
           ("smsp__inst_executed.sum", "inst"), ("smsp__issue_active.avg.pct_of_peak_sustained_active", "%")]


def write_raw(path, rows, drop=()):
    """An ncu raw-page CSV as `ncu --import R --page raw --csv --print-units base` writes it; rows are
    (kernel, {metric: value}), values as ncu prints them; metrics in `drop` left out."""
    metrics = [(m, u) for m, u in METRICS if m not in drop]
    with open(path, "w", newline="") as f:
        f.write("==PROF== Disconnected from process 1\n")
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow([*LEADING, *(m for m, _ in metrics)])
        w.writerow(["" for _ in LEADING] + [u for _, u in metrics])
        for i, (kernel, values) in enumerate(rows):
            lead = [str(i), "1570", "parlab_pi_variants", "127.0.0.1", kernel, "1", str(14 + i), "(256, 1, 1)",
                    "(1056, 1, 1)", "0", "9.0"]
            w.writerow(lead + [values.get(m, "") for m, _ in metrics])


# ncu 2025.3's kernel names for the default kernel and v1
PI_NEW = ("void unnamed>::pi_hits_kernel<4, 8>(pi_device::PhiloxRoundKeys, unsigned long, unsigned long, bool, "
          "unsigned long long *)")
PI_V1 = "unnamed>::pi_hits_kernel_v1(unsigned long, unsigned long, unsigned long, bool, unsigned long long *)"
N = 2 ** 34


def new_kernel(**over):
    # 132 SMs of 4 schedulers at 1.98 GHz; 11 warp instructions per 16 samples; 20 ms for 2^34 samples;
    # fmaheavy busy 96.94% of active and 96.86% of elapsed cycles, issue slots 47.36% busy.
    v = {"device__attribute_multiprocessor_count": "132", "device__attribute_num_schedulers_per_multiprocessor": "4",
         "gpc__cycles_elapsed.avg.per_second": "1,980,000,000.00", "gpu__time_duration.sum": "20,000,000",
         "launch__registers_per_thread": "30", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active": "44.17",
         "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed": "44.13",
         "sm__inst_issued.avg.pct_of_peak_sustained_elapsed": "47.36",
         "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active": "96.94",
         "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed": "96.86",
         "smsp__inst_executed.sum": f"{N * 11 // 16:,}", "smsp__issue_active.avg.pct_of_peak_sustained_active": "47.40"}
    v.update(over)
    return v


def summarize(tmp_path, *labels, rates=None):
    args = ["--samples", N, "--json", tmp_path / "s.json", "--csv", tmp_path / "s.csv"]
    for label in labels:
        args += ["--label", f"{label}={tmp_path / f'pi-{label}.raw.csv'}"]
    if rates:
        (tmp_path / "rates.json").write_text(json.dumps({"variants": [{"variant": k, "samples_per_s": v}
                                                                      for k, v in rates.items()]}))
        args += ["--run-rates", tmp_path / "rates.json"]
    p = run("ncu_summary.py", *args)
    return p, (json.loads((tmp_path / "s.json").read_text()) if (tmp_path / "s.json").exists() else None)


def close(a, b):
    return a is not None and abs(a / b - 1) < 1e-9


def test_ncu_summary_ceilings_and_fractions(tmp_path):
    v1 = new_kernel(**{"gpu__time_duration.sum": "36000000", "launch__registers_per_thread": "46",
                       "sm__inst_issued.avg.pct_of_peak_sustained_elapsed": "56.74",
                       "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active": "40",
                       "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed": "39.9",
                       "smsp__inst_executed.sum": str(N * 5 // 4)})
    write_raw(tmp_path / "pi-none.raw.csv", [(PI_NEW, new_kernel()), (PI_V1, v1)])
    p, s = summarize(tmp_path, "none", rates={"ilp4-occ8": 7.2e11, "v1": 4.7e11})
    assert p.returncode == 0, p.stdout + p.stderr
    new, old = s["pi"]
    assert (new["variant"], old["variant"]) == ("ilp4-occ8", "v1")
    # read under the names ncu 2025.3 gives them
    assert new["issue_slots_busy_pct"] == 47.36
    assert new["sources"]["issue_slots_busy_pct"] == "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"
    assert new["sm_clock_hz"] == 1.98e9 and new["sources"]["sm_clock_hz"] == "gpc__cycles_elapsed.avg.per_second"
    assert new["issue_active_pct"] == 47.40
    # issue-bound: 132 SMs x 4 schedulers x 1.98 GHz / (11/16 warp instructions per sample)
    issue = 132 * 4 * 1.98e9 / (11 / 16)
    rate = N / 0.02
    assert close(new["issue_bound_ceiling_samples_per_s"], issue)
    assert close(new["ncu_samples_per_s"], rate)
    assert close(new["fraction_of_ceiling_ncu"], rate / issue)
    assert close(new["fraction_of_ceiling_run"], 7.2e11 / issue)
    # pipe-bound: the rate over the busiest pipe's utilisation over elapsed cycles (fmaheavy, 96.86%)
    assert new["pipe_bound_metric"] == "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"
    assert new["pipe_bound_pipe"] == "fmaheavy" and new["pipe_bound_pct"] == 96.86
    pipe = rate / 0.9686
    assert close(new["pipe_bound_ceiling_samples_per_s"], pipe)
    assert close(new["fraction_of_pipe_ceiling_ncu"], 0.9686)
    assert close(new["fraction_of_pipe_ceiling_run"], 7.2e11 / pipe)
    assert pipe < issue and new["binding_ceiling"] == "pipe fmaheavy"
    assert new["max_pipe_pct"] == 96.94 and new["profile_goal_met"]
    # v1: ALU at 44.13% of elapsed cycles is its busiest pipe, and issue binds before it
    assert old["pipe_bound_pipe"] == "alu" and old["pipe_bound_pct"] == 44.13
    assert old["binding_ceiling"] == "issue"
    assert close(old["issue_bound_ceiling_samples_per_s"], 132 * 4 * 1.98e9 / (5 / 4))
    assert not old["profile_goal_met"]  # 56.74% issue slots, no pipe at 85%
    assert new["thread_instructions_per_sample"] == 32 * 11 / 16  # no thread metric: 32 per warp instruction
    assert new["pipe_alu_cycles_pct"] is None  # not collected: null, never guessed
    line = next(l for l in p.stdout.splitlines() if "ilp4-occ8" in l)
    assert "issue busy 47.36%" in line and "clock 1.98e+09 Hz" in line and "binds: pipe fmaheavy" in line
    assert f"issue-bound {issue:.4g} fraction {rate / issue:.4g}" in line
    assert f"pipe-bound {pipe:.4g} fraction 0.9686" in line


def test_ncu_summary_run_fraction_only_under_the_runs_clocks(tmp_path):
    # A profile under ncu's locked base clock is not compared with the plain run's rate.
    write_raw(tmp_path / "pi-none.raw.csv", [(PI_NEW, new_kernel())])
    write_raw(tmp_path / "pi-base.raw.csv", [(PI_NEW, new_kernel(**{"gpc__cycles_elapsed.avg.per_second": "1.5e9"}))])
    p, s = summarize(tmp_path, "none", "base", rates={"ilp4-occ8": 7.2e11})
    assert p.returncode == 0, p.stdout + p.stderr
    none, base = s["pi"]
    assert base["clock_control"] == "base" and base["sm_clock_hz"] == 1.5e9
    assert none["fraction_of_ceiling_run"] is not None and none["fraction_of_pipe_ceiling_run"] is not None
    assert base.get("run_samples_per_s") is None
    assert base["fraction_of_ceiling_run"] is None and base["fraction_of_pipe_ceiling_run"] is None


# Verbatim from the details page of ncu 2025.3.1 (--page details --print-units base) on an H200.
DETAILS = """[1570] parlab_pi_variants@127.0.0.1
  void unnamed>::pi_hits_kernel<4, 8>(pi_device::PhiloxRoundKeys, unsigned long, unsigned long, bool, unsigned long long *) (1056, 1, 1)x(256, 1, 1), Context 1, Stream 14, Device 0, CC 9.0
    Warning: Data collection happened without fixed GPU frequencies. Profiling results may be inconsistent.
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ----------------
    Metric Name             Metric Unit     Metric Value
    ----------------------- ----------- ----------------
    DRAM Frequency                   hz 3,199,498,471.74
    SM Frequency                     hz 1,979,978,025.45
    Elapsed Cycles                cycle       47,242,265
    Duration                         ns       23,859,872
    Compute (SM) Throughput           %            96.86
    ----------------------- ----------- ----------------

    INF   This workload is utilizing greater than 80.0% of the available compute or memory performance of the device.   
          To further improve performance, work will likely need to be shifted from the most utilized to another unit.   

    Section: Compute Workload Analysis
    -------------------- ----------- ------------
    Metric Name          Metric Unit Metric Value
    -------------------- ----------- ------------
    Executed Ipc Active   inst/cycle         1.90
    Executed Ipc Elapsed  inst/cycle         1.89
    Issue Slots Busy               %        47.36
    Issued Ipc Active     inst/cycle         1.90
    SM Busy                        %        96.86
    -------------------- ----------- ------------

    Section: Launch Statistics
    -------------------------------- --------------- ---------------
    Metric Name                          Metric Unit    Metric Value
    -------------------------------- --------------- ---------------
    Block Size                                                   256
    Cluster Scheduling Policy                           PolicySpread
    Registers Per Thread             register/thread              30
    -------------------------------- --------------- ---------------

  unnamed>::pi_hits_kernel_v1(unsigned long, unsigned long, unsigned long, bool, unsigned long long *) (660, 1, 1)x(256, 1, 1), Context 1, Stream 15, Device 0, CC 9.0
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ----------------
    Metric Name             Metric Unit     Metric Value
    ----------------------- ----------- ----------------
    SM Frequency                     hz 1,979,982,021.35
    ----------------------- ----------- ----------------

    Section: Compute Workload Analysis
    -------------------- ----------- ------------
    Metric Name          Metric Unit Metric Value
    -------------------- ----------- ------------
    Issue Slots Busy               %        56.74
    -------------------- ----------- ------------
"""


def test_ncu_summary_reads_the_details_page_for_what_the_csv_lacks(tmp_path):
    gone = ("sm__inst_issued.avg.pct_of_peak_sustained_elapsed", "gpc__cycles_elapsed.avg.per_second",
            "smsp__issue_active.avg.pct_of_peak_sustained_active")
    write_raw(tmp_path / "pi-none.raw.csv", [(PI_NEW, new_kernel()), (PI_V1, new_kernel())], drop=gone)
    (tmp_path / "pi-none.details.txt").write_text(DETAILS)
    p, s = summarize(tmp_path, "none")
    assert p.returncode == 0, p.stdout + p.stderr
    new, old = s["pi"]
    assert new["issue_slots_busy_pct"] == 47.36 and new["sources"]["issue_slots_busy_pct"] == "details: Issue Slots Busy"
    assert new["sm_clock_hz"] == 1979978025.45 and new["sources"]["sm_clock_hz"] == "details: SM Frequency"
    assert (old["issue_slots_busy_pct"], old["sm_clock_hz"]) == (56.74, 1979982021.35)  # each launch its own
    assert close(new["issue_bound_ceiling_samples_per_s"], 132 * 4 * 1979978025.45 / (11 / 16))
    # the raw page's own figures still win over the details page's
    assert new["registers_per_thread"] == 30 and new["sources"]["registers_per_thread"] == "launch__registers_per_thread"
    # without a details page the figures are null, not guessed
    (tmp_path / "pi-none.details.txt").unlink()
    p, s = summarize(tmp_path, "none")
    assert s["pi"][0]["issue_slots_busy_pct"] is None and s["pi"][0]["sm_clock_hz"] is None
    assert s["pi"][0].get("issue_bound_ceiling_samples_per_s") is None and s["pi"][0]["binding_ceiling"] is None
    assert s["pi"][0]["pipe_bound_ceiling_samples_per_s"] > 0  # needs neither


def test_ncu_summary_goal_missed_exits_3(tmp_path):
    write_raw(tmp_path / "pi-none.raw.csv", [(PI_NEW, new_kernel(**{
        "sm__inst_issued.avg.pct_of_peak_sustained_elapsed": "60",
        "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active": "70",
        "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed": "70"}))])
    p, _ = summarize(tmp_path, "none")
    assert p.returncode == 3, p.stdout + p.stderr


def results(records):
    return {"records": records}


def pi_record(backend, size, rate, hits, ok=True):
    return {"kernel": "pi", "backend": backend, "size": size, "seed": 42, "threads": 1, "status": "ok",
            "hits": hits, "rate": {"samples_per_s": rate}, "validation": {"pass": ok, "detail": "d"}}


def test_gpupi_check_verdicts(tmp_path):
    met = [pi_record("cuda", 2 ** 36, 7e11, 100), pi_record("cuda", 2 ** 32, 7e11, 7),
           pi_record("py-torch", 2 ** 32, 1e9, 7), pi_record("py-cupy", 2 ** 32, 3e9, 7)]
    f = tmp_path / "r.json"
    f.write_text(json.dumps(results(met)))
    cpu = tmp_path / "cpu.json"
    cpu.write_text(json.dumps({"backend": "threads", "samples": 2 ** 36, "seed": 42, "hits": 100}))
    assert run("gpupi_check.py", f, "--cpu-pi", cpu).returncode == 0
    cpu.write_text(json.dumps({"backend": "threads", "samples": 2 ** 36, "seed": 42, "hits": 101}))
    assert run("gpupi_check.py", f, "--cpu-pi", cpu).returncode == 1  # not the canonical count
    f.write_text(json.dumps(results(met[:2] + [pi_record("py-torch", 2 ** 32, 1e9, 8)])))
    assert run("gpupi_check.py", f).returncode == 1  # two records of one size disagree
    f.write_text(json.dumps(results([pi_record("cuda", 2 ** 36, 6e11, 100), pi_record("cuda", 2 ** 32, 9e11, 7)])))
    p = run("gpupi_check.py", f)
    assert p.returncode == 3 and "MISSED" in p.stdout  # fast only below 2^36


def test_sass_loops_counts_the_hot_loop(tmp_path):
    listing = """
        Function : _ZN6parlab4cuda14pi_hits_kernelILj4ELi8EEEvv
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_8:
        /*0010*/                   IMAD.WIDE.U32 R2, R2, -0x2daee0ad, RZ ;
        /*0020*/                   LOP3.LUT R4, R3, UR4, R5, 0x96, !PT ;
        /*0030*/                   ISETP.NE.AND P0, PT, R4, RZ, PT ;
        /*0040*/               @P0 BRA `(.L_x_8) ;
        /*0050*/                   EXIT ;
"""
    (tmp_path / "k.sass").write_text(listing)
    p = run("sass_loops.py", tmp_path / "k.sass", "--json")
    assert p.returncode == 0, p.stderr
    (kernel,) = json.loads(p.stdout)
    assert kernel["instructions"] == 6
    (loop,) = kernel["loops"]
    assert loop["instructions"] == 4
    assert loop["opcodes"] == {"IMAD": 1, "LOP3": 1, "ISETP": 1, "BRA": 1}


def test_sass_loops_reads_cuobjdump_addresses(tmp_path):
    # cuobjdump -sass names branch targets by address and prints the encodings beside each line.
    listing = """
\t\tFunction : _ZN6parlab4cuda17pi_hits_kernel_v1Ev
        /*0000*/                   MOV R1, c[0x0][0x28] ;        /* 0x00000a00ff017b82 */
        /*0010*/                   IMAD.WIDE.U32 R2, R2, -0x2daee0ad, RZ ; /* 0x0 */
        /*0020*/                   IADD3 R4, R4, 0x1, RZ ;       /* 0x0 */
        /*0030*/               @P0 BRA 0x10 ;                    /* 0x0 */
        /*0040*/                   BRA 0x40 ;                    /* 0x0 */
"""
    (tmp_path / "k.sass").write_text(listing)
    p = run("sass_loops.py", tmp_path / "k.sass", "--json")
    assert p.returncode == 0, p.stderr
    (kernel,) = json.loads(p.stdout)
    assert [lp["instructions"] for lp in kernel["loops"]] == [3, 1]
