"""pi with Dask: dask.delayed on the threaded scheduler, and a dask.distributed cluster.

Both run the tasks of parlab_tasks, so beside parlab_tasks.ThreadPoolTasks (the same split on a
ThreadPoolExecutor) the only difference is what launches a task: Dask builds a task graph of
delayed calls, hashes their keys and schedules them; the thread pool just queues them.

dask.distributed is the Python way across machines. Here it starts a LocalCluster of worker
processes (one single-threaded worker per requested worker, each its own Python with its own
GIL); with PARLAB_DASK_SCHEDULER=tcp://host:8786 the very same code connects to a running
scheduler instead and uses its workers, which get parlab's modules the way local ones do
(parlab_tasks.WORKER_BOOTSTRAP). Cluster start-up is measured apart from the compute.
"""

import functools
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import parlab_tasks

# How long to wait for a cluster's workers to come up (spawning a Python and importing
# distributed takes seconds on a busy machine) before calling the start a failure.
STARTUP_TIMEOUT_S = 120
# How long a host whose workers all left the cluster may take to have one back (its nanny
# restarting a worker that died) before the measurement counts the host as lost.
HOST_GRACE_S = 10
SCHEDULER_ENV = "PARLAB_DASK_SCHEDULER"


def require(unavailable, distributed):
    """Raises `unavailable` with the reason when Dask (or dask.distributed) cannot be imported."""
    try:
        import dask  # noqa: F401
    except ImportError as e:
        raise unavailable(f"dask not importable by the embedded interpreter (Dask): {e}") from e
    if distributed:
        try:
            import distributed as _  # noqa: F401
        except ImportError as e:
            raise unavailable(f"distributed not importable by the embedded interpreter (dask.distributed): {e}") from e


class DaskDelayed:
    """The talk's experiment: one dask.delayed call per task, computed by the threaded scheduler
    on a pool of `workers` threads: pure-Python bodies (GIL-bound like the thread pool), or
    parlab.pi calls that release the GIL (parlab_tasks.count_task_parlab)."""

    def __init__(self, seed, samples, workers, body=parlab_tasks.count_task, task_samples=parlab_tasks.TASK_SAMPLES):
        import dask
        self.dask = dask
        self.seed, self.samples, self.workers, self.body = seed, samples, workers, body
        self.ranges = parlab_tasks.task_ranges(samples, workers, task_samples)
        self.account = parlab_tasks.TaskAccount(workers)
        t0 = time.perf_counter()
        # parlab's own pool, handed to the scheduler: its threads start here, outside the timed
        # region, and close() shuts them down (the scheduler's default pool would live on).
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="parlab-dask")
        barrier = threading.Barrier(workers)
        list(self.pool.map(lambda _: barrier.wait(), range(workers)))
        self.startup_s = time.perf_counter() - t0
        self.roundtrip_s = parlab_tasks.median_roundtrip(
            lambda: self._compute([self.dask.delayed(parlab_tasks.empty_task, pure=False)()]))

    def _compute(self, parts):
        return self.dask.compute(*parts, scheduler="threads", pool=self.pool)

    def run(self):
        t0 = time.perf_counter()
        delayed_task = self.dask.delayed(self.body, pure=False)
        results = self._compute([delayed_task(self.seed, b, e) for b, e in self.ranges])
        return self.account.add(time.perf_counter() - t0, results)

    def stats(self):
        return dict(self.account.stats(), startup_s=self.startup_s, roundtrip_s=self.roundtrip_s)

    def close(self):
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


class DaskDistributed:
    """The same tasks on a dask.distributed cluster: a LocalCluster of `workers` worker processes
    started here, or the cluster at $PARLAB_DASK_SCHEDULER, whose worker threads must number
    `workers` (checked: the accounting divides by it). `sources`: the modules its workers get
    (parlab_tasks.worker_sources's), when a runner needs more of them (a person's kernel file)."""

    def __init__(self, seed, samples, workers, address=None, sources=None):
        from dask.distributed import Client, LocalCluster
        self.seed, self.samples, self.workers = seed, samples, workers
        self.ranges = parlab_tasks.task_ranges(samples, workers)
        self.account = parlab_tasks.TaskAccount(workers)
        self.cluster = self.client = self.launcher = None
        address = address or os.environ.get(SCHEDULER_ENV) or None
        self.address = address or "local"
        t0 = time.perf_counter()
        try:
            if address:
                self.client = Client(address, timeout=STARTUP_TIMEOUT_S)
            else:
                # The nannies spawn their workers (and restart them) with multiprocessing's spawn
                # method, through the launcher: the Python parlab_tasks.worker_python() names,
                # out of Ctrl-C's reach.
                self.launcher = parlab_tasks.WorkerLauncher()
                # No dashboard; the scheduler's HTTP routes (health, metrics) still start, so on
                # a free port rather than 8787, which another cluster may hold.
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                                            silence_logs=logging.ERROR, timeout=STARTUP_TIMEOUT_S)
                self.client = Client(self.cluster, timeout=STARTUP_TIMEOUT_S)
            self.client.wait_for_workers(workers, timeout=STARTUP_TIMEOUT_S)
            threads = sum(self.client.nthreads().values())
            if threads != workers:
                raise RuntimeError(f"the Dask cluster at {self.address} offers {threads} worker threads, "
                                   f"not the {workers} requested")
            # How many machines its workers are on, as the scheduler knows them: what a record
            # across hosts says of where it ran (metrics.worker_hosts; 1 for a LocalCluster).
            self.start_hosts = self.hosts_now()
            self.worker_hosts = len(self.start_hosts)
            # The hosts' names as they call themselves, for a failure to name the one it lost.
            import socket
            known = self.client.scheduler_info()["workers"]
            self.host_names = {known[addr].get("host"): name
                               for addr, name in self.client.run(socket.gethostname).items() if addr in known}
            # Every worker gets parlab's modules (and ignores Ctrl-C: parlab shuts it down),
            # also one that joins later: a worker the nanny restarts after it died must still
            # import the tasks it is given to rerun.
            self.client.register_worker_callbacks(functools.partial(
                exec, parlab_tasks.WORKER_BOOTSTRAP,
                {"sources": sources or parlab_tasks.worker_sources(), "barrier": None, "timeout": 0}))
            self.startup_s = time.perf_counter() - t0
            self.roundtrip_s = parlab_tasks.median_roundtrip(
                lambda: self.client.submit(parlab_tasks.empty_task, pure=False).result())
        except BaseException:
            self.close()
            raise

    def hosts_now(self):
        """The hosts the cluster's workers are on now, as the scheduler knows them (addresses)."""
        return {w.get("host") for w in self.client.scheduler_info()["workers"].values()}

    def check_hosts(self):
        """Raises, naming it, where a host the cluster had at the start has had no worker for
        HOST_GRACE_S: its tasks ran again on the other hosts' workers (Dask reruns a lost worker's
        tasks), so the answer may be right but the time is not that of the workers the record
        counts. A worker its nanny restarts on the same host is no loss."""
        deadline = time.monotonic() + HOST_GRACE_S
        missing = self.start_hosts - self.hosts_now()
        while missing and time.monotonic() < deadline:
            time.sleep(0.2)
            missing = self.start_hosts - self.hosts_now()
        if missing:
            names = ", ".join(sorted(f"{self.host_names.get(h, h)} ({h})" for h in missing))
            raise RuntimeError(f"lost host {names}: its Dask workers left the cluster at {self.address} during the "
                               f"measurement and none came back within {HOST_GRACE_S} s; the other hosts ran its "
                               f"tasks again, so the time is not that of {self.workers} workers")

    def gather(self, futures):
        """The tasks' results; where they fail, a host the cluster lost meanwhile is named."""
        try:
            return self.client.gather(futures)
        except Exception:
            self.client.cancel(futures)
            self.check_hosts()  # the task's own error where no host was lost
            raise
        except BaseException:
            self.client.cancel(futures)
            raise

    def run(self):
        t0 = time.perf_counter()
        n = len(self.ranges)
        futures = self.client.map(parlab_tasks.count_task, [self.seed] * n, [b for b, _ in self.ranges],
                                  [e for _, e in self.ranges], pure=False)
        results = self.gather(futures)
        return self.account.add(time.perf_counter() - t0, results)

    def stats(self):
        # After the timed runs (a scheduler round trip each, not in their time): a host lost
        # meanwhile fails the record.
        self.check_hosts()
        return dict(self.account.stats(), startup_s=self.startup_s, roundtrip_s=self.roundtrip_s,
                    worker_hosts=self.worker_hosts)

    def close(self):
        """Closes the client, and the LocalCluster with every worker process when it started one
        (a cluster at an address is left running: it is not parlab's). Idempotent."""
        client, self.client = self.client, None
        cluster, self.cluster = self.cluster, None
        launcher, self.launcher = self.launcher, None
        try:
            if client is not None:
                client.close(timeout=STARTUP_TIMEOUT_S)
        finally:
            try:
                if cluster is not None:
                    cluster.close(timeout=STARTUP_TIMEOUT_S)
            finally:
                if launcher is not None:
                    launcher.close()
