// A person's own Python kernel from a file (`parlab run -k path/to/file.py[:name]`,
// embed/workloads/parlab_ownkernel.py has the contract) on parlab's Python executors: Python
// threads (with the GIL, or without it on a free-threaded build), the thread pool, processes,
// dask.delayed, dask.distributed and sub-interpreters with their own GIL. The kernel names are
// checked and registered before the registry is made (experiments/cli/cli.cpp), so the backends
// list them and the plan accepts them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/workload.hpp"

namespace parlab::embed {

struct OwnKernel {
  std::string name;      // the kernel's name in plan and records: the path as given [":" function]
  std::string path;      // absolute
  std::string function;  // "chunk" unless named
  std::string sha256;    // of the file as checked
};

// Reads `kernel` (a file kernel's name, parse_file_kernel) with Python's ast in the embedded
// interpreter, starting it: nothing of the file runs. Throws UsageError naming the file and the
// fix when the path does not exist, the file does not parse or defines no chunk function.
// `expected_sha256`, when given, is the hash the file had when the run checked it (a child
// measuring one point of a run): the file is then refused as edited when it differs.
// `file`, when given, is where the file is (a resumed run's records say, relative to the run's
// directory, since a run's written names are made portable); otherwise the name's path, relative
// to the working directory.
OwnKernel check_own_kernel(std::string_view kernel, const std::string& expected_sha256 = {},
                           const std::string& file = {});

// The kernels the Python backends list (set before add_python_backends runs).
void set_own_kernels(std::vector<OwnKernel> kernels);
const std::vector<OwnKernel>& own_kernels();
const OwnKernel* find_own_kernel(std::string_view name);

// The own-kernel runner kind of a Python backend ("threads", "thread-pool", "processes",
// "dask-delayed", "dask-distributed", "subinterp"), or "" where the backend does not run file kernels.
std::string own_kernel_runner(std::string_view backend);

// Makes the workload for file kernel p.kernel on `backend`, whose runner kind is `kind`: the
// module is loaded here, outside the timed region. A file that fails to import is a
// FailureError with the kernel's own message and line.
// PRECONDITION: an Interpreter is running; the calling thread does not hold the GIL.
std::unique_ptr<Workload> make_own_kernel_workload(const std::string& backend, const std::string& kind,
                                                   const Problem& p);

}  // namespace parlab::embed
