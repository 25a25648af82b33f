#!/usr/bin/env python3
"""Checks of MPI jobs across simulated hosts (scripts/sim-cluster.sh), run by scripts/run-tests.sh's
multihost configuration once the hosts are up. Needs root (it enters the hosts' namespaces).

  check.py identity ONE_HOST_DIR ACROSS_DIR HOSTS
      the records of `parlab run --ranks` on one host and across HOSTS hosts: every record ok and
      valid, the same pi count and bits of dot and triad at every (kernel, backend, threads, ranks),
      and the across-host records say how many hosts and ranks per host the job had: `hosts`,
      `ranks_per_node`, and which hosts with how many ranks each (`host_names`, `ranks_per_host`).
  check.py delay PARLAB HOSTFILE DELAY_US OUT
      with every link delayed by DELAY_US one way (`sim-cluster.sh netem --delay`), the 8-byte
      allreduce probe at 2 ranks, one on each host: ok, on sim0 and sim1, and at least DELAY_US per
      call (see delay() for why one way, not a round trip, bounds it).
  check.py dask PARLAB KERNEL_FILE OUT
      dask.distributed across the hosts: a scheduler on sim0 and one single-threaded worker on each
      host, which `parlab run -b py-dask-distributed` reaches through PARLAB_DASK_SCHEDULER; pi and
      the person's kernel file KERNEL_FILE at 2 workers give the answers of a LocalCluster on one
      host, bit for bit, and the records say their workers were on 2 hosts (metrics.worker_hosts).
      Then sim1's worker is killed mid-measurement: a failed record naming sim1, exit 1. Every
      process it started is ended, on every host.
  check.py faults PARLAB HOSTFILE
      an unreachable host in the hostfile, a far daemon killed mid-measurement and a link taken down
      mid-measurement: each a failed record naming the host and the fault, within --timeout,
      `parlab run` exits 1, the run goes on, and no process is left on any host.

Every wait is bounded in count and time; a check that cannot be made fails, never skips."""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

SIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "sim-cluster.sh")
NETNS = "parlab-sim"  # sim-cluster.sh's host K is the network namespace parlab-simK
TIMEOUT_S = 60        # --timeout of the fault runs: every fault must end well inside it
BIG = 2 ** 31         # pi samples of the measurement a fault hits (seconds at 2 ranks x 1 thread)
# How parlab's reason says a host was lost mid-job (which of Open MPI's messages comes last is a
# race between the daemons and the ranks' own TCP connections; both name the host).
LOST = ["(its daemon was lost mid-job)", "(the connection to it was lost mid-job)"]


def fail(msg):
    print("multihost check FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def records(run_root):
    # <host>/latest links to the run: not a second one.
    paths = [p for p in glob.glob(os.path.join(run_root, "*", "*", "results.json"))
             if not os.path.islink(os.path.dirname(p))]
    if len(paths) != 1:
        fail(f"expected one results.json under {run_root}, found {paths}")
    return json.load(open(paths[0]))["records"]


def key(r):
    return (r["kernel"], r["backend"], r["threads"], r.get("ranks", 0), r["size"])


def identity(one_dir, across_dir, hosts):
    one, across = records(one_dir), records(across_dir)
    for name, recs in (("one host", one), ("across hosts", across)):
        bad = [(key(r), r.get("reason") or r["validation"]["detail"]) for r in recs
               if r["status"] != "ok" or not r["validation"]["pass"]]
        if bad:
            fail(f"{name}: records not ok: {bad}")
    a = {key(r): r for r in across}
    if set(a) != {key(r) for r in one}:
        fail(f"the runs measured different points: {sorted(set(a) ^ {key(r) for r in one})}")
    print(f"{'kernel':6} {'backend':10} {'t':>2} {'ranks':>5} {'hosts':>5} {'r/host':>6}  {'one host':24} {'across hosts':24} scheme")
    for r in sorted(one, key=key):
        x = a[key(r)]
        if r["kernel"] == "pi":
            same, shown = r["hits"] == x["hits"], (str(r["hits"]), str(x["hits"]))
        else:
            same = float(r["checksum"]).hex() == float(x["checksum"]).hex()
            shown = (float(r["checksum"]).hex(), float(x["checksum"]).hex())
        if not same:
            fail(f"{key(r)}: one host gave {shown[0]}, across hosts {shown[1]}")
        ranks = x.get("ranks", 0)
        scheme = ""
        if ranks:
            want_hosts = min(ranks, hosts)
            want_per_host = -(-ranks // want_hosts)
            if x.get("hosts") != want_hosts or x.get("ranks_per_node") != want_per_host:
                fail(f"{key(r)}: hosts {x.get('hosts')} ranks_per_node {x.get('ranks_per_node')}, "
                     f"expected {want_hosts} and {want_per_host}")
            if r.get("hosts") != 1:
                fail(f"{key(r)}: the one-host run says hosts {r.get('hosts')}")
            # Which hosts: the names the ranks' hosts gave themselves (the simulated hosts' UTS
            # hostnames), one entry per host, in order of the host's lowest rank; the one-host run
            # ran on sim0 alone.
            if r.get("host_names") != ["sim0"] or r.get("ranks_per_host") != [ranks]:
                fail(f"{key(r)}: the one-host run says host_names {r.get('host_names')} "
                     f"ranks_per_host {r.get('ranks_per_host')}, expected ['sim0'] and [{ranks}]")
            names, per = x.get("host_names"), x.get("ranks_per_host")
            want_names = [f"sim{k}" for k in range(want_hosts)]
            if names != want_names or not isinstance(per, list) or len(per) != want_hosts or \
                    sum(per) != ranks or max(per) != want_per_host or min(per) < 1:
                fail(f"{key(r)}: host_names {names} ranks_per_host {per}, expected {want_names} with "
                     f"{ranks} ranks in all, at most {want_per_host} on one")
            # How far apart the ranks were, measured by the job: every job of 2 ranks or more
            # says, on one host and across hosts.
            for y, where_run in ((r, "one host"), (x, "across hosts")):
                lat = y.get("link_latency_s")
                if ranks >= 2 and not (isinstance(lat, float) and 0 < lat < 1):
                    fail(f"{key(r)}: the {where_run} run's link_latency_s is {lat!r}, not a latency")
                if ranks < 2 and lat is not None:
                    fail(f"{key(r)}: one rank has no link, yet its record says link_latency_s {lat!r}")
            if x["kernel"] == "pi":
                scheme = "two-sided" if x["metrics"]["pi_two_sided"] == 1 else "one-sided"
        where = " ".join(f"{n}:{c}" for n, c in zip(x.get("host_names", []), x.get("ranks_per_host", [])))
        print(f"{x['kernel']:6} {x['backend']:10} {x['threads']:>2} {ranks or '-':>5} {x.get('hosts', '-'):>5} "
              f"{x.get('ranks_per_node', '-'):>6}  {shown[0]:24} {shown[1]:24} {scheme:9} {where}")
    print(f"identity: {len(one)} points equal on one host and across {hosts} hosts")


def sim_hosts():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    names = sorted(w.split()[0] for w in out.splitlines() if w.split() and w.split()[0][len(NETNS):].isdigit()
                   and w.startswith(NETNS))
    if len(names) < 2:
        fail(f"fewer than 2 simulated hosts are up ({names})")
    return names


def pids_in(ns):
    out = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def cmdline(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


def wait_for(pred, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.1)
    fail(f"waited {seconds} s for {what}")


def big_rank_on(ns):
    """The pid of a rank of the big measurement running in namespace `ns`, or None."""
    for p in pids_in(ns):
        c = cmdline(p)
        if "measure-spec" in c and f'"size":{BIG}' in c and "mpirun" not in c:
            return p
    return None


def no_process_left(hosts):
    # Bounded: a daemon that saw its job end exits within a few seconds.
    def empty():
        left = {h: [(p, comm(p)) for p in pids_in(h)] for h in hosts}
        return all(not v for v in left.values()) and left
    end = time.monotonic() + 15
    while time.monotonic() < end:
        if empty():
            return
        time.sleep(0.2)
    fail("processes left on the simulated hosts: " +
         str({h: [(p, comm(p)) for p in pids_in(h)] for h in hosts}))


def fault_run(parlab, hostfile, out, inject=None, restore=None):
    """`parlab run` of pi at 2 ranks, sizes BIG and 2^20, on host 0; `inject` once a rank of the
    BIG job runs on the far host, `restore` once the run has ended. Returns (exit code, seconds,
    records, stderr)."""
    far = sim_hosts()[1]
    cmd = [SIM, "exec", "sim0", parlab, "run", "-k", "pi", "-b", "mpi+serial", "-t", "1", "--ranks", "2",
           "-n", f"{BIG},2^20", "-r", "1", "--quick", "--no-report", "-q", "--no-ceilings",
           "--timeout", str(TIMEOUT_S), "--hostfile", hostfile, "--out", out]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        if inject:
            rank = wait_for(lambda: big_rank_on(far), 60, f"a rank of the {BIG}-sample job on {far}")
            time.sleep(1.0)  # well inside the measurement (several seconds), past its start-up
            inject(far)
        _, err = proc.communicate(timeout=4 * TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if restore:
            restore(far)
    return proc.returncode, time.monotonic() - start, records(out), err


def check_fault(name, code, seconds, recs, host, words, rest_ok):
    big = [r for r in recs if r["size"] == BIG]
    small = [r for r in recs if r["size"] != BIG]
    if len(big) != 1 or len(small) != 1:
        fail(f"{name}: expected a record of each size, got {[(r['size'], r['status']) for r in recs]}")
    (r,) = big
    reason = r.get("reason", "")
    if r["status"] != "error":
        fail(f"{name}: the faulted measurement is {r['status']}, not error")
    if "did not finish within" in reason:
        fail(f"{name}: the fault was found only by --timeout: {reason[:300]}")
    if f"at fault: host {host}" not in reason:
        fail(f"{name}: the reason does not name host {host}: {reason[:600]}")
    if not any(w in reason for w in words):
        fail(f"{name}: the reason does not name the fault ({words}): {reason[:600]}")
    if code != 1:
        fail(f"{name}: parlab run exited {code}, expected 1")
    if seconds > TIMEOUT_S + 30:
        fail(f"{name}: took {seconds:.1f} s")
    if small[0]["status"] not in ("ok", "error") or (rest_ok and small[0]["status"] != "ok"):
        fail(f"{name}: the run did not go on: the next measurement is {small[0]['status']}: {small[0].get('reason')}")
    print(f"fault '{name}': exit {code} in {seconds:.1f} s; next measurement {small[0]['status']}; reason: "
          f"{reason[:reason.find('; its stderr')] if '; its stderr' in reason else reason[:300]}")


def faults(parlab, hostfile):
    hosts = sim_hosts()
    far_name = "sim1"
    with tempfile.TemporaryDirectory() as tmp:
        # 1. A host in the hostfile that no route reaches: the agent cannot start its daemon.
        bad = os.path.join(tmp, "hostfile-unreachable")
        with open(bad, "w") as f:
            f.write("sim0 slots=1\nsim9 slots=1\n")
        code, secs, recs, _ = fault_run(parlab, bad, os.path.join(tmp, "unreachable"))
        for r in recs:
            if r["status"] != "error" or "at fault: host sim9 (unreachable" not in r.get("reason", ""):
                fail(f"unreachable host: {r['size']} {r['status']} {r.get('reason', '')[:400]}")
        if code != 1:
            fail(f"unreachable host: parlab run exited {code}, expected 1")
        print(f"fault 'unreachable host': exit {code} in {secs:.1f} s, {len(recs)} failed records; reason: "
              f"{recs[0]['reason'][:recs[0]['reason'].find('; its stderr')]}")
        no_process_left(hosts)

        # 2. The far daemon killed during a measurement.
        def kill_orted(ns):
            orted = [p for p in pids_in(ns) if comm(p) == "orted"]
            if not orted:
                fail(f"no orted on {ns}")
            for p in orted:
                os.kill(p, 9)
        code, secs, recs, _ = fault_run(parlab, hostfile, os.path.join(tmp, "orted"), inject=kill_orted)
        check_fault("remote daemon killed", code, secs, recs, far_name, LOST, rest_ok=True)
        no_process_left(hosts)

        # 3. The far host's link taken down during a measurement (restored once that job ended).
        def link(state):
            return lambda ns: subprocess.run(["ip", "-n", ns, "link", "set", "eth0", state], check=True)
        code, secs, recs, _ = fault_run(parlab, hostfile, os.path.join(tmp, "link"), inject=link("down"),
                                        restore=link("up"))
        # The run goes on: the next job is launched at once, while the link is still down, so its
        # record fails too, as unreachable, naming the same host.
        check_fault("link down", code, secs, recs, far_name, LOST, rest_ok=False)
        nxt = next(r for r in recs if r["size"] != BIG)
        if nxt["status"] == "error" and f"at fault: host {far_name} (unreachable" not in nxt.get("reason", ""):
            fail(f"link down: the next measurement's reason does not name {far_name}: {nxt.get('reason', '')[:400]}")
        no_process_left(hosts)
    print("faults: all three gave failed records naming the host, within --timeout, nothing left running")


def per_call_us(r):
    """A latency probe's median time per call in microseconds (`size` calls per repetition)."""
    return r["time_s"]["median"] / r["size"] * 1e6


def delay(parlab, hostfile, delay_us, out):
    """The allreduce probe across 2 delayed hosts. The bound checked is one way: with 2 ranks an
    8-byte allreduce is an exchange in which both ranks send at once, and back-to-back calls
    pipeline, so a call costs at least one crossing of the link (each rank's next send waits for
    the other's last message), and at least a round trip only if the algorithm were a reduce then
    a broadcast. One way is the bound that holds whichever algorithm Open MPI picks."""
    cmd = [SIM, "exec", "sim0", parlab, "run", "-k", "mpi_allreduce", "-b", "mpi+serial", "-t", "1",
           "--ranks", "2", "-n", "1000", "-r", "3", "--quick", "--no-report", "-q", "--no-ceilings",
           "--timeout", "60", "--hostfile", hostfile, "--out", out]
    env = dict(os.environ, PARLAB_MPIRUN_ARGS="--mca btl tcp,self")
    start = time.monotonic()
    # Bounded: the job's own --timeout, and this wait above it.
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    secs = time.monotonic() - start
    if proc.returncode != 0:
        fail(f"delayed link: parlab run exited {proc.returncode}: {proc.stderr[-2000:]}")
    recs = records(out)
    if len(recs) != 1:
        fail(f"delayed link: expected one record, got {len(recs)}")
    (r,) = recs
    if r["status"] != "ok":
        fail(f"delayed link: the allreduce probe is {r['status']}: {r.get('reason', '')[:600]}")
    if r.get("hosts") != 2 or r.get("host_names") != ["sim0", "sim1"] or r.get("ranks_per_host") != [1, 1]:
        fail(f"delayed link: the job ran on {r.get('host_names')} ({r.get('ranks_per_host')}), not one rank "
             f"on each of sim0 and sim1")
    # The record's own measure of the link: half a round trip between the hosts crosses it once.
    lat = r.get("link_latency_s")
    if not isinstance(lat, float) or lat * 1e6 < delay_us:
        fail(f"delayed link: the record's link_latency_s is {lat!r}, below the {delay_us} us one-way delay")
    us = per_call_us(r)
    if us < delay_us:
        fail(f"delayed link: an 8-byte allreduce across the hosts took {us:.1f} us per call (median), "
             f"less than the {delay_us} us one-way delay of the link")
    print(f"delayed link: 8-byte allreduce across sim0 and sim1 at {delay_us} us one way: {us:.1f} us per call "
          f"(median of {r['reps']}; min {r['time_s']['min'] / r['size'] * 1e6:.1f}), >= {delay_us} us; "
          f"{secs:.1f} s; the job measured its link at {lat * 1e6:.1f} us one way")

DASK_PORT = 8786  # the scheduler's, inside sim0's namespace: no other network reaches it


def address_of(ns):
    """The host's address on the simulated network (scripts/sim-cluster.sh status reads it so)."""
    out = subprocess.run(["ip", "-n", ns, "-4", "-o", "addr", "show", "dev", "eth0"], capture_output=True,
                         text=True, check=True).stdout.split()
    if len(out) < 4:
        fail(f"no address on {ns}'s eth0")
    return out[3].split("/")[0]


def end_group(proc):
    """Ends a process this check started in a session of its own, and all it started, within 10 s."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def dask_runs(parlab, kernel_file, out, address):
    """pi and the kernel file on py-dask-distributed at 2 workers: on a LocalCluster on sim0, then
    on the cluster at `address`. Returns {kernel: (one-host record, across-hosts record)}."""
    base = [SIM, "exec", "sim0", parlab, "run", "-k", f"pi,{kernel_file}", "-b", "py-dask-distributed", "-t", "2",
            "-n", "2^18", "-r", "2", "--no-ceilings", "--no-report", "-q", "--timeout", "120"]
    env = {k: v for k, v in os.environ.items() if k != "PARLAB_DASK_SCHEDULER"}
    runs = {}
    for name, extra in (("one host", {}), ("across hosts", {"PARLAB_DASK_SCHEDULER": address})):
        where = os.path.join(out, name.replace(" ", "-"))
        proc = subprocess.run(base + ["--out", where], env={**env, **extra}, capture_output=True, text=True,
                              timeout=600)
        if proc.returncode != 0:
            fail(f"dask {name}: parlab run exited {proc.returncode}: {proc.stderr[-1500:]}")
        runs[name] = {r["kernel"].split("/")[-1]: r for r in records(where)}
    return {k: (runs["one host"][k], runs["across hosts"].get(k)) for k in runs["one host"]}


class DaskCluster:
    """A scheduler on sim0 and one single-threaded worker (with its nanny) on each host, every
    process in a session of its own; ended, all of them, on leaving the block. On a failure inside
    it, what the cluster logged is printed."""

    def __init__(self, hosts):
        self.hosts = hosts
        self.sched = address_of(hosts[0])
        self.address = f"tcp://{self.sched}:{DASK_PORT}"
        self.procs, self.logs = [], []

    def start(self, host, args, what):
        log = tempfile.TemporaryFile(mode="w+")
        self.logs.append((what, log))
        self.procs.append(subprocess.Popen([SIM, "exec", host, sys.executable, "-m", *args], stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def __enter__(self):
        self.start("sim0", ["distributed.cli.dask_scheduler", "--host", self.sched, "--port", str(DASK_PORT),
                            "--no-dashboard"], "the scheduler")
        for k, ns in enumerate(self.hosts):
            self.start(f"sim{k}", ["distributed.cli.dask_worker", self.address, "--host", address_of(ns),
                                   "--nthreads", "1", "--nworkers", "1", "--no-dashboard"], f"the worker on sim{k}")
        return self

    def worker(self, k):
        """The Popen of host k's worker (its nanny leads the session)."""
        return self.procs[1 + k]

    def registered(self, k):
        what, log = self.logs[1 + k]
        log.seek(0)
        return "Registered to" in log.read()

    def __exit__(self, kind, value, tb):
        if kind is SystemExit:
            for name, log in self.logs:
                log.seek(0)
                print(f"--- {name}:\n{log.read()[-1500:]}", file=sys.stderr)
        for proc in reversed(self.procs):
            end_group(proc)
        # Every process in a host's namespace is one this check started (the nanny spawns its
        # worker as a plain Python, so no name tells them apart): none may be left.
        for host in self.hosts:
            wait_for(lambda: not pids_in(host), 10, f"no process left on {host} (dask)")
        return False


def dask(parlab, kernel_file, out):
    hosts = sim_hosts()[:2]
    t0 = time.monotonic()
    with DaskCluster(hosts) as cluster:
        pairs = dask_runs(parlab, kernel_file, out, cluster.address)
    for kernel, (one, across) in sorted(pairs.items()):
        if across is None:
            fail(f"dask: no record of {kernel} across hosts")
        for name, r in (("one host", one), ("across hosts", across)):
            if r["status"] != "ok":
                fail(f"dask {name}: {kernel} is {r['status']}: {(r.get('reason') or r['validation']['detail'])[:600]}")
        for field in ("hits", "checksum"):
            if one.get(field) != across.get(field):
                fail(f"dask: {kernel}'s {field} is {across.get(field)!r} across hosts, {one.get(field)!r} on one")
        got = (one["metrics"].get("worker_hosts"), across["metrics"].get("worker_hosts"))
        if got != (1, 2):
            fail(f"dask: {kernel}'s workers were on {got[0]} host(s) on one host and {got[1]} across, not 1 and 2")
    print(f"dask.distributed across sim0 and sim1: " +
          "; ".join(f"{k} checksum {one['checksum']!r} as on one host, {across['time_s']['median'] * 1e3:.1f} ms "
                    f"against {one['time_s']['median'] * 1e3:.1f} ms" for k, (one, across) in sorted(pairs.items())) +
          f"; {time.monotonic() - t0:.1f} s")
    dask_host_lost(parlab, hosts, out)


def cpu_s(ns):
    """CPU seconds of the processes in host namespace `ns` (utime + stime): the Dask worker and
    its nanny, which are all that run there."""
    total = 0
    for pid in pids_in(ns):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def dask_host_lost(parlab, hosts, out):
    """sim1's worker and nanny killed once its tasks run: the record fails naming sim1, the run
    goes on to its end and exits 1, and nothing of the cluster is left."""
    t0 = time.monotonic()
    where = os.path.join(out, "host-lost")
    with DaskCluster(hosts) as cluster:
        wait_for(lambda: cluster.registered(1), 120, "the worker on sim1 to register")
        base = cpu_s(hosts[1])
        cmd = [SIM, "exec", "sim0", parlab, "run", "-k", "pi", "-b", "py-dask-distributed", "-t", "2", "-n", "2^21",
               "-r", "3", "--no-ceilings", "--no-report", "-q", "--timeout", "240", "--out", where]
        proc = subprocess.Popen(cmd, env={**os.environ, "PARLAB_DASK_SCHEDULER": cluster.address},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            # Its tasks running: half a second of CPU past what starting up took.
            wait_for(lambda: proc.poll() is not None or cpu_s(hosts[1]) - base > 0.5, 120, "sim1's worker to compute")
            if proc.poll() is not None:
                fail(f"dask host lost: parlab ended ({proc.returncode}) before sim1's worker computed: "
                     f"{proc.stderr.read()[-1500:]}")
            end_group(cluster.worker(1))
            _, err = proc.communicate(timeout=300)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    if proc.returncode != 1:
        fail(f"dask host lost: parlab exited {proc.returncode}, not 1: {err[-1500:]}")
    (r,) = records(where)
    if r["status"] != "error" or "lost host sim1" not in r.get("reason", ""):
        fail(f"dask host lost: the record is {r['status']}: {r.get('reason', '')[:600]}")
    print(f"dask.distributed, sim1's worker killed mid-measurement: {r['status']}, \"{r['reason'][:160]}\"; "
          f"{time.monotonic() - t0:.1f} s")



if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "identity":
        identity(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "delay":
        delay(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), float(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) == 5 and sys.argv[1] == "dask":
        dask(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "faults":
        faults(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
