#include <csignal>
#include <iostream>

#include "experiments/cli/cli.hpp"

int main(int argc, char** argv) {
  // A closed stdout or stderr (`parlab run ... | head -1`) must never kill a measurement: a write
  // to it fails instead, and the run completes and writes its records (docs/design.md, "Failure
  // semantics"). Children get the default action back (io/child_process.cpp), and so does a rank
  // of an MPI job (cli.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  // A file-size limit (`ulimit -f`) must not kill parlab mid-write either, leaving a truncated
  // temporary file: with SIGXFSZ ignored, the write fails with EFBIG, write_atomically removes its
  // temporary file and names the file it meant (exit 2), and results.json stays as it was. The
  // Python children inherit the ignored signal and fail the same way.
  std::signal(SIGXFSZ, SIG_IGN);
  return parlab::run_cli(argc, argv, std::cout, std::cerr);
}
