// Sub-interpreters with their own GIL (PEP 684, CPython >= 3.12), one per C++ thread.
//
// Availability is a compile-time branch (PY_VERSION_HEX: the API exists in the headers) and a
// run-time one (Py_Version: the running libpython has it); both are folded into
// python_info().per_interpreter_gil. On a build without it, constructing one throws
// UnavailableError with the reason, so callers have one code path.
#pragma once

#include <mutex>

#include "embed/interpreter.hpp"
#include "embed/python.hpp"

namespace parlab::embed {

class SubInterpreter {
 public:
  // Creates an isolated interpreter (own GIL, own object allocator, single-phase extension
  // modules refused) and makes it current on the calling thread, its GIL held.
  // PRECONDITION: an Interpreter is running; the calling thread has no current Python thread
  // state (a fresh C++ thread, not inside a GilAcquire) - checked, FailureError otherwise.
  // Throws UnavailableError without per-interpreter GIL support.
  SubInterpreter();
  // Ends the interpreter (Py_EndInterpreter); the thread is left with no thread state.
  // PRECONDITION: called on the creating thread, holding this interpreter's GIL, with no other
  // thread running in it. (Between jobs a thread may drop its GIL with GilRelease: creating a
  // sub-interpreter turns PyGILState_Check() permissive, and its thread state is current.)
  ~SubInterpreter();
  SubInterpreter(const SubInterpreter&) = delete;
  SubInterpreter& operator=(const SubInterpreter&) = delete;

  PyThreadState* thread_state() const noexcept { return tstate_; }

  // Creating and ending interpreters touch runtime-wide state (the interpreter list, shared
  // caches); parlab does it one at a time so that start-up never races with another start-up.
  // Running code in them is what happens in parallel.
  static std::mutex& lifecycle_mutex();

 private:
  PyThreadState* tstate_ = nullptr;
};

}  // namespace parlab::embed
