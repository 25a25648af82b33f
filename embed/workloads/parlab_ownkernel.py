"""A person's own kernel from a file: `parlab run -k path/to/file.py` (or `path/to/file.py:name`).

The file is a module defining
  chunk(lo, hi, seed)  the work for items lo <= i < hi: a number, or a tuple of numbers;
  combine(partials)    optional: the partials in index order -> the result (default: their sum,
                       in index order, element by element for tuples);
  WORK                 optional: {"bytes": b, "flops": f} per item, so a roof applies;
  CHUNK                optional: items per chunk (default: the size cut into 64 chunks);
  TOLERANCE            optional: the relative difference allowed against the one-worker result
                       (default 0: bit for bit).
`:name` names the chunk function when it is not called `chunk`.

The chunks depend on the size alone, never on the workers, so every executor computes the same
partials and hands them to combine in the same order: the result is the one-worker result bit for
bit wherever combine is order-fixed. A kernel whose results differ between runs or from that
reference races (or depends on the schedule), and its record says so with the spread.

Nothing of the file runs at `parlab list`, nor when the command line is checked: check() reads it
with ast. The module is loaded from the named path only (never from sys.path), in parlab's
embedded interpreter or in the workers it spawns, with the run's directory as working directory.

Every runner has the shape parlab's C++ side drives (embed/own_kernel_workloads.cpp):
run() -> the combined result as a tuple of floats, verdict() -> how every run's result compares with
the one-worker result, declared() -> WORK, stats() -> {name: number}, close().
"""

import ast
import hashlib
import importlib.util
import math
import os
import re
import struct
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from numbers import Real

try:
    from parlab import accounted
except ImportError:  # a worker process, or outside parlab's interpreter: nothing is accounted
    def accounted(items, fn, *args):
        return fn(*args)

# Chunks a size is cut into when the module sets no CHUNK: enough for 16 workers to balance,
# few enough that a chunk's call costs nothing beside its work.
DEFAULT_CHUNKS = 64
RUN_DIR_ENV = "PARLAB_RUN_DIR"


class KernelError(Exception):
    """The kernel's own fault: it failed to import, a chunk raised or returned what is not a
    number. The message names the file and the line."""


class NotInSubinterpreters(Exception):
    """The kernel imports a C extension that refuses to load in an isolated sub-interpreter
    (single-phase initialisation): not the kernel's fault, the backend cannot run it."""


# CPython's words when an isolated sub-interpreter refuses a single-phase extension module.
_SINGLE_PHASE = re.compile(r"module (\S+) does not support loading in subinterpreters")


def _refused_extension(exc):
    """The module a sub-interpreter refused to load somewhere in exc's chain, or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ImportError):
            m = _SINGLE_PHASE.search(str(exc))
            if m:
                return m.group(1)
        exc = exc.__cause__ or exc.__context__
    return None


def _raise_if_refused(exc, path):
    module = _refused_extension(exc)
    if module is not None:
        raise NotInSubinterpreters(
            f"{path} imports {module}, a C extension that does not support sub-interpreters "
            f"(single-phase initialisation){_where(exc, path)}; run it on threads or processes") from None


def file_sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check(path, name="chunk"):
    """(why the file cannot be a kernel, or "", its sha256 or ""): the path exists and is a file,
    it parses, and it defines a top-level function `name`. Read with ast: nothing of it runs."""
    if not os.path.exists(path):
        return f"kernel file '{path}' does not exist (give the path of a .py file defining chunk(lo, hi, seed))", ""
    if not os.path.isfile(path):
        return f"kernel file '{path}' is not a file", ""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"kernel file '{path}' cannot be read: {e.strerror}", ""
    sha = hashlib.sha256(data).hexdigest()
    try:
        tree = ast.parse(data, filename=path)
    except SyntaxError as e:
        return (f"kernel file '{path}' does not parse: line {e.lineno}: {e.msg} "
                f"(fix the syntax; nothing was run)"), sha
    except ValueError as e:  # null bytes
        return f"kernel file '{path}' does not parse: {e}", sha
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            if isinstance(node, ast.AsyncFunctionDef):
                return f"kernel file '{path}': {name} (line {node.lineno}) is async; it must be a plain def", sha
            return "", sha
    return (f"kernel file '{path}' defines no function {name}() at its top level (read with ast, not run): "
            f"add `def {name}(lo, hi, seed):` returning a number or a tuple of numbers"), sha


def _where(exc, path):
    """' (at FILE, line N, in FUNC)' for the innermost frame of the traceback in the kernel's file."""
    if isinstance(exc, SyntaxError) and exc.filename == path:
        return f" (at {path}, line {exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    if not frames:
        return ""
    f = frames[-1]
    return f" (at {path}, line {f.lineno}, in {f.name})"


def _describe(exc, path):
    return f"{type(exc).__name__}: {exc}{_where(exc, path)}"


class Kernel:
    """The module loaded from `path`, its chunk function, combine and declarations."""

    def __init__(self, path, name="chunk"):
        self.path, self.name = path, name
        self.sha256 = file_sha256(path)
        module_name = f"parlab_own_{self.sha256[:16]}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise KernelError(f"{path}: not loadable as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # dataclasses and pickling by reference look it up
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(module_name, None)
            _raise_if_refused(e, path)
            raise KernelError(f"importing the kernel failed: {_describe(e, path)}") from None
        self.module = module
        fn = getattr(module, name, None)
        if not callable(fn):
            raise KernelError(f"{path}: {name} is not a function once imported")
        self.fn = fn
        self.line = getattr(getattr(fn, "__code__", None), "co_firstlineno", 0)
        combine = getattr(module, "combine", None)
        self.combine_fn = combine if callable(combine) else None
        self.tolerance = _number_or(module, "TOLERANCE", 0.0, path)
        chunk = getattr(module, "CHUNK", None)
        if chunk is not None and (not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1):
            raise KernelError(f"{path}: CHUNK must be a positive int, not {chunk!r}")
        self.chunk_items = chunk
        self.work = _work(module, path)

    def ranges(self, n):
        """The chunks of [0, n): a function of n (and CHUNK) alone, never of the workers."""
        step = self.chunk_items or max(1, -(-n // DEFAULT_CHUNKS))
        return [(lo, min(lo + step, n)) for lo in range(0, n, step)]

    def call(self, lo, hi, seed):
        """chunk(lo, hi, seed), checked: a number or a tuple of numbers, else KernelError."""
        try:
            p = self.fn(lo, hi, seed)
        except Exception as e:
            _raise_if_refused(e, self.path)
            raise KernelError(f"{self.name}({lo}, {hi}, seed) raised {_describe(e, self.path)}") from None
        return _checked(p, f"{self.name}({lo}, {hi}, seed)", self.path, self.line)

    def combine(self, partials):
        if self.combine_fn is None:
            return _sum(partials)
        try:
            r = self.combine_fn(list(partials))
        except Exception as e:
            raise KernelError(f"combine(partials) raised {_describe(e, self.path)}") from None
        line = getattr(getattr(self.combine_fn, "__code__", None), "co_firstlineno", 0)
        return _checked(r, "combine(partials)", self.path, line)


def _number_or(module, attr, default, path):
    v = getattr(module, attr, default)
    if isinstance(v, bool) or not isinstance(v, Real) or not v >= 0:
        raise KernelError(f"{path}: {attr} must be a non-negative number, not {v!r}")
    return float(v)


def _work(module, path):
    """WORK as {"bytes": b, "flops": f} per item (both >= 0), or None when the module has none."""
    w = getattr(module, "WORK", None)
    if w is None:
        return None
    if not isinstance(w, dict) or not set(w) <= {"bytes", "flops"} or not w:
        raise KernelError(f"{path}: WORK must be a dict of per-item 'bytes' and/or 'flops', not {w!r}")
    out = {}
    for k in ("bytes", "flops"):
        v = w.get(k, 0)
        if isinstance(v, bool) or not isinstance(v, Real) or not (v >= 0 and math.isfinite(v)):
            raise KernelError(f"{path}: WORK[{k!r}] must be a non-negative number, not {v!r}")
        out[k] = float(v)
    return out


def _checked(p, what, path, line):
    ok = (isinstance(p, Real) and not isinstance(p, bool)) or (
        isinstance(p, tuple) and p and all(isinstance(x, Real) and not isinstance(x, bool) for x in p))
    if not ok:
        shown = repr(p)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        raise KernelError(f"{what} returned {type(p).__name__} {shown}, not a number or a tuple of numbers "
                          f"(defined at {path}, line {line})")
    return p


def _sum(partials):
    """The partials' sum in index order (element by element for tuples); 0 for no partials."""
    if not partials:
        return 0
    total = partials[0]
    for p in partials[1:]:
        if isinstance(total, tuple) != isinstance(p, tuple) or (isinstance(p, tuple) and len(p) != len(total)):
            raise KernelError("chunk returned partials of different shapes (a number here, a tuple there, "
                              "or tuples of different lengths): the default combine cannot add them")
        total = tuple(a + b for a, b in zip(total, p)) if isinstance(p, tuple) else total + p
    return total


def as_floats(result):
    return tuple(float(x) for x in (result if isinstance(result, tuple) else (result,)))


def same(a, b, tolerance=0.0):
    """Whether two results agree: bit for bit (NaN with NaN, -0.0 apart from 0.0) at tolerance 0,
    else within `tolerance` relative to the larger magnitude."""
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if tolerance > 0:
            fx, fy = float(x), float(y)
            if not (fx == fy or abs(fx - fy) <= tolerance * max(abs(fx), abs(fy))):
                return False
        elif isinstance(x, float) or isinstance(y, float):
            if struct.pack("<d", float(x)) != struct.pack("<d", float(y)):
                return False
        elif x != y:
            return False
    return True


# ---------------------------------------------------------------- workers in other processes
_loaded = {}


def kernel_at(path, name):
    """The kernel loaded once per process (a worker's cache), checked against nothing: the parent
    checked the file's hash before it started the workers."""
    key = (path, name)
    k = _loaded.get(key)
    if k is None:
        k = _loaded[key] = Kernel(path, name)
    return k


def run_chunk(path, name, lo, hi, seed):
    """A task in another process: (partial, worker id, seconds in the chunk)."""
    k = kernel_at(path, name)
    t0 = time.perf_counter()
    p = k.call(lo, hi, seed)
    return p, (os.getpid(), threading.get_ident()), time.perf_counter() - t0


def _check_unchanged(path, sha256, now):
    if sha256 and now != sha256:
        raise KernelError(f"{path} was edited after the run checked it (sha256 {sha256[:12]}..., now "
                          f"{now[:12]}...): start a new run")


def sub_kernel(path, name, sha256):
    """The kernel loaded in a sub-interpreter (each has modules of its own), refused when the file
    it loaded is no longer the one the run checked: the chunks run the checked code only."""
    k = kernel_at(path, name)
    _check_unchanged(path, sha256, k.sha256)
    return k


def sub_chunk(kernel, lo, hi, seed):
    """A chunk in a sub-interpreter: its checked partial as pickle bytes, since no object crosses
    interpreters; the main interpreter loads it back (SubinterpChunks.finish)."""
    import pickle
    return pickle.dumps(kernel.call(lo, hi, seed), protocol=pickle.HIGHEST_PROTOCOL)


# ---------------------------------------------------------------- runners
class _Runner:
    def __init__(self, kernel, seed, n, workers):
        self.kernel, self.seed, self.n, self.workers = kernel, seed, n, workers
        self.ranges = kernel.ranges(n)
        self._reference = None
        self.runs = 0
        self.seen = {}  # each distinct result's key -> [result, runs that gave it]

    def reference(self):
        """The one-worker result: every chunk in index order on this thread, then combine."""
        if self._reference is None:
            self._reference = self.kernel.combine([self.kernel.call(lo, hi, self.seed) for lo, hi in self.ranges])
        return self._reference

    def _finish(self, partials):
        result = self.kernel.combine(partials)
        key = _key(result)
        entry = self.seen.get(key)
        if entry is None:
            self.seen[key] = [result, 1]
        else:
            entry[1] += 1
        self.runs += 1
        return as_floats(result)

    def verdict(self):
        """How the runs' results compare with the one-worker result (computed here, after the
        timed runs): runs, runs that differ, distinct results, the spread of the first value,
        the reference and the first differing result, as floats."""
        ref = self.reference()
        tol = self.kernel.tolerance
        differing = sum(c for r, c in self.seen.values() if not same(r, ref, tol))
        firsts = [as_floats(r)[0] for r, _ in self.seen.values()]
        odd = [r for r, _ in self.seen.values() if not same(r, ref, tol)]
        return {"runs": self.runs, "differing": differing, "distinct": len(self.seen),
                "min": min(firsts) if firsts else 0.0, "max": max(firsts) if firsts else 0.0,
                "reference": as_floats(ref), "differs": as_floats(odd[0]) if odd else (),
                "tolerance": tol}

    def declared(self):
        """What the module declares: (bytes per item, flops per item) or None without WORK."""
        w = self.kernel.work
        return None if w is None else (w["bytes"], w["flops"])

    def stats(self):
        return {}

    def close(self):
        pass


def _key(result):
    return tuple((type(x).__name__, struct.pack("<d", x) if isinstance(x, float) else x)
                 for x in (result if isinstance(result, tuple) else (result,)))


class ThreadChunks(_Runner):
    """A team of Python threads (parlab_team.ThreadTeam: with the GIL, or without it on a
    free-threaded build) taking chunks from a shared counter, each chunk one accounted chunk of
    its worker (parlab.accounted), its partial stored at its index."""

    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        from parlab_team import ThreadTeam
        self.team = ThreadTeam(workers)

    def _work(self, state):
        k, seed, ranges, partials = self.kernel, self.seed, self.ranges, state["partials"]
        lock = state["lock"]
        while True:
            with lock:
                i = state["next"]
                if i >= len(ranges) or state["error"] is not None:
                    return
                state["next"] = i + 1
            lo, hi = ranges[i]
            try:
                partials[i] = accounted(hi - lo, k.call, lo, hi, seed)
            except BaseException as e:
                with lock:
                    if state["error"] is None:
                        state["error"] = e
                return

    def run(self):
        state = {"next": 0, "lock": threading.Lock(), "error": None, "partials": [None] * len(self.ranges)}
        self.team.run(self._work, [(state,)] * self.workers)
        if state["error"] is not None:
            raise state["error"]
        return self._finish(state["partials"])

    def stats(self):
        return self.team.stats()

    def close(self):
        self.team.close()


class _Tasks(_Runner):
    """The task-based models: one task per chunk, partials back in index order."""

    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        import parlab_tasks
        self.account = parlab_tasks.TaskAccount(workers)

    def _add(self, wall, results):
        self.account.add(wall, [(0, r[1], r[2]) for r in results])
        return self._finish([r[0] for r in results])

    def stats(self):
        return self.account.stats()


def _local_chunk(kernel, lo, hi, seed):
    t0 = time.perf_counter()
    p = accounted(hi - lo, kernel.call, lo, hi, seed)
    return p, (os.getpid(), threading.get_ident()), time.perf_counter() - t0


class ThreadPoolChunks(_Tasks):
    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        from parlab_team import enrol
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="parlab-own")
        enrol(self.pool, workers)

    def run(self):
        t0 = time.perf_counter()
        futures = [self.pool.submit(_local_chunk, self.kernel, lo, hi, self.seed) for lo, hi in self.ranges]
        return self._add(time.perf_counter() - t0, _gather(futures))

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


def _gather(futures):
    """The futures' results in submission order; on the first failure the rest are cancelled
    and the failure raised, so a failing chunk never leaves others queued behind it."""
    try:
        return [f.result() for f in futures]
    except BaseException:
        for f in futures:
            f.cancel()
        raise


def _sources():
    import parlab_tasks
    return parlab_tasks.worker_sources(("parlab_finder", "parlab_philox", "parlab_tasks", "parlab_ownkernel"))


class ProcessChunks(_Tasks):
    """A ProcessPoolExecutor of spawned workers (parlab_processes' way), each loading the file
    itself from its path (run_chunk), with the run's directory as its working directory."""

    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        import parlab_processes
        import parlab_tasks
        ctx = multiprocessing.get_context("spawn")
        self.pool = self.launcher = None
        try:
            self.launcher = parlab_tasks.WorkerLauncher()
            barrier = ctx.Barrier(workers)
            boot = {"sources": _sources(), "barrier": barrier, "timeout": parlab_processes.STARTUP_TIMEOUT_S}
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=exec,
                                            initargs=(parlab_tasks.WORKER_BOOTSTRAP, boot))
            for f in [self.pool.submit(parlab_tasks.empty_task) for _ in range(workers)]:
                f.result()
        except BaseException:
            self.close()
            raise

    def run(self):
        t0 = time.perf_counter()
        k = self.kernel
        futures = [self.pool.submit(run_chunk, k.path, k.name, lo, hi, self.seed) for lo, hi in self.ranges]
        return self._add(time.perf_counter() - t0, _gather(futures))

    def close(self):
        pool, self.pool = self.pool, None
        launcher, self.launcher = self.launcher, None
        try:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            if launcher is not None:
                launcher.close()


class DaskDelayedChunks(_Tasks):
    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        import dask
        self.dask = dask
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="parlab-own-dask")

    def run(self):
        t0 = time.perf_counter()
        task = self.dask.delayed(_local_chunk, pure=False)
        results = self.dask.compute(*[task(self.kernel, lo, hi, self.seed) for lo, hi in self.ranges],
                                    scheduler="threads", pool=self.pool)
        return self._add(time.perf_counter() - t0, list(results))

    def close(self):
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


class DaskDistributedChunks(_Tasks):
    """parlab_dask.DaskDistributed's cluster, each worker loading the file from its path."""

    def __init__(self, kernel, seed, n, workers):
        super().__init__(kernel, seed, n, workers)
        import parlab_dask
        # The cluster (local, or at $PARLAB_DASK_SCHEDULER) as parlab's own pi starts it; its
        # workers get this module beside parlab's.
        self.cluster = parlab_dask.DaskDistributed(seed, 1, workers, sources=_sources())

    def run(self):
        t0 = time.perf_counter()
        k, client, m = self.kernel, self.cluster.client, len(self.ranges)
        futures = client.map(run_chunk, [k.path] * m, [k.name] * m, [r[0] for r in self.ranges],
                             [r[1] for r in self.ranges], [self.seed] * m, pure=False)
        results = self.cluster.gather(futures)
        return self._add(time.perf_counter() - t0, results)

    def stats(self):
        self.cluster.check_hosts()  # a host lost during the timed runs fails the record
        return dict(super().stats(), worker_hosts=self.cluster.worker_hosts)

    def close(self):
        self.cluster.close()


class SubinterpChunks(_Runner):
    """The main interpreter's half of the sub-interpreter backend: the chunks' ranges for the C++
    team (embed/own_kernel_workloads.cpp), whose threads each load the file in a sub-interpreter
    of their own and return every partial as bytes (sub_chunk); finish() loads them back and
    combines them in index order, as every other runner does."""

    def chunk_ranges(self):
        return list(self.ranges)

    def finish(self, blobs):
        import pickle
        return self._finish([pickle.loads(b) for b in blobs])

    def run(self):
        raise RuntimeError("SubinterpChunks runs its chunks from C++ (chunk_ranges, finish)")


_RUNNERS = {
    "threads": ThreadChunks,
    "thread-pool": ThreadPoolChunks,
    "processes": ProcessChunks,
    "dask-delayed": DaskDelayedChunks,
    "dask-distributed": DaskDistributedChunks,
    "subinterp": SubinterpChunks,
}


def make(kind, path, name, sha256, seed, n, workers, unavailable):
    """A runner of `kind` for the kernel at `path`. The working directory becomes the run's
    ($PARLAB_RUN_DIR, where parlab sets it); a file whose hash is no longer `sha256` (edited
    since the run checked it) is refused."""
    if kind not in _RUNNERS:
        raise ValueError(f"unknown own-kernel runner kind {kind!r}")
    if kind.startswith("dask"):
        import parlab_dask
        parlab_dask.require(unavailable, distributed=kind == "dask-distributed")
    run_dir = os.environ.get(RUN_DIR_ENV)
    if run_dir:
        os.chdir(run_dir)
    _check_unchanged(path, sha256, file_sha256(path))
    return _RUNNERS[kind](kernel_at(path, name), seed, n, workers)
