// The built-in module `parlab`, registered with PyImport_AppendInittab before start-up (the
// Interpreter does it). Multi-phase initialisation and no module state, so every sub-interpreter
// gets its own module object and it can declare per-interpreter-GIL support (3.12+) and
// Py_MOD_GIL_NOT_USED (free-threaded 3.13+). Its one process-wide state, the ledger of the
// workload running now (AccountingLedger, below), is an atomic pointer, and each thread's worker
// index is the thread's own.
//
//   pi(samples, seed, start=0, release_gil=True) -> int
//       hits of the points [start, start+samples) of the canonical stream of `seed`
//       (core/pi.hpp), computed in C++ with the GIL released around the loop when asked.
//   triad(a, b, c, scalar) -> None      a[i] = b[i] + scalar * c[i]   (BabelStream's triad)
//   dot(a, b) -> float                  the deterministic dot of core/stream.hpp
//       over objects supporting the buffer protocol: float64 ('d'), C-contiguous, equal lengths,
//       `a` writable for triad; the GIL is released around the loop.
//   spin(seconds, release_gil=True) -> None   busy-waits (for calibrating overheads)
//   gil_wait_ns() -> int    nanoseconds this OS thread has spent re-acquiring the GIL after a
//                           release by this module (monotonic; take differences)
//   gil_mode: str           "gil" or "free-threaded" (how this module was compiled)
//   set_worker(index) -> None      this OS thread is worker `index` of the running workload's
//                           per-worker accounting (-1: none, the default); a team sets it once
//                           per thread (parlab_team.py, parlab_tasks.py)
//   accounted(items, fn, *args) -> fn(*args)   fn's call as one chunk of `items` items
// Per-worker accounting (docs/records.md, "Workers"): while a workload has installed its ledger
// (AccountingLedger) and the calling thread is one of its workers, pi, triad and dot account
// their kernel as one chunk of their points or elements, inside the GIL's release where they
// release it, so the wait for the GIL is never a worker's useful time; accounted() brackets a
// pure-Python block the same way. Elsewhere they account nothing and cost a thread-local read.
// Argument errors raise TypeError (wrong type or buffer format) or ValueError (out of range,
// non-contiguous or read-only buffer, lengths that differ).
#pragma once

#include "embed/python.hpp"

namespace parlab {
class WorkerLedger;
}

namespace parlab::embed {

// Installs `ledger` as the one the module's entry points account into, for the object's lifetime
// (restoring the one installed before: nests). A workload holds one around each run(), so the
// ledger outlives every chunk accounted into it (the team's threads are joined by then).
class AccountingLedger {
 public:
  explicit AccountingLedger(WorkerLedger* ledger) noexcept;
  ~AccountingLedger();
  AccountingLedger(const AccountingLedger&) = delete;
  AccountingLedger& operator=(const AccountingLedger&) = delete;

 private:
  WorkerLedger* previous_;
};

// The PyInit function (returns the module definition for multi-phase initialisation).
extern "C" PyObject* parlab_module_init();

}  // namespace parlab::embed
