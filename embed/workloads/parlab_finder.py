"""The import hook that serves parlab's workload modules from text, not files: in the embedded
interpreter (embed/sources.cpp executes this module's text before any other can be imported, and
calls install with every module compiled into the binary) and in the processes and Dask workers a
run spawns (parlab_tasks.WORKER_BOOTSTRAP does the same there with the modules they need). Only
importlib.util, linecache and sys are used: every interpreter has them, sub-interpreters included.
The finder and loader are the protocol's methods alone, not importlib.abc's classes: importing
importlib.abc imports importlib.resources (pathlib, inspect, tempfile), about half a second of
every process's start on a ThreadSanitizer-built interpreter, and nothing here uses it."""
import importlib.util
import linecache
import sys


class ParlabEmbeddedFinder:
    """Serves the modules in `sources` ({module: (filename, text)}); tracebacks show their lines."""

    def __init__(self, sources):
        self.sources = {}
        self.add(sources)

    def add(self, sources):
        """Serves `sources` too: those of a module not served yet, as a worker of a cluster that
        outlives a run is given the modules of each run that uses it (the first, pi's tasks; a
        later one, a kernel file's). A module already served keeps its text: it may be imported."""
        for name, (filename, text) in sources.items():
            if name not in self.sources:
                self.sources[name] = (filename, text)
                linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)

    def find_spec(self, name, path=None, target=None):
        if name not in self.sources:
            return None
        return importlib.util.spec_from_loader(name, self, origin=self.sources[name][0])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        filename, text = self.sources[module.__name__]
        module.__file__ = filename
        exec(compile(text, filename, "exec"), module.__dict__)


def install(sources):
    """Puts a finder for `sources` first on sys.meta_path, once per interpreter; where one is there
    already (a long-lived worker's, set up by an earlier run), it serves `sources` too."""
    for f in sys.meta_path:
        if type(f).__name__ == "ParlabEmbeddedFinder":
            f.add(sources)
            return
    sys.meta_path.insert(0, ParlabEmbeddedFinder(sources))
