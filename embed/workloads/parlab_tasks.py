"""pi as a bag of tasks: the split every task-based Python model shares, the task body, how a
worker outside this interpreter gets parlab's modules, and the ThreadPoolExecutor baseline.

The task-based models (a ThreadPoolExecutor, a process pool, dask.delayed, a dask.distributed
cluster) all count the canonical pi stream cut into the same tasks, so two of their figures
differ only in what launches the tasks. Each task counts a contiguous range of points with
parlab_philox.hits_points; the hits add up to the canonical count of [0, samples) whichever
worker ran which task, since the stream is keyed by point index.

Every runner has the shape parlab's C++ side drives (embed/model_workloads.cpp): run() -> hits,
stats() -> {name: number} (recorded as the record's metrics), close() (idempotent; joins or shuts
down every thread and process the runner started, also after a failed run).
"""

import os
import shlex
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import parlab_philox

try:
    from parlab import accounted
except ImportError:  # a worker process, or outside parlab's interpreter: nothing is accounted
    def accounted(items, fn, *args):
        return fn(*args)

# Points per task: about 25 ms of pure-Python pi (3e5 points/s on one core of the 2-core
# machine), so at the largest sizes a task dwarfs any scheduler's launch cost, while the smallest
# sizes (one task per worker, a few hundred points each) show that cost bare.
TASK_SAMPLES = 1 << 13


# Points per task when the body is one parlab.pi call (GIL released): about a millisecond of the
# C++ kernel, as parlab_threads.CALL_SAMPLES, so the sizes where launching a task costs more than
# counting its points are within reach of the sweep.
PARLAB_TASK_SAMPLES = 1 << 21


def task_count(samples, workers, task_samples=TASK_SAMPLES):
    """Tasks for `samples` points on `workers` workers: about one per `task_samples` points,
    rounded up to a multiple of the workers so each gets the same share (an odd task out would
    leave the others idle, and that wait would be counted as overhead), never more than there are
    points (no empty tasks), at least one."""
    per_worker = max(1, -(-samples // (task_samples * workers)))
    return max(1, min(per_worker * workers, samples))


def task_ranges(samples, workers, task_samples=TASK_SAMPLES):
    """The [begin, end) ranges of the tasks, in stream order (parlab_philox.split)."""
    t = task_count(samples, workers, task_samples)
    return [(parlab_philox.split(samples, t, i), parlab_philox.split(samples, t, i + 1)) for i in range(t)]


def count_task(seed, begin, end):
    """The task body every model runs: (hits, worker id, seconds spent counting). The worker id
    is (pid, thread id), so the accounting sees which worker a task ran on in any model."""
    t0 = time.perf_counter()
    # One chunk of the thread's worker where a pool of this process accounts them (ThreadPoolTasks).
    hits = accounted(end - begin, parlab_philox.hits_points, seed, begin, end)
    return hits, (os.getpid(), threading.get_ident()), time.perf_counter() - t0


def count_task_parlab(seed, begin, end):
    """The same task with parlab.pi as its body: the C++ kernel with the GIL released, so tasks
    on threads run in parallel and what the model adds is its launch cost. Only in parlab's own
    interpreter, where the `parlab` module is built in; the call accounts itself as a chunk on a
    worker of an accounted pool (embed/module.cpp)."""
    import parlab
    t0 = time.perf_counter()
    hits = parlab.pi(end - begin, seed, begin, True)
    return hits, (os.getpid(), threading.get_ident()), time.perf_counter() - t0


def task_body(kind):
    """(body, points per task) of a kind: "...-parlab" kinds count with parlab.pi."""
    if kind.endswith("-parlab"):
        return count_task_parlab, PARLAB_TASK_SAMPLES
    return count_task, TASK_SAMPLES


def empty_task():
    """A task that does nothing: its round trip is a model's launch, pickling and return cost."""
    return os.getpid()


class TaskAccount:
    """Where the workers' time went, summed over every run.

    A model with W workers running for `wall` seconds has W * wall seconds of worker time; the
    task bodies used `busy` of it. The rest - launching, pickling, sending, scheduling, and waiting
    for the last task - is overhead, reported per task. With the GIL held by pure-Python bodies,
    a thread waiting for the GIL is inside a body, so this is launch overhead only; what the GIL
    costs shows up as the missing speedup instead."""

    def __init__(self, workers):
        self.workers = workers
        self.runs = 0
        self.tasks = 0
        self.wall_s = 0.0
        self.busy_s = 0.0
        self.seen_workers = set()

    def add(self, wall_s, results):
        self.runs += 1
        self.tasks += len(results)
        self.wall_s += wall_s
        self.busy_s += sum(r[2] for r in results)
        self.seen_workers.update(r[1] for r in results)
        return sum(r[0] for r in results)

    def stats(self):
        if self.runs == 0:
            return {}
        idle = self.workers * self.wall_s - self.busy_s
        return {"tasks": self.tasks / self.runs,
                "per_task_overhead_s": idle / self.tasks,
                "busy_share": self.busy_s / (self.workers * self.wall_s) if self.wall_s > 0 else 0.0,
                "workers": float(self.workers),
                "workers_used": float(len(self.seen_workers))}


def median_roundtrip(submit_and_wait, n=20):
    """Median seconds of n round trips of empty_task through a model (measured after start-up)."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        submit_and_wait()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


# ---------------------------------------------------------------- workers in other processes
# A spawned process or a Dask worker is a plain Python: parlab's workload modules are compiled
# into the parlab binary (embed/sources.cpp), not files on its sys.path. The bootstrap below,
# run in each worker with exec, installs the same embedded text there through the same import hook
# (parlab_finder, executed from its text, since nothing can be imported before it is there), so
# `count_task` pickled by reference (module parlab_tasks) imports in the worker exactly as here.
# exec is a builtin, so it pickles by reference and needs nothing installed first.
WORKER_BOOTSTRAP = r'''
finder = {}
exec(compile(sources["parlab_finder"][1], sources["parlab_finder"][0], "exec"), finder)
finder["install"](sources)
import parlab_tasks
if barrier is not None:
    barrier.wait(timeout)
# Named once it can take parlab's tasks: `ps` tells a parlab worker from any Python, and a test
# that kills one waits for the name (a worker killed while starting stalls its pool's start-up
# for its whole timeout, which is not what such a test means to measure).
try:
    import os
    with open(f"/proc/{os.getpid()}/comm", "w") as comm:
        comm.write("parlab-worker")
except OSError:
    pass
'''


def worker_sources(names=("parlab_finder", "parlab_philox", "parlab_tasks")):
    """{module: (filename, text)} of the modules a worker needs, taken from the import hook
    parlab installed in this interpreter (embed/sources.cpp), or from the files when this module
    was imported from a source tree (tests in a plain Python)."""
    import sys
    for finder in sys.meta_path:
        if type(finder).__name__ == "ParlabEmbeddedFinder":
            return {n: finder.sources[n] for n in names}
    out = {}
    for n in names:
        path = sys.modules[n].__file__ if n in sys.modules else None
        if path is None:
            __import__(n)
            path = sys.modules[n].__file__
        with open(path) as f:
            out[n] = (path, f.read())
    return out


def worker_python():
    """The Python executable a spawned worker runs. In parlab's embedded interpreter
    sys.executable is the interpreter parlab derived sys.prefix from (its configured python3, or
    the virtual environment's bin/python), not the parlab binary; should it ever name the binary
    itself, spawning it would start parlab, so the base interpreter is used instead."""
    import sys
    exe = sys.executable
    try:
        is_self = bool(exe) and os.path.samefile(exe, "/proc/self/exe")
    except OSError:
        is_self = False
    if not exe or is_self:
        exe = getattr(sys, "_base_executable", "") or os.path.join(
            sys.base_exec_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    if not os.access(exe, os.X_OK):
        raise RuntimeError(f"no Python executable to spawn workers with (tried {exe!r})")
    return exe


class WorkerLauncher:
    """The executable multiprocessing spawns workers with while this object is open: a two-line
    shell script that ignores SIGINT and execs worker_python().

    Ctrl-C sends SIGINT to the whole foreground process group, workers included. parlab owns its
    workers: it stops between repetitions and shuts them down itself, so a worker must not die of
    the signal first - above all while it is still starting up, where a KeyboardInterrupt leaves a
    process pool broken or a Dask cluster waiting for a worker that never comes. An ignored signal
    stays ignored across exec, and Python then installs no KeyboardInterrupt handler, so a worker
    started through the script never sees Ctrl-C, from its first instruction to its last,
    restarted Dask workers included. (Blocking SIGINT in the spawning thread would do the same,
    but Dask spawns from threads of its own.)

    multiprocessing's executable is process-wide: close() puts the previous one back."""

    def __init__(self):
        from multiprocessing import spawn
        python = worker_python()
        self._previous = spawn.get_executable()
        self._dir = tempfile.mkdtemp(prefix="parlab-workers-")
        self.path = os.path.join(self._dir, "python")
        with open(self.path, "w") as f:
            f.write(f"#!/bin/sh\ntrap '' INT\nexec {shlex.quote(python)} \"$@\"\n")
        os.chmod(self.path, 0o755)
        spawn.set_executable(self.path)

    def close(self):
        from multiprocessing import spawn
        if self._dir is None:
            return
        if spawn.get_executable() == self.path:
            spawn.set_executable(self._previous)
        shutil.rmtree(self._dir, ignore_errors=True)
        self._dir = None


# ---------------------------------------------------------------- the thread-pool baseline
class ThreadPoolTasks:
    """The same tasks submitted to a ThreadPoolExecutor: the baseline dask.delayed is measured
    against (pure-Python bodies, so GIL-bound: the point is the launch cost per task)."""

    def __init__(self, seed, samples, workers, body=count_task, task_samples=TASK_SAMPLES):
        self.seed, self.samples, self.workers, self.body = seed, samples, workers, body
        self.ranges = task_ranges(samples, workers, task_samples)
        self.account = TaskAccount(workers)
        t0 = time.perf_counter()
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="parlab-tasks")
        # Start every worker thread now, outside the timed region, each worker i of the per-worker
        # accounting (imported here: a worker process has no parlab_team, and needs none).
        from parlab_team import enrol
        enrol(self.pool, workers)
        self.startup_s = time.perf_counter() - t0
        self.roundtrip_s = median_roundtrip(lambda: self.pool.submit(empty_task).result())

    def run(self):
        t0 = time.perf_counter()
        futures = [self.pool.submit(self.body, self.seed, b, e) for b, e in self.ranges]
        results = [f.result() for f in futures]
        return self.account.add(time.perf_counter() - t0, results)

    def stats(self):
        return dict(self.account.stats(), startup_s=self.startup_s, roundtrip_s=self.roundtrip_s)

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)
