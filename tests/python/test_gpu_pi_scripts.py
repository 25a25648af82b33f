"""Issue 14's GPU pi scripts on synthetic inputs (they run for real only on the GPU node): the
ncu summary's issue-bound ceiling, the acceptance check's verdicts, and the SASS loop counter."""
import csv
import json
import os
import subprocess
import sys

from conftest import ROOT

SCRIPTS = os.path.join(ROOT, "gpu", "scripts")


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True)


def write_raw(path, rows):
    """An ncu raw-page CSV as `ncu --import R --page raw --csv --print-units base` writes it."""
    metrics = ["device__attribute_multiprocessor_count", "gpu__time_duration.sum", "launch__registers_per_thread",
               "sm__inst_issued.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
               "smsp__cycles_elapsed.avg.per_second", "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"]
    units = ["", "nsecond", "register/thread", "%", "inst", "hz", "%"]
    with open(path, "w", newline="") as f:
        f.write("==PROF== Disconnected from process 1\n")
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", *metrics])
        w.writerow(["", "", *units])
        for i, (kernel, values) in enumerate(rows):
            w.writerow([str(i), kernel, *values])


PI_NEW = "void parlab::cuda::(anonymous namespace)::pi_hits_kernel<4u, 8>(PhiloxRoundKeys, unsigned long)"
PI_V1 = "void parlab::cuda::(anonymous namespace)::pi_hits_kernel_v1(unsigned long, unsigned long)"
N = 2 ** 34


def test_ncu_summary_ceiling_and_fraction(tmp_path):
    # 132 SMs at 1.98 GHz issuing 11 warp instructions per 16 samples: the ceiling is
    # 132 * 4 * 1.98e9 * 16 / 11 samples/s; a 20 ms launch of 2^34 samples reaches N / 0.02.
    warp_inst = N * 11 // 16
    write_raw(tmp_path / "pi.csv", [(PI_NEW, ["132", "20,000,000", "30", "88.5", f"{warp_inst:,}", "1,980,000,000", "70"]),
                                    (PI_V1, ["132", "36000000", "46", "56.7", str(N * 5 // 4), "1980000000", "58"])])
    (tmp_path / "rates.json").write_text(json.dumps({"variants": [{"variant": "ilp4-occ8", "samples_per_s": 8e11}]}))
    p = run("ncu_summary.py", "--samples", N, "--label", f"none={tmp_path / 'pi.csv'}", "--run-rates",
            tmp_path / "rates.json", "--json", tmp_path / "s.json", "--csv", tmp_path / "s.csv")
    assert p.returncode == 0, p.stdout + p.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    new, v1 = s["pi"]
    assert (new["variant"], v1["variant"]) == ("ilp4-occ8", "v1")
    ceiling = 132 * 4 * 1.98e9 / (11 / 16)
    assert abs(new["issue_bound_ceiling_samples_per_s"] / ceiling - 1) < 1e-9
    assert abs(new["ncu_samples_per_s"] - N / 0.02) < 1
    assert abs(new["fraction_of_ceiling_ncu"] - (N / 0.02) / ceiling) < 1e-9
    assert abs(new["fraction_of_ceiling_run"] - 8e11 / ceiling) < 1e-9
    assert new["thread_instructions_per_sample"] == 32 * 11 / 16  # no thread metric: 32 per warp instruction
    assert new["profile_goal_met"] and not v1["profile_goal_met"]
    assert new["pipe_alu_inst_pct"] is None  # not collected: null, never guessed


def test_ncu_summary_goal_missed_exits_3(tmp_path):
    write_raw(tmp_path / "pi.csv", [(PI_NEW, ["132", "20000000", "30", "60", str(N), "1980000000", "70"])])
    p = run("ncu_summary.py", "--samples", N, "--label", f"none={tmp_path / 'pi.csv'}",
            "--json", tmp_path / "s.json", "--csv", tmp_path / "s.csv")
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
    assert run("gpupi_check.py", f).returncode == 1  # peers disagree
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
