"""The MPI figures' series: speedup over ranks, the probes' latency over ranks, and ranks x
threads of the mixed-mode study, read from the records (their `ranks`, `threads` and rate).
Nothing here draws.
"""
from __future__ import annotations
from analysis.records import LAB_FAMILIES
from collections import defaultdict
from analysis.records import family_of
from analysis.labels import hosts_note
from analysis.labels import layout_label
from analysis.records import ok_records
from analysis.records import per_op_us
from analysis.records import ranks_of
from analysis.spread import ratio_band
from analysis.spread import time_band
from analysis.spread import unstable


def mixed_mode_series(doc: dict) -> dict:
    """The EPCC mixed-mode comparison, as data (tested on its own): the same work on the same
    total core count laid out as R ranks x 1 thread, 1 rank (or one process) x R threads, and
    hybrids between.

    Returns {(study, kernel, size, precision): {cores: [row]}} for groups that hold a hybrid
    (ranks > 1 and threads > 1), keeping only core counts measured in two or more layouts; a row
    is {label, backend, ranks (None: one process), threads, value, unit}, value in µs per
    operation for overhead_reduce and the probes (size counts operations), else median seconds,
    rows sorted fastest first.
    """
    groups = defaultdict(list)
    for r in ok_records(doc, lab=True) + ok_records(doc):
        if r.get("kind", "cpu") not in ("cpu", "mpi") or r.get("scaling") == "weak":
            continue
        if family_of(r) in LAB_FAMILIES and r["kernel"] != "overhead_reduce":
            continue
        groups[(r.get("study", ""), r["kernel"], r["size"], r.get("precision", ""))].append(r)
    out = {}
    for key, recs in sorted(groups.items()):
        if not any((ranks_of(r) or 1) > 1 and r["threads"] > 1 for r in recs):
            continue
        per_op = key[1] == "overhead_reduce" or any(family_of(r) == "comm" for r in recs)
        by_cores = defaultdict(list)
        for r in recs:
            by_cores[(ranks_of(r) or 1) * r["threads"]].append(r)
        table = {}
        for cores, rs in sorted(by_cores.items()):
            if len({(ranks_of(r), r["threads"]) for r in rs}) < 2:
                continue
            rows = [{"label": f"{layout_label(ranks_of(r), r['threads'])} ({r['backend']})", "backend": r["backend"],
                     "ranks": ranks_of(r), "threads": r["threads"],
                     "value": per_op_us(r) if per_op else r["time_s"]["median"], "unit": "µs" if per_op else "s",
                     "band": time_band(r, per_op_us(r) if per_op else r["time_s"]["median"]),
                     "unstable": unstable(r)}
                    for r in rs]
            table[cores] = sorted(rows, key=lambda x: (x["value"], x["label"]))
        if table:
            out[key] = table
    return out


# The probes as axes and the summary name them.
MPI_PROBE_NAMES = {"mpi_barrier": "barrier", "mpi_allreduce": "8-byte allreduce", "mpi_bcast": "8-byte broadcast"}


def mpi_scaling_series(doc: dict) -> dict:
    """Speedup over ranks, as data (tested on its own).

    Returns {(study, scaling, kernel, base_size, precision, threads_per_rank): {label: [point]}},
    one entry per group with at least two rank counts; a point is a dict of ranks, cores (ranks x
    threads per rank), speedup, efficiency and vs_single, with band and vs_band (their bars:
    bars.ratio_band, None without quartiles) and unstable (either record of the speedup). Strong
    scaling: speedup = the same backend's median time at 1 rank / its median time at R ranks, efficiency = speedup / R.
    Without a 1-rank record the baseline is the fastest single-process CPU record of the group at
    threads_per_rank threads, and the label says so. Weak scaling (the size grows with ranks x
    threads; base_size is the share of one thread): scaled speedup = T_base x R / T(R),
    efficiency = T_base / T(R). vs_single = the fastest single-process CPU time at the same total
    core count (same study, kernel, base size and precision) / the MPI time: above 1 the ranks
    win; None where no process was measured at that many threads.
    """
    mpi = defaultdict(list)
    single = defaultdict(list)
    for r in ok_records(doc):
        if r.get("scaling") not in ("strong", "weak"):
            continue
        rk = ranks_of(r)
        per = r["threads"] * (rk or 1) if r["scaling"] == "weak" else 1
        key = (r.get("study", ""), r["scaling"], r["kernel"], r["size"] // per, r.get("precision", ""))
        if rk is not None:
            mpi[key + (r["threads"],)].append(r)
        elif r.get("kind", "cpu") == "cpu":
            single[key].append(r)
    out = {}
    for key, recs in sorted(mpi.items()):
        if len({ranks_of(r) for r in recs}) < 2:
            continue
        scaling, t = key[1], key[5]
        best_single = {}
        for r in single.get(key[:5], []):
            if r["threads"] not in best_single or r["time_s"]["median"] < best_single[r["threads"]]["time_s"]["median"]:
                best_single[r["threads"]] = r
        by_backend = defaultdict(dict)
        for r in recs:
            # One point per rank count: a repeated measurement keeps the faster median.
            old = by_backend[r["backend"]].get(ranks_of(r))
            if old is None or r["time_s"]["median"] < old["time_s"]["median"]:
                by_backend[r["backend"]][ranks_of(r)] = r
        series = {}
        for backend, at in sorted(by_backend.items()):
            if len(at) < 2:
                continue
            if 1 in at:
                base, label = at[1], backend
            elif t in best_single:
                base = best_single[t]
                label = f"{backend} (vs best single process: {base['backend']} t={t})"
            else:
                continue
            t_base = base["time_s"]["median"]
            pts = []
            for rk in sorted(at):
                tm = at[rk]["time_s"]["median"]
                speed = t_base / tm * (rk if scaling == "weak" else 1)
                single_rec = best_single.get(rk * t)
                vs = single_rec["time_s"]["median"] / tm if single_rec else None
                pts.append({"ranks": rk, "cores": rk * t, "speedup": speed, "efficiency": speed / rk,
                            "vs_single": vs, "single_backend": single_rec["backend"] if single_rec else None,
                            # Bars of both ratios from both records' spread (bars.ratio_band).
                            "band": ratio_band(at[rk], base, speed), "unstable": unstable(at[rk], base),
                            "vs_band": ratio_band(at[rk], single_rec, vs) if single_rec else None})
            series[label + hosts_note(at.values())] = pts
        if series:
            out[key] = series
    return out


def mpi_latency_series(doc: dict) -> dict:
    """Latency of the OSU-style probes over ranks, as data (tested on its own).

    Returns {"probes": {label: [(ranks, us per call)]}, "reduce": {label: [(x, us per
    reduction)]}}. probes: one line per (kernel, backend, threads per rank) of the MPI records
    of mpi_barrier, mpi_allreduce and mpi_bcast; at a rank count measured at several sizes, the
    most calls. reduce: the EPCC reduction (overhead_reduce) for comparison, where the run has
    it: one process's reduction over x threads, and the MPI reduction over x ranks of one thread
    each (raw time per reduction, no baseline subtracted).
    """
    probes, reduce = defaultdict(dict), defaultdict(dict)

    def keep(line: dict, x: int, r: dict) -> None:
        if x not in line or r["size"] > line[x]["size"]:
            line[x] = r

    # Where some job spanned hosts, each probe's line is split by the record's `hosts` field:
    # within one host (shared memory) against across hosts (the network), never read from names.
    across = any(int(r.get("hosts") or 1) > 1 for r in ok_records(doc, lab=True) + ok_records(doc))
    for r in ok_records(doc, lab=True) + ok_records(doc):
        rk = ranks_of(r)
        if family_of(r) == "comm" and rk is not None:
            per = f", t={r['threads']}" if r["threads"] > 1 else ""
            hosts = int(r.get("hosts") or 1)
            where = ("" if not across else ", within 1 host" if hosts == 1 else f", across {hosts} hosts")
            name = f"{MPI_PROBE_NAMES.get(r['kernel'], r['kernel'])} ({r['backend']}{per}{where})"
            keep(probes[name], rk, r)
        elif r["kernel"] == "overhead_reduce" and rk is None:
            keep(reduce[f"{r['backend']} reduction over threads (1 process)"], r["threads"], r)
        elif r["kernel"] == "overhead_reduce" and r["threads"] == 1:
            keep(reduce[f"{r['backend']} reduction over ranks (1 thread each)"], rk, r)
    return {"probes": {k: [(x, per_op_us(v[x])) for x in sorted(v)] for k, v in sorted(probes.items())},
            "reduce": {k: [(x, per_op_us(v[x])) for x in sorted(v)] for k, v in sorted(reduce.items()) if probes}}
