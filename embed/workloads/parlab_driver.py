"""The entry point parlab's C++ side calls: make(kind, seed, samples, threads, device) returns a
runner with run() -> hits, stats() -> dict and close(). Library backends (NumPy, Numba, CuPy,
PyTorch) are imported only when their runner is made, so a missing one costs nothing until it is asked for."""


class Unavailable(Exception):
    """This runner cannot run here (a missing package, no GPU); the message says why."""


def _need(module_name, what):
    """The module, or Unavailable whose reason starts with the module's name (a reason cut short
    at a narrow terminal still says what is missing). `what` is the library's own name."""
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError as e:  # ModuleNotFoundError, or a broken install
        raise Unavailable(f"{module_name} not importable by the embedded interpreter ({what}): {e}") from e
    except Exception as e:  # a library whose import fails otherwise (a missing shared library)
        raise Unavailable(f"{module_name} not importable by the embedded interpreter ({what}): "
                          f"{type(e).__name__}: {e}") from e


# What make() and make_model() import for each kind before anything runs, in their order.
_NEEDS = {
    "numpy": [("numpy", "NumPy")],
    "numpy-threads": [("numpy", "NumPy")],
    "numba-prange": [("numpy", "NumPy, for Numba"), ("numba", "Numba")],
    "numba-nogil": [("numpy", "NumPy, for Numba"), ("numba", "Numba")],
    "cupy": [("cupy", "CuPy")],
    "torch": [("torch", "PyTorch")],
    "dask-delayed": [("dask", "Dask")],
    "dask-delayed-parlab": [("dask", "Dask")],
    "dask-distributed": [("dask", "Dask"), ("distributed", "dask.distributed")],
}
_probed = {}


def probe(kind):
    """Why a runner of `kind` (make()'s or make_model()'s) cannot run here, or "": the imports it
    would make and, for the GPU libraries, whether they see a CUDA device at all. The answer is
    kept for the interpreter's life, so `parlab list` and a run's plan ask it once per kind."""
    if kind not in _probed:
        _probed[kind] = _probe(kind)
    return _probed[kind]


def _probe(kind):
    try:
        modules = [_need(module, what) for module, what in _NEEDS.get(kind, ())]
        if kind == "cupy":
            try:
                count = modules[0].cuda.runtime.getDeviceCount()
            except Exception as e:  # no driver, or no device: CuPy raises its own CUDARuntimeError
                return f"no CUDA device: CuPy sees none ({type(e).__name__}: {e})"
            if count < 1:
                return "no CUDA device: CuPy sees none"
        if kind == "torch" and not modules[0].cuda.is_available():
            return "no CUDA device: PyTorch sees none (torch.cuda.is_available() is False)"
    except Unavailable as e:
        return str(e)
    return ""


def make(kind, seed, samples, threads, device=0):
    if kind == "pure":
        import parlab_threads
        return parlab_threads.PurePython(seed, samples, threads)
    if kind == "pure-private":
        import parlab_threads
        return parlab_threads.PurePrivate(seed, samples, threads)
    if kind == "parlab-gil-held":
        import parlab_threads
        return parlab_threads.ParlabPi(seed, samples, threads, release_gil=False)
    if kind == "parlab-gil-released":
        import parlab_threads
        return parlab_threads.ParlabPi(seed, samples, threads, release_gil=True)
    if kind == "parlab-call-overhead":
        import parlab_threads
        return parlab_threads.ParlabPi(seed, samples, threads, release_gil=True, call_samples=2, dynamic=False)
    if kind in ("numpy", "numpy-threads"):
        _need("numpy", "NumPy")
        import parlab_numpy
        return parlab_numpy.NumpyPi(seed, samples, threads, threaded=kind == "numpy-threads")
    if kind in ("numba-prange", "numba-nogil"):
        _need("numpy", "NumPy (for Numba)")
        _need("numba", "Numba")
        import parlab_numba
        if kind == "numba-prange":
            return parlab_numba.NumbaPrange(seed, samples, threads, Unavailable)
        return parlab_numba.NumbaNogilThreads(seed, samples, threads)
    if kind == "cupy":
        _need("cupy", "CuPy")
        import parlab_numpy
        return parlab_numpy.CupyPi(seed, samples, device, Unavailable)
    if kind == "torch":
        _need("torch", "PyTorch")
        import parlab_torch
        return parlab_torch.TorchPi(seed, samples, device, Unavailable)
    raise ValueError(f"unknown runner kind {kind!r}")


def make_model(kind, seed, samples, workers, device=0):
    """A task-based runner (parlab_tasks: a thread pool, processes, Dask delayed or distributed):
    run() -> hits, stats() -> {name: number}, close(). Called as make() is (device unused: the
    models run on the CPU)."""
    import parlab_tasks
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    body, task_samples = parlab_tasks.task_body(kind)
    if kind in ("thread-pool", "thread-pool-parlab"):
        return parlab_tasks.ThreadPoolTasks(seed, samples, workers, body, task_samples)
    if kind == "processes":
        import parlab_processes
        return parlab_processes.ProcessPi(seed, samples, workers)
    if kind in ("dask-delayed", "dask-delayed-parlab", "dask-distributed"):
        import parlab_dask
        parlab_dask.require(Unavailable, distributed=kind == "dask-distributed")
        if kind == "dask-distributed":
            return parlab_dask.DaskDistributed(seed, samples, workers)
        return parlab_dask.DaskDelayed(seed, samples, workers, body, task_samples)
    raise ValueError(f"unknown task-model kind {kind!r}")


def make_own(kind, path, name, sha256, seed, n, workers):
    """A runner of a person's own kernel file (parlab_ownkernel): run() -> the result as floats,
    verdict(), declared(), stats(), close(). Its KernelError (the file failed to import) is the
    kernel's fault, not this build's."""
    import parlab_ownkernel
    return parlab_ownkernel.make(kind, path, name, sha256, seed, n, workers, Unavailable)


def check_own(path, name):
    """(why the file is refused or "", its sha256): read with ast, nothing of it run."""
    import parlab_ownkernel
    return parlab_ownkernel.check(path, name)


def make_race(kind, n, threads):
    """A race-lab runner (parlab_races): run() -> counter value, exact() -> the lossless value."""
    if kind == "py_numpy_add_racy":
        _need("numpy", "NumPy")
    import parlab_races
    return parlab_races.make(kind, n, threads)


def make_triad(kind, n, threads, precision, device=0):
    """A STREAM triad runner: run(), arrays() -> (a, b, c) host arrays for C++ to check against
    gold, stats() and close(). precision is "double" or "float"; device is the GPU (CuPy)."""
    np = _need("numpy", "NumPy")
    dtype = np.float64 if precision == "double" else np.float32
    if kind == "cupy":
        _need("cupy", "CuPy")
        import parlab_numpy
        return parlab_numpy.CupyTriad(n, dtype, device, Unavailable)
    if kind == "numpy":
        import parlab_numpy
        return parlab_numpy.NumpyTriad(n, dtype)
    if kind == "numba-prange":
        _need("numba", "Numba")
        import parlab_numba
        return parlab_numba.NumbaTriadPrange(n, threads, dtype, Unavailable)
    raise ValueError(f"runner kind {kind!r} has no triad")
