// The Python part's entry in the runtime registry (experiments/wiring/make_registry.cpp calls
// add_python_backends), and the interpreter its backends share.
#pragma once

#include <functional>
#include <string>

#include "core/workload.hpp"
#include "embed/interpreter.hpp"
#include "embed/own_kernel_workloads.hpp"
#include "embed/record_fields.hpp"

namespace parlab {

// Adds every Python backend (kind "python", kernel "pi"): available, or unavailable with the
// reason where this build cannot run it (no per-interpreter GIL, not free-threaded). Starts no
// interpreter: that happens when the first Python workload is made.
void add_python_backends(Registry& registry);

// A person's Python kernel file (`-k path/to/file.py[:name]`, embed/own_kernel_workloads.hpp):
// checked with ast (check_own_kernel: UsageError when refused) and registered for the Python
// backends, which list it once add_python_backends runs after. Registering a name twice keeps
// the first. Returns the kernel as registered.
embed::OwnKernel register_own_kernel(std::string_view name, const std::string& expected_sha256 = {},
                                     const std::string& file = {});
// A registered kernel file, or null.
const embed::OwnKernel* registered_own_kernel(std::string_view name);

// Options for the shared interpreter (the CLI's --python-home). Throws FailureError once the
// interpreter has started, since they could no longer take effect.
void set_python_options(embed::InterpreterOptions options);

// The interpreter every Python backend uses, started on first call.
//
// It is never finalised, deliberately. Finalising at exit would run from a static destructor or
// atexit handler, after the C++ statics of extension libraries that were dlopen'ed later (NumPy,
// PyTorch, CuPy and the CUDA runtime) have already been destroyed, since destruction runs in
// reverse order of construction; their module teardown then touches dead objects. A plain
// `python` avoids this by finalising before exit() starts. Restarting is no option either:
// NumPy and friends do not survive re-initialisation. So the interpreter lives until the process
// exits; the workloads join their Python threads when destroyed, so nothing runs by then.
// Throws FailureError when CPython cannot start, or when an embed::Interpreter owned elsewhere
// is already running.
embed::Interpreter& shared_python_interpreter();

// Which interpreter ran this process's Python records (embed/record_fields.hpp).
PythonRecordFields python_record_fields();

// For the results' context block: version, GIL mode, per-interpreter GIL support, and, once
// the interpreter has started, sys.executable, sys.prefix and the virtual environment used.
std::string python_context();

// A BackendEntry::probe for a Python runner of parlab_driver's `kind` that imports a library
// (NumPy, Numba, CuPy, PyTorch, Dask): starts the shared interpreter and asks parlab_driver.probe,
// which makes the imports the runner would make (and asks the GPU libraries for a device), once
// per kind and interpreter. "" where it can run, or where the interpreter itself fails (the run
// reports that failure).
std::function<std::string()> python_library_probe(const char* kind);

// An available Python backend's entry with what every one shares (kind "python", its detail with
// the interpreter's `runtime` appended); the caller adds kernels, flags and the factory.
BackendEntry python_entry(const char* name, const char* detail, const std::string& runtime, Processor processor);

}  // namespace parlab
