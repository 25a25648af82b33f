"""The race lab's Python half: lost updates from Python threads.

Runners (made by parlab_driver.make_race): run() -> the counter's final value, exact() -> what it
would be without lost updates.
  py_count_racy       `box.value += 1` on one shared object: a read, an add and a write in
                      bytecode; updates are lost only if the GIL changes hands in between
  py_count_racy_call  the same with a call between the read and the write (`v = box.value;
                      touch(); box.value = v + 1`): a call is where the interpreter may switch
  py_count_locked     the same increment under a threading.Lock: the exact counterpart
  py_numpy_add_racy   every thread adds 1 in place to one shared NumPy array, `reps` times;
                      NumPy releases the GIL inside the add, so the element updates race
"""

import threading

import parlab_philox
from parlab_team import ThreadTeam

NUMPY_REPS = 8


class _Box:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


def _touch():
    pass


class Counter:
    def __init__(self, kind, n, threads):
        self.kind, self.n = kind, n
        self.team = ThreadTeam(threads)
        self.parts = [(parlab_philox.split(n, threads, t), parlab_philox.split(n, threads, t + 1))
                      for t in range(threads)]

    def exact(self):
        return self.n

    def run(self):
        box, lock = _Box(), threading.Lock()
        if self.kind == "py_count_racy":
            def work(b, e):
                for _ in range(e - b):
                    box.value += 1  # RACY BY DESIGN
        elif self.kind == "py_count_racy_call":
            def work(b, e):
                for _ in range(e - b):
                    v = box.value
                    _touch()
                    box.value = v + 1  # RACY BY DESIGN
        else:
            def work(b, e):
                for _ in range(e - b):
                    with lock:
                        box.value += 1
        self.team.run(work, self.parts)
        return box.value

    def stats(self):
        return self.team.stats()

    def close(self):
        self.team.close()


class NumpyAdd:
    def __init__(self, n, threads):
        import numpy as np
        self.np, self.n, self.threads = np, n, threads
        self.a = np.zeros(n, dtype=np.int64)
        self.team = ThreadTeam(threads)

    def exact(self):
        return self.n * self.threads * NUMPY_REPS

    def run(self):
        np, a = self.np, self.a
        a[:] = 0

        def work():
            for _ in range(NUMPY_REPS):
                np.add(a, 1, out=a)  # RACY BY DESIGN: the GIL is released inside the add

        self.team.run(work, [()] * self.threads)
        return int(a.sum())

    def stats(self):
        return self.team.stats()

    def close(self):
        self.team.close()


KINDS = ("py_count_racy", "py_count_racy_call", "py_count_locked", "py_numpy_add_racy")


def make(kind, n, threads):
    if kind == "py_numpy_add_racy":
        return NumpyAdd(n, threads)
    if kind in KINDS:
        return Counter(kind, n, threads)
    raise ValueError(f"unknown race kind {kind!r}")
