// Builds the runtime registry: every backend that was compiled registers itself; every one
// that was not is listed as unavailable with the configure-time reason.
#pragma once

#include <optional>
#include <string>

#include "core/workload.hpp"

namespace parlab {

Registry make_registry();

// Where the external peers' binaries are (BabelStream's omp-stream and cuda-stream, peers/):
// `parlab run --peer-dir DIR`, which overrides $PARLAB_BABELSTREAM_DIR in the registries made
// after it. Empty: the environment's.
void set_peer_dir(const std::string& dir);

// Options for the embedded Python interpreter, taken before the first Python workload starts it:
// `python_home` overrides PYTHONHOME and the prefix derived from the interpreter (--python-home).
// A no-op in a build without the Python part. Throws FailureError once it has started.
void configure_python(const std::string& python_home);

// This process's part in an MPI job (RAII). Under an MPI launcher the constructor starts MPI;
// on ranks other than 0 the caller then only serve()s rank 0's distributed workloads, so output
// and result files come from rank 0 alone. Without a launcher MPI starts when a distributed
// workload is first made. The destructor ends the job (rank 0 releases the other ranks) and
// finalizes MPI if it started. No-ops in a build without the MPI part.
class MpiJobScope {
 public:
  MpiJobScope();  // throws FailureError when MPI cannot start under a launcher
  ~MpiJobScope();
  MpiJobScope(const MpiJobScope&) = delete;
  MpiJobScope& operator=(const MpiJobScope&) = delete;
  bool follower() const;
  static bool in_job();  // MPI was started by a launcher in this process
  int serve();  // returns the exit code once rank 0 ends the job
};

// What the results' context records about MPI.
struct MpiFacts {
  bool built = false;
  std::string why;      // why the part is not built
  std::string library;  // MPI_Get_library_version
  bool in_job = false;  // this process is a rank of a started MPI job
  int ranks = 1, ranks_per_node = 1, hosts = 1;
  std::string binding;  // every rank's CPU affinity, "r0:0-1 r1:0-1"
};
MpiFacts mpi_facts();

// The Python line of the results' context block (version, GIL mode, per-interpreter GIL, and
// sys.executable/prefix/virtual environment once started), or why the part is not built.
std::string python_context_line();

// Which interpreter ran this process's Python records (embed/register.hpp's PythonRecordFields),
// or nullopt in a build without the Python part.
struct InterpreterFields {
  std::string interpreter;   // "3.11.2", "3.13.5 free-threaded"
  std::string python_build;  // "gil" or "free-threaded"
  bool gil_enabled = true;   // at run time: sys._is_gil_enabled()
};
std::optional<InterpreterFields> python_interpreter_fields();

}  // namespace parlab
