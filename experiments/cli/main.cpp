#include <csignal>
#include <iostream>

#include "experiments/cli/cli.hpp"

int main(int argc, char** argv) {
  // A closed stdout or stderr (`parlab run ... | head -1`) must never kill a measurement: a write
  // to it fails instead, and the run completes and writes its records (docs/design.md, "Failure
  // semantics"). Children get the default action back (io/child_process.cpp), and so does a rank
  // of an MPI job (cli.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  return parlab::run_cli(argc, argv, std::cout, std::cerr);
}
