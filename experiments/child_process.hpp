// Runs another program and captures its standard output: how a run reaches the parlab of another
// interpreter (interpreters.cpp) and the MPI jobs it launches (rank_sweep.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace parlab {

struct ChildOutput {
  int exit_code = -1;  // -1: could not start (out says why); 128+N: killed by signal N
  std::string out;     // its stdout; stderr is inherited, so the child's messages reach the user
};

// Runs argv[0] (looked up on PATH when it has no '/') with this process's environment, where each
// (NAME, value) in `set_env` replaces NAME. Waits for it to exit. posix_spawn, not fork: this
// process may run threads (a thread pool, Python threads), and a child of fork() may only call
// async-signal-safe functions before exec. Throws FailureError only when no pipe can be made.
ChildOutput run_capturing(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& set_env = {});

}  // namespace parlab
