// The built-in module `parlab`, registered with PyImport_AppendInittab before start-up (the
// Interpreter does it). Multi-phase initialisation, no module state and no global mutable state,
// so every sub-interpreter gets its own module object and it can declare per-interpreter-GIL
// support (3.12+) and Py_MOD_GIL_NOT_USED (free-threaded 3.13+).
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
// Argument errors raise TypeError (wrong type or buffer format) or ValueError (out of range,
// non-contiguous or read-only buffer, lengths that differ).
#pragma once

#include "embed/python.hpp"

namespace parlab::embed {

// The PyInit function (returns the module definition for multi-phase initialisation).
extern "C" PyObject* parlab_module_init();

}  // namespace parlab::embed
